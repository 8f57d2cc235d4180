"""L2FOB: rounds per second of the look-ahead bidder (per-round argmax over the bid grid) and of each baseline.

Every bidder plays the same first-price auction (v, d ~ U[0, 1], full feedback) in one process, one after
another, through ``run_bidder`` (environment step, bid, oracle and dual/queue update per round). Two budgets:
B = rho T (the experiment's; rounds after the hard stop are cheap, so the stop round is printed) and B = 2 T,
where the hard stop never triggers and every round runs the full argmax. Best of `--repeats`.

    python benchmarks/l2fob_throughput.py [--T 20000] [--n-grid 101] [--rho 0.01] [--repeats 3]
"""

import argparse
import time

import numpy as np
from scipy import stats

from iclr26.decision.l2fob import BanditWinRateOracle, RepeatedAuction, run_bidder
from iclr26.decision.l2fob.experiment import METHODS, L2fobConfig, make_bidder


def best_time(env: RepeatedAuction, make, repeats: int) -> tuple[float, int]:
    """Fastest wall time of `repeats` full runs of a fresh bidder, and that run's stop round."""
    best, stop = float("inf"), 0
    for _ in range(repeats):
        bidder = make()
        t0 = time.perf_counter()
        run = run_bidder(env, bidder, seed=0)
        best = min(best, time.perf_counter() - t0)
        stop = run.stop_round
    return best, stop


def cell(T: int, seconds: float) -> str:
    """Rounds per second and microseconds per round."""
    return f"{T / seconds:9.0f} ({1e6 * seconds / T:5.1f} us)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--T", type=int, default=20_000)
    parser.add_argument("--n-grid", type=int, default=101)
    parser.add_argument("--rho", type=float, default=0.01)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    T = args.T
    grid = np.linspace(0.0, 1.0, args.n_grid)
    full = RepeatedAuction(T, stats.uniform(), stats.uniform())
    partial = RepeatedAuction(T, stats.uniform(), stats.uniform(), feedback="partial")
    budgets = {
        "paced": L2fobConfig(rho=args.rho, n_grid=args.n_grid),
        "no stop": L2fobConfig(rho=2.0, n_grid=args.n_grid),
    }

    def rows(cfg: L2fobConfig) -> list:
        out = [(name, full, lambda name=name: make_bidder(name, cfg, T)) for name in METHODS]
        out.append(
            (
                "l2fob (partial, bandit oracle)",
                partial,
                lambda: make_bidder("l2fob", cfg, T, oracle=BanditWinRateOracle(grid, T)),
            )
        )
        return out

    print(f"T = {T}, grid of {args.n_grid} bids, best of {args.repeats}; rounds/s (us/round)")
    print(f"{'method':32s} {f'B = {args.rho:g} T':>22s} {'stop round':>10s} {'B = 2 T (no stop)':>22s}")
    for (name, env, paced), (_, _, unpaced) in zip(rows(budgets["paced"]), rows(budgets["no stop"])):
        t_paced, stop = best_time(env, paced, args.repeats)
        t_free, _ = best_time(env, unpaced, args.repeats)
        print(f"{name:32s} {cell(T, t_paced):>22s} {stop:10d} {cell(T, t_free):>22s}")


if __name__ == "__main__":
    main()
