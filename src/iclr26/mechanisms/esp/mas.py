"""Exact maximum acyclic subgraph (MAS) and the best single-head ESP accuracy it implies.

"Two (narrow) heads are better than (an arbitrarily wide) one", ICLR 2026, OpenReview RRmPbbZsvl, Theorem
(best 1-head error): for a graph with m arcs the best one-layer single-head error on ESP is

    err_1head = |MFAS| / (2m) = 1/2 - |MAS| / (2m),   i.e.   acc_1head = 1/2 + |MAS| / (2m).

|MAS| is the largest number of arcs that are forward in some linear order of V. Two exact solvers:

* subset DP (n <= 20): best[S] = max_{v in S} best[S - v] + |{(u, v) in E : u in S - v}|, v placed last;
  O(2^n n) time, vectorised over all subsets of one size at a time;
* linear-ordering ILP (any n, via ``scipy.optimize.milp``): y_ij = [i before j] for i < j, maximise
  sum over arcs of y_ab (or 1 - y_ba), subject to 0 <= y_ij + y_jk - y_ik <= 1 for i < j < k (transitivity).

Example
-------
>>> from iclr26.lab.tasks import complete_digraph
>>> mas_exact(complete_digraph(4)).size, optimal_1head_accuracy(complete_digraph(4))
(6, 0.75)
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import networkx as nx
import numpy as np
from scipy import sparse
from scipy.optimize import Bounds, LinearConstraint, milp

from iclr26.checks import check_float
from iclr26.mechanisms.esp.task import check_graph

__all__ = ["MaximumAcyclicSubgraph", "mas_exact", "optimal_1head_accuracy"]

DP_MAX_N = 20


@dataclass(frozen=True)
class MaximumAcyclicSubgraph:
    """A maximum acyclic subgraph: its size, a linear order of the vertices whose forward arcs form it,
    those arcs, and the solver that found it (``"dp"`` or ``"milp"``)."""

    size: int
    order: tuple
    arcs: tuple
    method: str


def _forward_arcs(G: nx.DiGraph, order: list) -> list:
    rank = {v: i for i, v in enumerate(order)}
    return [(u, v) for u, v in G.edges if rank[u] < rank[v]]


def _mas_dp(G: nx.DiGraph) -> list:
    nodes = list(G.nodes)
    n = len(nodes)
    index = {v: i for i, v in enumerate(nodes)}
    in_mask = np.zeros(n, dtype=np.int64)
    for u, v in G.edges:
        in_mask[index[v]] |= 1 << index[u]
    subsets = np.arange(1 << n, dtype=np.int64)
    popcount = np.zeros(1 << n, dtype=np.int64)
    for b in range(n):
        popcount += (subsets >> b) & 1
    best = np.zeros(1 << n, dtype=np.int64)
    last = np.zeros(1 << n, dtype=np.int64)
    for size in range(1, n + 1):
        layer = subsets[popcount == size]
        top = np.full(layer.shape, -1, dtype=np.int64)
        arg = np.zeros(layer.shape, dtype=np.int64)
        for v in range(n):
            has_v = ((layer >> v) & 1).astype(bool)
            rest = layer ^ (1 << v)
            # best[S] = max_v best[S - v] + |arcs into v from S - v|   (v placed last)
            value = np.where(has_v, best[rest] + popcount[in_mask[v] & rest], -1)
            better = value > top
            top = np.where(better, value, top)
            arg = np.where(better, v, arg)
        best[layer], last[layer] = top, arg
    order, S = [], (1 << n) - 1
    while S:
        v = int(last[S])
        order.append(nodes[v])
        S ^= 1 << v
    return order[::-1]


def _mas_milp(G: nx.DiGraph, time_limit: float | None) -> list:
    nodes = list(G.nodes)
    n = len(nodes)
    if n == 1:
        return nodes
    pairs = list(combinations(range(n), 2))
    var = {p: i for i, p in enumerate(pairs)}
    index = {v: i for i, v in enumerate(nodes)}
    # maximise sum_{(a,b) in E} [a before b]: +y_ab if a < b, else 1 - y_ba (milp minimises, so negate)
    cost = np.zeros(len(pairs))
    for u, v in G.edges:
        a, b = index[u], index[v]
        cost[var[(a, b)] if a < b else var[(b, a)]] += -1.0 if a < b else 1.0
    rows, cols, vals = [], [], []
    for r, (i, j, k) in enumerate(combinations(range(n), 3)):
        # transitivity: 0 <= y_ij + y_jk - y_ik <= 1
        rows += [r, r, r]
        cols += [var[(i, j)], var[(j, k)], var[(i, k)]]
        vals += [1.0, 1.0, -1.0]
    constraints = []
    if rows:
        A = sparse.csr_array((vals, (rows, cols)), shape=(rows[-1] + 1, len(pairs)))
        constraints.append(LinearConstraint(A, 0.0, 1.0))
    options = {} if time_limit is None else {"time_limit": time_limit}
    res = milp(
        cost, constraints=constraints, integrality=np.ones(len(pairs)), bounds=Bounds(0, 1), options=options
    )
    if res.status != 0:
        raise RuntimeError(f"MAS ILP did not reach a proven optimum: {res.message}")
    y = np.round(res.x).astype(int)
    before = np.zeros(n, dtype=int)  # number of vertices each vertex precedes
    for (i, j), val in zip(pairs, y):
        before[i if val else j] += 1
    return [nodes[i] for i in np.argsort(-before, kind="stable")]


def mas_exact(G: nx.DiGraph, method: str = "auto", time_limit: float | None = None) -> MaximumAcyclicSubgraph:
    """Exact maximum acyclic subgraph of `G`.

    Parameters
    ----------
    G : a directed graph without self-loops, with at least one arc.
    method : ``"dp"`` (subset DP, n <= 20), ``"milp"`` (linear-ordering ILP) or ``"auto"`` (DP for n <= 16).
    time_limit : seconds for the ILP; a RuntimeError is raised if it stops without a proven optimum.

    Examples
    --------
    >>> from iclr26.lab.tasks import transitive_tournament
    >>> mas_exact(transitive_tournament(5)).size
    10
    """
    check_graph(G)
    n = G.number_of_nodes()
    if method not in ("auto", "dp", "milp"):
        raise ValueError(f"method must be 'auto', 'dp' or 'milp', got {method!r}")
    if time_limit is not None:
        check_float("time_limit", time_limit, low=0.0, low_open=True)
    if method == "auto":
        method = "dp" if n <= 16 else "milp"
    if method == "dp" and n > DP_MAX_N:
        raise ValueError(f"method='dp' needs n <= {DP_MAX_N} vertices (2^n subsets), got n={n}; use 'milp'")
    order = _mas_dp(G) if method == "dp" else _mas_milp(G, time_limit)
    arcs = _forward_arcs(G, order)
    return MaximumAcyclicSubgraph(size=len(arcs), order=tuple(order), arcs=tuple(arcs), method=method)


def optimal_1head_accuracy(G: nx.DiGraph) -> float:
    """The best ESP accuracy a one-layer single-head model can reach on `G`: 1/2 + |MAS| / (2m)."""
    m = G.number_of_edges()
    return (m + mas_exact(G).size) / (2 * m)  # = 1/2 + |MAS|/(2m), as a ratio of integers like an accuracy
