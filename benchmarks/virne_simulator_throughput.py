"""Benchmark: Virne online-simulator throughput (requests per second) with the default BFS router.

Runs one 1,000-VN online simulation on WX100 (eta = 0.14) per solver (Random-, NRM-, GRC-Rank, and an untrained
PPO-GCN policy as a cost-per-step proxy) and reports requests per second of wall time and of process CPU time
(the machine is shared, so CPU time is the steadier number), plus the k-shortest-paths router for NRM-Rank.

Run: ``python benchmarks/virne_simulator_throughput.py [--requests 1000] [--threads 1]``.
"""

from __future__ import annotations

import argparse
import json
import time

import torch

from iclr26.decision.virne import (
    GCNPolicy,
    GRCRank,
    NRMRank,
    PPOSolver,
    RandomRank,
    VNRequestGenerator,
    VNSettings,
    make_router,
    normalized_adjacency,
    simulate,
    waxman_network,
)


def main() -> None:
    """Time each solver on the same requests and print a table plus JSON."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=1000)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    pn = waxman_network(100, seed=0)
    reqs = VNRequestGenerator(1, VNSettings(num_requests=args.requests, eta=0.14)).generate(pn.n)
    torch.manual_seed(0)
    solvers = {
        "random_rank": RandomRank(0),
        "nrm_rank": NRMRank(),
        "grc_rank": GRCRank(),
        "ppo_gcn_untrained": PPOSolver(GCNPolicy(normalized_adjacency(pn)), pn),
        "nrm_rank_ksp10": NRMRank(router=make_router("ksp", 10)),
    }
    rows = []
    for name, solver in solvers.items():
        w0, c0 = time.perf_counter(), time.process_time()
        m = simulate(pn, reqs, solver)
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        rows.append(
            {
                "solver": name,
                "requests": args.requests,
                "wall_s": wall,
                "cpu_s": cpu,
                "req_per_s_wall": args.requests / wall,
                "req_per_s_cpu": args.requests / cpu,
                "rac": m["rac"],
            }
        )
        print(
            f"{name:>20s}  {wall:7.2f} s wall  {cpu:7.2f} s cpu  {args.requests / cpu:8.1f} req/s (cpu)  RAC {m['rac']:.3f}"
        )
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
