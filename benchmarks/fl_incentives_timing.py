"""PWYC-LP: covering-LP solve time vs instance size, and Monte Carlo throughput (not a test).

LP: HiGHS (`linprog(method="highs")`) on the per-agent rows of random-labeling instances (|X| = 30) and of
random-halfspace instances (20 x 20 grid), median over repeats; MILP: the exact integer optimum on the same rows
for the small sizes. Monte Carlo: pooled samples S per second for the rounded LP allocation.

    python benchmarks/fl_incentives_timing.py [--repeats 5] [--draws 5000]
"""

import argparse
import time

import numpy as np

from iclr26.decision.fl_incentives import (
    halfspace_instance,
    integer_optimum,
    lp_plan,
    random_labeling_instance,
    simulate_failures,
    solve_allocation,
)


def median_ms(fn, repeats: int, *args) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t0)
    return 1e3 * float(np.median(times))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--draws", type=int, default=5000)
    args = parser.parse_args()
    sizes = [
        ("labelings", 5, 50),
        ("labelings", 20, 50),
        ("labelings", 5, 500),
        ("labelings", 20, 2000),
        ("halfspaces", 5, 500),
        ("halfspaces", 20, 2000),
    ]
    print(f"{'instance':<11}{'k':>4}{'|H|':>6}{'|B|':>6}{'LP ms':>9}{'MILP ms':>10}{'MC draws/s':>13}")
    for kind, k, n_h in sizes:
        rng = np.random.default_rng(0)
        if kind == "labelings":
            inst = random_labeling_instance(k, rng, n_hypotheses=n_h)
        else:
            inst = halfspace_instance(k, rng, n_hypotheses=n_h, grid=20)
        a, rhs = inst.rows("agent")
        lp_ms = median_ms(solve_allocation, args.repeats, a, inst.c, rhs)
        milp = f"{median_ms(integer_optimum, 1, a, inst.c, rhs):10.1f}" if n_h <= 500 else f"{'-':>10}"
        m = lp_plan(inst).m
        t0 = time.perf_counter()
        simulate_failures(inst, m, args.draws, rng)
        rate = args.draws / (time.perf_counter() - t0)
        print(f"{kind:<11}{k:>4}{n_h:>6}{inst.B.size:>6}{lp_ms:>9.2f}{milp}{rate:>13.0f}")


if __name__ == "__main__":
    main()
