"""Link mapping: shortest feasible physical paths for virtual links.

Default (fast): breadth-first search (scipy.sparse.csgraph) in the subgraph of physical links whose available
bandwidth covers the demand, i.e. the fewest-hop feasible path. Fidelity option: the paper's k-shortest simple
paths on the whole PN (networkx ``shortest_simple_paths``, k = 10), taking the first feasible one.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import islice

import networkx as nx
import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order

from iclr26.checks import check_choice, check_float, check_int
from iclr26.decision.virne.sim import (
    Embedding,
    PhysicalNetwork,
    VirtualNetwork,
    check_bw,
    check_network,
    check_request,
)

__all__ = ["Router", "bfs_path", "k_shortest_path", "make_router", "route_links"]

Router = Callable[[PhysicalNetwork, int, int, float, np.ndarray], "list[int] | None"]


def _check_route(pn: PhysicalNetwork, src: int, dst: int, demand: float, bw: np.ndarray) -> np.ndarray:
    check_network(pn)
    check_int(f"src (a physical node in [0, {pn.n}))", src, 0, pn.n - 1)
    check_int(f"dst (a physical node in [0, {pn.n}))", dst, 0, pn.n - 1)
    check_float("demand", demand, low=0.0)
    return check_bw(pn, bw)


def bfs_path(pn: PhysicalNetwork, src: int, dst: int, demand: float, bw: np.ndarray) -> list[int] | None:
    """Fewest-hop path from `src` to `dst` using only links with ``bw >= demand``; None if none exists."""
    _check_route(pn, src, dst, demand, bw)
    if src == dst:
        return [src]
    keep = bw >= demand
    e = pn.edges[keep]
    if len(e) == 0:
        return None
    ones = np.ones(len(e), dtype=np.int8)
    g = sp.csr_matrix((ones, (e[:, 0], e[:, 1])), shape=(pn.n, pn.n))
    _, pred = breadth_first_order(g, src, directed=False, return_predecessors=True)
    if pred[dst] < 0:
        return None
    path = [dst]
    while path[-1] != src:
        path.append(int(pred[path[-1]]))
    return path[::-1]


def k_shortest_path(
    pn: PhysicalNetwork, src: int, dst: int, demand: float, bw: np.ndarray, k: int = 10
) -> list[int] | None:
    """The first of the `k` shortest simple paths (by hops, on the full PN) whose every link has enough BW."""
    _check_route(pn, src, dst, demand, bw)
    check_int("k", k, low=1)
    if src == dst:
        return [src]
    for path in islice(nx.shortest_simple_paths(pn.graph, src, dst), k):
        if all(bw[e] >= demand for e in pn.path_edges(path)):
            return [int(v) for v in path]
    return None


def check_router(router: object) -> Router:
    if not callable(router):
        raise TypeError(
            f"router must be a callable router(pn, src, dst, demand, bw), got {type(router).__name__}"
        )
    return router  # type: ignore[return-value]


def make_router(name: str = "bfs", k: int = 10) -> Router:
    """``"bfs"`` (default, fast) or ``"ksp"`` (k-shortest simple paths, the paper's procedure)."""
    check_choice("router", name, ("bfs", "ksp"))
    check_int("k", k, low=1)
    if name == "bfs":
        return bfs_path
    return lambda pn, s, d, dem, bw: k_shortest_path(pn, s, d, dem, bw, k)


def route_links(
    pn: PhysicalNetwork, vn: VirtualNetwork, nodes: list[int], router: Router = bfs_path
) -> Embedding | None:
    """Route every virtual link in order on the remaining bandwidth; None as soon as one cannot be routed."""
    check_network(pn), check_request(vn), check_router(router)
    if len(nodes) != vn.n:
        raise ValueError(f"nodes must map each of the {vn.n} virtual nodes, got {len(nodes)} hosts")
    for v in nodes:
        check_int(f"nodes (physical hosts in [0, {pn.n}))", v, 0, pn.n - 1)
    bw = pn.bw.copy()
    paths: list[list[int]] = []
    for k, (i, j) in enumerate(vn.links):
        path = router(pn, nodes[i], nodes[j], vn.bw[k], bw)
        if path is None:
            return None
        for e in pn.path_edges(path):
            bw[e] -= vn.bw[k]
        paths.append(path)
    return Embedding(list(nodes), paths)
