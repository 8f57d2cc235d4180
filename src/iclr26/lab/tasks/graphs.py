"""Directed-graph generators for graph tasks (networkx), with known acyclic structure.

* :func:`transitive_tournament` T_n: arcs (i, j) for all i < j, a DAG with n(n-1)/2 arcs.
* :func:`complete_digraph` K_n: both arcs between every pair, n(n-1) arcs; maximum acyclic subgraph n(n-1)/2.
* :func:`random_dag`: arcs along a hidden random order, each present with probability p.
* :func:`planted_fas_digraph`: a random DAG plus k "back" arcs whose cycles are arc-disjoint, so that its
  minimum feedback arc set has size exactly k (at least k because k arc-disjoint cycles each need one removed
  arc, at most k because removing the planted arcs leaves the DAG).

Each graph carries ``G.graph["name"]``; the random ones also ``G.graph["order"]`` (the hidden topological
order), and the planted ones ``G.graph["planted_fas"]`` (the back arcs) and ``G.graph["witness_cycles"]`` (for
each back arc (v, u), the forward path [u, ..., v] that it closes into a cycle; the cycles are arc-disjoint).

Example
-------
>>> G = planted_fas_digraph(8, k=3, seed=0)
>>> len(G.graph["planted_fas"]), G.number_of_nodes()
(3, 8)
"""

from __future__ import annotations

import networkx as nx
import numpy as np

from iclr26.checks import check_float, check_int

__all__ = ["complete_digraph", "planted_fas_digraph", "random_dag", "transitive_tournament"]


def transitive_tournament(n: int) -> nx.DiGraph:
    """T_n on vertices 0..n-1 with an arc i -> j for every i < j (acyclic)."""
    check_int("n", n, low=1)
    G = nx.DiGraph(name=f"T{n}")
    G.add_nodes_from(range(n))
    G.add_edges_from((i, j) for i in range(n) for j in range(i + 1, n))
    return G


def complete_digraph(n: int) -> nx.DiGraph:
    """K_n on vertices 0..n-1 with arcs i -> j and j -> i for every pair (every pair is a 2-cycle)."""
    check_int("n", n, low=1)
    G = nx.DiGraph(name=f"K{n}")
    G.add_nodes_from(range(n))
    G.add_edges_from((i, j) for i in range(n) for j in range(n) if i != j)
    return G


def random_dag(n: int, p: float = 0.5, seed: int = 0) -> nx.DiGraph:
    """A DAG on 0..n-1: each arc along a hidden random order is present with probability `p`."""
    check_int("n", n, low=1)
    check_float("p", p, 0.0, 1.0)
    rng = np.random.default_rng(seed)
    order = [int(v) for v in rng.permutation(n)]
    G = nx.DiGraph(name=f"DAG{n}", order=order)
    G.add_nodes_from(range(n))
    G.add_edges_from((order[i], order[j]) for i in range(n) for j in range(i + 1, n) if rng.random() < p)
    return G


def planted_fas_digraph(n: int, k: int, p: float = 0.5, seed: int = 0, max_tries: int = 200) -> nx.DiGraph:
    """A random DAG (see :func:`random_dag`) plus `k` back arcs whose cycles are pairwise arc-disjoint.

    Each back arc (v, u) closes a cycle with a forward path u -> ... -> v that shares no arc with the
    paths of the other back arcs, so the minimum feedback arc set has size exactly `k`.

    Raises
    ------
    ValueError
        if `k` is negative or no such graph is found in `max_tries` draws (k too large for n and p).
    """
    check_int("n", n, low=2)
    check_int("k", k, low=0)
    if k > n * (n - 1) // 2:
        raise ValueError(f"k={k} exceeds the n(n-1)/2={n * (n - 1) // 2} vertex pairs of n={n}")
    rng = np.random.default_rng(seed)
    for _ in range(max_tries):
        dag = random_dag(n, p, seed=int(rng.integers(2**31)))
        planted, cycles = _plant_back_arcs(dag, k, rng)
        if len(planted) == k:
            G = nx.DiGraph(dag, name=f"P{n}k{k}", planted_fas=planted, witness_cycles=cycles)
            G.add_edges_from(planted)
            return G
    raise ValueError(f"could not plant k={k} arc-disjoint cycles in a random DAG with n={n}, p={p}")


def _plant_back_arcs(
    dag: nx.DiGraph, k: int, rng: np.random.Generator
) -> tuple[list[tuple[int, int]], list[list[int]]]:
    """Greedily pick back arcs (v, u) with a forward u -> v path that avoids arcs already used."""
    order = dag.graph["order"]
    pairs = [(order[i], order[j]) for i in range(len(order)) for j in range(i + 1, len(order))]
    free = nx.DiGraph(dag)
    planted: list[tuple[int, int]] = []
    cycles: list[list[int]] = []
    # pairs without a direct arc first, so that the planted cycles tend to be longer than 2
    candidates = sorted(rng.permutation(len(pairs)).tolist(), key=lambda i: dag.has_edge(*pairs[i]))
    for idx in candidates:
        if len(planted) == k:
            break
        u, v = pairs[idx]
        try:
            path = nx.shortest_path(free, u, v)
        except nx.NetworkXNoPath:
            continue
        free.remove_edges_from(zip(path[:-1], path[1:]))
        planted.append((v, u))
        cycles.append(path)
    return planted, cycles
