"""Virne: feasible-path routing and online-simulator throughput against networkx, the library a user would route with.

The physical network is WX100 (Waxman, 100 nodes); link mapping is the fewest-hop path in the subgraph of links
whose available bandwidth covers the demand. Ours (``bfs_path``) builds that subgraph as a scipy sparse matrix
and runs ``scipy.sparse.csgraph.breadth_first_order``; the user's alternative is networkx, in which the
simulator keeps its topology: ``nx.shortest_path`` on ``nx.subgraph_view`` of the feasible links. Rows (median
of ``--repeats`` interleaved rounds, one thread):

* routing alone: ``--queries`` random (src, dst, demand) queries on a randomly depleted bandwidth vector;
  agreement: the share of queries where both find a path of the same hop count (or both none);
* the whole online simulation of ``--requests`` VN requests (eta = 0.14) with NRM-Rank node mapping, once with
  each router; requests per second; agreement: both runs' acceptance ratios (RAC; equal-length ties may be
  broken differently, so the runs may diverge slightly).

The printed table also gives every solver's requests per second with the default router (Random-, NRM-,
GRC-Rank, an untrained PPO-GCN policy as a cost-per-step proxy, and NRM-Rank with the paper's 10-shortest-paths
router, itself networkx ``shortest_simple_paths``). ``--small`` (make bench): 200 requests, 300 queries,
3 repeats.

    python benchmarks/virne_simulator_throughput.py [--requests 1000] [--queries 1000] [--repeats 3]
        [--threads 1] [--small] [--json PATH]
"""

from __future__ import annotations

import argparse
import time

import networkx as nx
import numpy as np
import torch
from _bench import interleaved, median, row, write_result

from iclr26.decision.virne import (
    GCNPolicy,
    GRCRank,
    NRMRank,
    PPOSolver,
    RandomRank,
    VNRequestGenerator,
    VNSettings,
    bfs_path,
    make_router,
    normalized_adjacency,
    simulate,
    waxman_network,
)


def networkx_path(pn, src: int, dst: int, demand: float, bw: np.ndarray) -> list[int] | None:
    """The fewest-hop feasible path as a user writes it with networkx: a filtered view, then shortest_path."""
    if src == dst:
        return [src]
    view = nx.subgraph_view(pn.graph, filter_edge=lambda u, v: bw[pn.edge_index[u, v]] >= demand)
    try:
        return [int(v) for v in nx.shortest_path(view, src, dst)]
    except nx.NetworkXNoPath:
        return None


def main() -> None:
    """Time the routers and each solver on the same requests; print a table, write the rows."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=1000)
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--small", action="store_true", help="make bench setting: 200 requests, 300 queries")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    if args.small:
        args.requests, args.queries, args.repeats = 200, 300, 3
    torch.set_num_threads(args.threads)
    pn = waxman_network(100, seed=0)
    reqs = VNRequestGenerator(1, VNSettings(num_requests=args.requests, eta=0.14)).generate(pn.n)
    rows = []

    # routing alone, on a depleted bandwidth vector
    rng = np.random.default_rng(0)
    bw = pn.bw_max * rng.uniform(0.0, 1.0, pn.m)
    queries = [
        (int(rng.integers(pn.n)), int(rng.integers(pn.n)), float(rng.uniform(0, 50)))
        for _ in range(args.queries)
    ]
    routers = {"bfs_path": bfs_path, "networkx": networkx_path}
    found: dict[str, list] = {}

    def batch(name: str):
        def go() -> None:
            found[name] = [routers[name](pn, s, d, dem, bw) for s, d, dem in queries]

        return go

    t = interleaved({name: batch(name) for name in routers}, args.repeats)
    ours, alt = median(t["bfs_path"]), median(t["networkx"])
    same = np.mean(
        [(a is None and b is None) or (a is not None and b is not None and len(a) == len(b))
         for a, b in zip(found["bfs_path"], found["networkx"])]
    )  # fmt: skip
    routed = np.mean([p is not None for p in found["bfs_path"]])
    print(
        f"routing {args.queries} queries: bfs_path {1e6 * ours / args.queries:.0f} us/query, networkx "
        f"{1e6 * alt / args.queries:.0f} us/query ({alt / ours:.2f}x); same hop count {same:.1%}, "
        f"routed {routed:.1%}"
    )
    rows.append(
        row(
            "virne",
            f"fewest-hop feasible path on WX100, {args.queries} queries (same hop count {same:.1%})",
            "bfs_path (scipy csgraph BFS on the feasible links)",
            "networkx shortest_path on subgraph_view of the feasible links",
            alt / ours,
        )
    )

    # the whole online simulation with NRM-Rank, each router
    sims: dict[str, dict] = {}

    def sim(name: str):
        def go() -> None:
            sims[name] = simulate(pn, reqs, NRMRank(router=routers[name]))

        return go

    t = interleaved({name: sim(name) for name in routers}, args.repeats)
    ours, alt = median(t["bfs_path"]), median(t["networkx"])
    rac_o, rac_a = sims["bfs_path"]["rac"], sims["networkx"]["rac"]
    print(
        f"NRM-Rank simulation, {args.requests} requests: bfs_path {args.requests / ours:.0f} req/s, networkx "
        f"{args.requests / alt:.0f} req/s ({alt / ours:.2f}x); RAC {rac_o:.3f} vs {rac_a:.3f}"
    )
    rows.append(
        row(
            "virne",
            f"online simulation, WX100, {args.requests} requests, NRM-Rank, requests/s "
            f"(RAC {rac_o:.3f} vs {rac_a:.3f})",
            "simulator with bfs_path",
            "the same simulator routing with networkx shortest_path",
            alt / ours,
        )
    )

    torch.manual_seed(0)
    solvers = {
        "random_rank": RandomRank(0),
        "nrm_rank": NRMRank(),
        "grc_rank": GRCRank(),
        "ppo_gcn_untrained": PPOSolver(GCNPolicy(normalized_adjacency(pn)), pn),
        "nrm_rank_ksp10": NRMRank(router=make_router("ksp", 10)),
    }
    for name, solver in solvers.items():
        w0, c0 = time.perf_counter(), time.process_time()
        m = simulate(pn, reqs, solver)
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        print(
            f"{name:>20s}  {wall:7.2f} s wall  {cpu:7.2f} s cpu  {args.requests / cpu:8.1f} req/s (cpu)  "
            f"RAC {m['rac']:.3f}"
        )
    write_result(
        args.json,
        {
            "script": "virne_simulator_throughput.py",
            "title": "Virne routing and simulation vs networkx",
            "device": "cpu",
            "settings": {k: v for k, v in vars(args).items() if k != "json"},
            "rows": rows,
            "notes": [],
        },
    )


if __name__ == "__main__":
    main()
