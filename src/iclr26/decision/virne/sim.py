"""Physical network, virtual-network requests and the event-driven online simulator (Virne, arXiv 2507.19234).

A physical network (PN) keeps its topology in networkx and its resources in numpy arrays: node CPU and link
bandwidth (``cpu_max``/``bw_max`` and the available ``cpu``/``bw``). A virtual network (VN) request has CPU
demands per virtual node, bandwidth demands per virtual link, an arrival time and a lifetime. A solver maps one
VN onto the current PN (``solve(pn, vn) -> Embedding | None``, never touching the PN); the simulator checks the
embedding against the available resources, reserves it, and releases it when the VN departs.

Metrics: RAC = accepted / arrived; LRC = sum REV / sum COST over accepted VNs; LAR = sum over accepted of
REV x lifetime divided by the arrival horizon (time of the last arrival); AST = mean wall time per solve.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import networkx as nx
import numpy as np

from iclr26.checks import check_array, check_float, check_int, check_probability

__all__ = [
    "Embedding",
    "OnlineSimulator",
    "PhysicalNetwork",
    "RequestRecord",
    "SimulationResult",
    "Solver",
    "check_embedding",
    "simulate",
    "summarize",
    "VNRequestGenerator",
    "VNSettings",
    "VirtualNetwork",
    "waxman_network",
]


def _nonneg_array(values: Any, name: str) -> np.ndarray:
    raw = np.asarray(values)
    if (
        raw.dtype == bool
        or raw.dtype.kind == "c"
        or not (np.issubdtype(raw.dtype, np.number) or raw.dtype == object)
    ):
        raise ValueError(f"{name} must hold numbers, got dtype {raw.dtype}")
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must hold numbers, got {values!r}") from None
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite")
    if np.any(arr < 0):
        raise ValueError(f"{name} must be non-negative (negative resources or demands are invalid)")
    return arr


def _int_pair(name: str, pair: Any, low: int) -> tuple[int, int]:
    """`pair` as (lo, hi) integers with ``low <= lo <= hi``."""
    if isinstance(pair, (str, bytes)) or not hasattr(pair, "__len__") or len(pair) != 2:
        raise ValueError(f"{name} must be a pair (low, high), got {pair!r}")
    lo = check_int(f"{name} low", pair[0], low=low)
    hi = check_int(f"{name} high", pair[1], low=lo)
    return lo, hi


def check_network(pn: Any, name: str = "pn") -> PhysicalNetwork:
    if not isinstance(pn, PhysicalNetwork):
        raise TypeError(f"{name} must be a PhysicalNetwork, got {type(pn).__name__}")
    return pn


def check_request(vn: Any, name: str = "vn") -> VirtualNetwork:
    if not isinstance(vn, VirtualNetwork):
        raise TypeError(f"{name} must be a VirtualNetwork, got {type(vn).__name__}")
    return vn


def check_bw(pn: PhysicalNetwork, bw: Any) -> np.ndarray:
    """`bw` as a finite (m,) array of per-link bandwidths of `pn`."""
    bw = check_array("bw", bw)
    if bw.shape != (pn.m,) or not np.all(np.isfinite(bw)):
        raise ValueError(f"bw must be finite, one value per physical link: shape ({pn.m},), got {bw.shape}")
    return bw


class PhysicalNetwork:
    """A substrate network: an undirected connected networkx graph with node ``cpu`` and edge ``bw`` attributes.

    Nodes are relabelled 0..n-1 in sorted order; edge ``e`` is ``edges[e] = (u, v)`` with ``u < v``.
    """

    def __init__(self, graph: nx.Graph) -> None:
        if not isinstance(graph, nx.Graph) or graph.is_directed():
            raise TypeError("graph must be an undirected networkx.Graph")
        if graph.number_of_nodes() < 2:
            raise ValueError("graph must have at least 2 nodes")
        if not nx.is_connected(graph):
            raise ValueError("graph must be connected (the physical network is disconnected)")
        order = sorted(graph.nodes)
        index = {v: i for i, v in enumerate(order)}
        missing_cpu = [v for v in order if "cpu" not in graph.nodes[v]]
        if missing_cpu:
            raise ValueError(
                f"graph nodes need a 'cpu' resource attribute; missing on node {missing_cpu[0]!r}"
            )
        missing_bw = [(u, v) for u, v, d in graph.edges(data=True) if "bw" not in d]
        if missing_bw:
            raise ValueError(f"graph edges need a 'bw' resource attribute; missing on edge {missing_bw[0]!r}")
        self.n = len(order)
        self.graph = nx.relabel_nodes(graph, index, copy=True)
        self.cpu_max = _nonneg_array([self.graph.nodes[i]["cpu"] for i in range(self.n)], "node cpu")
        edges = sorted((min(u, v), max(u, v)) for u, v in self.graph.edges)
        self.edges = np.array(edges, dtype=np.int64).reshape(-1, 2)
        self.bw_max = _nonneg_array([self.graph.edges[u, v]["bw"] for u, v in edges], "edge bw")
        self.edge_index = {(u, v): e for e, (u, v) in enumerate(edges)} | {
            (v, u): e for e, (u, v) in enumerate(edges)
        }
        self.neighbors = [np.array(sorted(self.graph.neighbors(i)), dtype=np.int64) for i in range(self.n)]
        self.incident = [
            np.array([self.edge_index[i, j] for j in self.neighbors[i]], dtype=np.int64)
            for i in range(self.n)
        ]
        self.cpu = self.cpu_max.copy()
        self.bw = self.bw_max.copy()
        self._topo: np.ndarray | None = None

    @property
    def m(self) -> int:
        """Number of physical links."""
        return len(self.edges)

    def reset(self) -> None:
        """Restore every resource to its initial value."""
        self.cpu = self.cpu_max.copy()
        self.bw = self.bw_max.copy()

    def path_edges(self, path: Sequence[int]) -> list[int]:
        """Edge ids along a node path; ValueError if two consecutive nodes are not adjacent."""
        out = []
        for a, b in zip(path[:-1], path[1:]):
            e = self.edge_index.get((check_int("path node", a), check_int("path node", b)))
            if e is None:
                raise ValueError(f"path is not connected: no physical link between {a} and {b}")
            out.append(e)
        return out

    def adjacent_bw(self, bw: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Per node, the sum and max of the available bandwidth of its incident links."""
        bw = self.bw if bw is None else check_bw(self, bw)
        s = np.zeros(self.n)
        mx = np.zeros(self.n)
        np.add.at(s, self.edges[:, 0], bw)
        np.add.at(s, self.edges[:, 1], bw)
        np.maximum.at(mx, self.edges[:, 0], bw)
        np.maximum.at(mx, self.edges[:, 1], bw)
        return s, mx

    def topological_features(self) -> np.ndarray:
        """(n, 4): degree / max degree, closeness, betweenness, eigenvector centrality (computed once)."""
        if self._topo is None:
            g = self.graph
            deg = np.array([g.degree(i) for i in range(self.n)], dtype=float)
            clo = nx.closeness_centrality(g)
            bet = nx.betweenness_centrality(g)
            try:
                eig = nx.eigenvector_centrality_numpy(g)
            except Exception:  # noqa: BLE001 - degenerate spectra: fall back to degree share
                eig = {i: deg[i] / deg.sum() for i in range(self.n)}
            self._topo = np.stack(
                [
                    deg / max(deg.max(), 1.0),
                    np.array([clo[i] for i in range(self.n)]),
                    np.array([bet[i] for i in range(self.n)]),
                    np.array([eig[i] for i in range(self.n)]),
                ],
                axis=1,
            )
        return self._topo


def waxman_network(
    n: int = 100,
    alpha: float = 0.5,
    beta: float = 0.2,
    cpu_range: tuple[int, int] = (50, 100),
    bw_range: tuple[int, int] = (50, 100),
    seed: int = 0,
) -> PhysicalNetwork:
    """A connected Waxman PN with integer uniform node CPU and link bandwidth (WX100 defaults).

    Waxman draws are repeated with the same generator until the graph is connected.
    """
    check_int("n", n, low=2)
    check_float("alpha", alpha, low=0.0, low_open=True)
    check_float("beta", beta, 0.0, 1.0, low_open=True)
    cpu_range, bw_range = _int_pair("cpu_range", cpu_range, 0), _int_pair("bw_range", bw_range, 0)
    check_int("seed", seed, low=0)
    rng = np.random.default_rng(seed)
    for _ in range(1000):
        g = nx.waxman_graph(n, beta=beta, alpha=alpha, seed=int(rng.integers(2**31)))
        if nx.is_connected(g):
            break
    else:  # pragma: no cover - practically unreachable for the WX settings
        raise ValueError("could not draw a connected Waxman graph; increase alpha or beta")
    for v in g.nodes:
        g.nodes[v]["cpu"] = int(rng.integers(cpu_range[0], cpu_range[1] + 1))
    for u, v in sorted(g.edges):
        g.edges[u, v]["bw"] = int(rng.integers(bw_range[0], bw_range[1] + 1))
    return PhysicalNetwork(g)


@dataclass
class VirtualNetwork:
    """One VN request: CPU per virtual node, bandwidth per virtual link ``links[k] = (i, j)``, timing."""

    cpu: np.ndarray
    links: np.ndarray
    bw: np.ndarray
    arrival: float = 0.0
    lifetime: float = 1.0
    id: int = 0

    def __post_init__(self) -> None:
        self.cpu = _nonneg_array(self.cpu, "virtual node cpu demand")
        raw = np.asarray(self.links)
        if raw.size and (
            raw.dtype == bool
            or not np.issubdtype(raw.dtype, np.number)
            or not np.all(np.isfinite(raw))
            or np.any(raw % 1)
        ):
            raise ValueError(
                f"links must be pairs (i, j) of integer virtual node indices, got {self.links!r}"
            )
        if raw.size % 2:
            raise ValueError(f"links must be pairs (i, j) of virtual node indices, got shape {raw.shape}")
        self.links = np.asarray(self.links, dtype=np.int64).reshape(-1, 2)
        self.bw = _nonneg_array(self.bw, "virtual link bw demand")
        n = len(self.cpu)
        if n < 1:
            raise ValueError("a virtual network needs at least one node")
        if len(self.bw) != len(self.links):
            raise ValueError(f"bw demand has {len(self.bw)} entries for {len(self.links)} virtual links")
        if len(self.links) and (self.links.min() < 0 or self.links.max() >= n):
            raise ValueError("virtual link endpoints must index virtual nodes 0..n-1")
        if np.any(self.links[:, 0] == self.links[:, 1]):
            raise ValueError("virtual links must join two different virtual nodes (self-loop found)")
        if len({(min(int(i), int(j)), max(int(i), int(j))) for i, j in self.links}) != len(self.links):
            raise ValueError("virtual links must be distinct (the same pair of virtual nodes appears twice)")
        g = nx.Graph()
        g.add_nodes_from(range(n))
        g.add_edges_from(map(tuple, self.links))
        if not nx.is_connected(g):
            raise ValueError("virtual network is disconnected; every VN must be connected")
        check_float("lifetime (positive and finite)", self.lifetime, low=0.0, low_open=True)
        check_float("arrival", self.arrival, low=0.0)
        check_int("id", self.id)
        self.neighbors: list[list[tuple[int, int]]] = [[] for _ in range(n)]
        for k, (i, j) in enumerate(self.links):
            self.neighbors[int(i)].append((int(j), k))
            self.neighbors[int(j)].append((int(i), k))

    @property
    def n(self) -> int:
        """Number of virtual nodes."""
        return len(self.cpu)

    @property
    def revenue(self) -> float:
        """REV = sum of CPU demands + sum of bandwidth demands."""
        return float(self.cpu.sum() + self.bw.sum())

    def adjacent_bw(self) -> tuple[np.ndarray, np.ndarray]:
        """Per virtual node, the sum and max of the bandwidth demand of its virtual links."""
        s = np.zeros(self.n)
        mx = np.zeros(self.n)
        for col in (0, 1):
            np.add.at(s, self.links[:, col], self.bw)
            np.maximum.at(mx, self.links[:, col], self.bw)
        return s, mx


@dataclass(frozen=True)
class VNSettings:
    """Request distribution (Virne's default VN simulation settings; eta is the Poisson arrival rate)."""

    num_requests: int = 1000
    size_range: tuple[int, int] = (2, 10)
    edge_prob: float = 0.5
    cpu_range: tuple[int, int] = (0, 20)
    bw_range: tuple[int, int] = (0, 50)
    lifetime_mean: float = 500.0
    eta: float = 0.14

    def __post_init__(self) -> None:
        check_float("eta (arrival rate)", self.eta, low=0.0, low_open=True)
        check_int("num_requests", self.num_requests, low=1)
        _int_pair("size_range", self.size_range, 1)
        check_probability("edge_prob", self.edge_prob)
        _int_pair("cpu_range (non-negative demands)", self.cpu_range, 0)
        _int_pair("bw_range (non-negative demands)", self.bw_range, 0)
        check_float("lifetime_mean", self.lifetime_mean, low=0.0, low_open=True)


class VNRequestGenerator:
    """Draw a reproducible sequence of VN requests: size U{lo..hi}, connected Erdos-Renyi links, integer
    uniform demands, exponential lifetimes and Poisson arrivals at rate ``eta``."""

    def __init__(self, seed: int, settings: VNSettings | None = None) -> None:
        self.seed = check_int("seed", seed, low=0)
        if settings is not None and not isinstance(settings, VNSettings):
            raise TypeError(f"settings must be None or a VNSettings, got {type(settings).__name__}")
        self.settings = settings or VNSettings()

    def _topology(self, n: int, rng: np.random.Generator) -> np.ndarray:
        p = self.settings.edge_prob
        pairs = np.array([(i, j) for i in range(n) for j in range(i + 1, n)], dtype=np.int64).reshape(-1, 2)
        for _ in range(1000):
            keep = rng.random(len(pairs)) < p
            links = pairs[keep]
            g = nx.Graph()
            g.add_nodes_from(range(n))
            g.add_edges_from(map(tuple, links))
            if nx.is_connected(g):
                return links
        # fall back to a random spanning path plus the last draw's links
        perm = rng.permutation(n)
        path = {tuple(sorted((int(a), int(b)))) for a, b in zip(perm[:-1], perm[1:])}
        return np.array(sorted(path | {tuple(x) for x in links.tolist()}), dtype=np.int64)

    def generate(self, max_size: int | None = None) -> list[VirtualNetwork]:
        """All ``num_requests`` requests in arrival order; ``max_size`` (the PN size) bounds the VN size."""
        s = self.settings
        if max_size is not None:
            check_int("max_size (None or the PN size)", max_size, low=1)
        if max_size is not None and s.size_range[1] > max_size:
            raise ValueError(
                f"VN size up to {s.size_range[1]} is larger than the physical network ({max_size} nodes)"
            )
        rng = np.random.default_rng(self.seed)
        t = 0.0
        out = []
        for k in range(s.num_requests):
            t += float(rng.exponential(1.0 / s.eta))
            n = int(rng.integers(s.size_range[0], s.size_range[1] + 1))
            links = self._topology(n, rng) if n > 1 else np.zeros((0, 2), dtype=np.int64)
            cpu = rng.integers(s.cpu_range[0], s.cpu_range[1] + 1, size=n).astype(float)
            bw = rng.integers(s.bw_range[0], s.bw_range[1] + 1, size=len(links)).astype(float)
            life = float(rng.exponential(s.lifetime_mean))
            out.append(VirtualNetwork(cpu, links, bw, arrival=t, lifetime=max(life, 1e-9), id=k))
        return out


@dataclass
class Embedding:
    """Node mapping ``nodes[i]`` = physical host of virtual node i; ``paths[k]`` = physical node path of link k."""

    nodes: list[int]
    paths: list[list[int]]

    def cost(self, vn: VirtualNetwork) -> float:
        """COST = sum CPU demands + sum over links of hops x bandwidth demand."""
        check_request(vn)
        if len(self.paths) != len(vn.links):
            raise ValueError(f"embedding routes {len(self.paths)} links for a VN of {len(vn.links)}")
        hops = np.array([len(p) - 1 for p in self.paths], dtype=float)
        return float(vn.cpu.sum() + (hops * vn.bw).sum())


def check_embedding(pn: PhysicalNetwork, vn: VirtualNetwork, emb: Embedding) -> tuple[np.ndarray, np.ndarray]:
    """Validate `emb` against the PN's available resources; return the (cpu, bw) it would consume.

    ValueError names the violation: non-injective node map, missing CPU or bandwidth, a path that is not
    connected or does not join the two hosts.
    """
    check_network(pn), check_request(vn)
    if not isinstance(emb, Embedding):
        raise TypeError(f"emb must be an Embedding, got {type(emb).__name__}")
    for v in emb.nodes:
        check_int("embedding node (a physical node index)", v)
    if len(emb.nodes) != vn.n:
        raise ValueError(f"embedding maps {len(emb.nodes)} nodes for a VN of {vn.n}")
    if len(set(emb.nodes)) != vn.n:
        raise ValueError("node mapping is not injective (two virtual nodes share a physical node)")
    if min(emb.nodes) < 0 or max(emb.nodes) >= pn.n:
        raise ValueError("node mapping refers to a physical node out of range")
    use_cpu = np.zeros(pn.n)
    use_cpu[np.asarray(emb.nodes)] += vn.cpu
    use_bw = np.zeros(pn.m)
    if len(emb.paths) != len(vn.links):
        raise ValueError(f"embedding routes {len(emb.paths)} links for a VN of {len(vn.links)}")
    for k, (i, j) in enumerate(vn.links):
        path = emb.paths[k]
        for v in path:
            check_int(f"path node of virtual link {k}", v)
        if len(path) < 2 or path[0] != emb.nodes[i] or path[-1] != emb.nodes[j]:
            raise ValueError(f"path of virtual link {k} does not join the hosts of its endpoints")
        if len(set(path)) != len(path):
            raise ValueError(f"path of virtual link {k} revisits a node")
        for e in pn.path_edges(path):
            use_bw[e] += vn.bw[k]
    if np.any(use_cpu > pn.cpu + 1e-9):
        raise ValueError("embedding exceeds the available CPU of a physical node")
    if np.any(use_bw > pn.bw + 1e-9):
        raise ValueError("embedding exceeds the available bandwidth of a physical link")
    return use_cpu, use_bw


class Solver(Protocol):
    """Anything with ``solve(pn, vn) -> Embedding | None`` that does not modify the PN."""

    def solve(self, pn: PhysicalNetwork, vn: VirtualNetwork) -> Embedding | None: ...


@dataclass
class RequestRecord:
    """What happened to one request."""

    id: int
    arrival: float
    lifetime: float
    n_nodes: int
    accepted: bool
    revenue: float
    cost: float
    solve_time: float


@dataclass
class SimulationResult:
    """Per-request records and the summary metrics of one online simulation."""

    records: list[RequestRecord]
    horizon: float
    metrics: dict[str, float] = field(default_factory=dict)


def summarize(records: Sequence[RequestRecord], horizon: float) -> dict[str, float]:
    """RAC, LRC, LAR, AST (and totals) from request records."""
    check_float("horizon", horizon, low=0.0)
    acc = [r for r in records if r.accepted]
    rev = sum(r.revenue for r in acc)
    cost = sum(r.cost for r in acc)
    return {
        "rac": len(acc) / max(len(records), 1),
        "lrc": rev / cost if cost > 0 else 0.0,
        "lar": sum(r.revenue * r.lifetime for r in acc) / horizon if horizon > 0 else 0.0,
        "ast": float(np.mean([r.solve_time for r in records])) if records else 0.0,
        "revenue": rev,
        "cost": cost,
        "accepted": float(len(acc)),
        "arrived": float(len(records)),
    }


class OnlineSimulator:
    """Event-driven online embedding: departures due before an arrival are released first, then the solver is
    asked for the arrival; a returned embedding is validated and reserved (a solver bug raises instead of
    over-allocating). After the last arrival every remaining VN departs, restoring the PN."""

    def __init__(
        self,
        pn: PhysicalNetwork,
        requests: Sequence[VirtualNetwork],
        solver: Solver,
        on_event: Callable[[str, VirtualNetwork, Embedding | None], None] | None = None,
    ) -> None:
        if not isinstance(pn, PhysicalNetwork):
            raise TypeError("pn must be a PhysicalNetwork")
        if not callable(getattr(solver, "solve", None)):
            raise TypeError("solver must have a solve(pn, vn) method")
        if on_event is not None and not callable(on_event):
            raise TypeError(f"on_event must be None or a callable, got {type(on_event).__name__}")
        if isinstance(requests, (str, bytes)) or not isinstance(requests, Sequence):
            raise TypeError(f"requests must be a sequence of VirtualNetwork, got {type(requests).__name__}")
        if not requests:
            raise ValueError("requests must hold at least one VirtualNetwork")
        for vn in requests:
            check_request(vn, "every request")
            if vn.n > pn.n:
                raise ValueError(f"VN {vn.id} has {vn.n} nodes, larger than the physical network ({pn.n})")
        times = [vn.arrival for vn in requests]
        if any(b < a for a, b in zip(times, times[1:])):
            raise ValueError("requests must be sorted by arrival time")
        if len({vn.id for vn in requests}) != len(requests):
            raise ValueError("requests must have distinct ids (VirtualNetwork.id)")
        self.pn, self.requests, self.solver, self.on_event = pn, list(requests), solver, on_event
        self.active: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def _release(self, vid: int) -> None:
        cpu, bw = self.active.pop(vid)
        self.pn.cpu += cpu
        self.pn.bw += bw

    def run(self) -> SimulationResult:
        """Simulate all requests on a freshly reset PN and return records plus metrics."""
        pn = self.pn
        pn.reset()
        departures: list[tuple[float, int]] = []
        by_id = {vn.id: vn for vn in self.requests}
        records = []
        for vn in self.requests:
            while departures and departures[0][0] <= vn.arrival:
                _, vid = heapq.heappop(departures)
                self._release(vid)
                if self.on_event:
                    self.on_event("departure", by_id[vid], None)
            t0 = time.perf_counter()
            emb = self.solver.solve(pn, vn)
            dt = time.perf_counter() - t0
            if emb is not None and not isinstance(emb, Embedding):
                raise TypeError(f"solver.solve must return an Embedding or None, got {type(emb).__name__}")
            accepted = emb is not None
            cost = 0.0
            if emb is not None:
                cpu, bw = check_embedding(pn, vn, emb)
                pn.cpu -= cpu
                pn.bw -= bw
                self.active[vn.id] = (cpu, bw)
                heapq.heappush(departures, (vn.arrival + vn.lifetime, vn.id))
                cost = emb.cost(vn)
            records.append(
                RequestRecord(
                    vn.id, vn.arrival, vn.lifetime, vn.n, accepted, vn.revenue if accepted else 0.0, cost, dt
                )
            )
            if self.on_event:
                self.on_event("arrival", vn, emb)
        horizon = self.requests[-1].arrival if self.requests else 0.0
        while departures:
            _, vid = heapq.heappop(departures)
            self._release(vid)
            if self.on_event:
                self.on_event("departure", by_id[vid], None)
        return SimulationResult(records, horizon, summarize(records, horizon))


def simulate(
    pn: PhysicalNetwork, requests: Sequence[VirtualNetwork], solver: Solver, **kw: Any
) -> dict[str, float]:
    """Shortcut: the metrics of one online simulation."""
    return OnlineSimulator(pn, requests, solver, **kw).run().metrics
