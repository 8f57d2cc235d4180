"""L2FOB: rounds per second of the look-ahead bidder against the pacing bidders a user would run instead.

No library implements budget- and ROI-constrained bidding for repeated first-price auctions; the user's
alternatives are the published dual-pacing bidders (numpy, in ``iclr26.decision.l2fob.baselines``): Wang et al.'s
budget-only dual pacing (the paper's main baseline) and coupled budget + ROI dual pacing (Balseiro, Lu and
Mirrokni's style). Every bidder plays the same first-price auction (v, d ~ U[0, 1]) in one process through
``run_bidder`` (environment step, bid, oracle and dual/queue update per round), all on the same empirical-CDF
oracle over the same bid grid, so the ratio is the price of L2FOB's per-round look-ahead argmax (< 1 means
L2FOB is slower). Two budgets: B = rho T (the experiment's; rounds after the hard stop are cheap, so the stop
round is printed) and B = 2 T, where the hard stop never triggers and every round runs the full argmax.
Times are medians of ``--repeats`` interleaved runs; the table prints every method of the reproduction.
``--small`` (make bench): T 2000, 3 repeats.

    python benchmarks/l2fob_throughput.py [--T 20000] [--n-grid 101] [--rho 0.01] [--repeats 3] [--small]
        [--json PATH]
"""

import argparse

import numpy as np
from _bench import interleaved, median, row, write_result
from scipy import stats

from iclr26.decision.l2fob import BanditWinRateOracle, RepeatedAuction, run_bidder
from iclr26.decision.l2fob.experiment import METHODS, L2fobConfig, make_bidder


def timed(env: RepeatedAuction, make, repeats: int) -> tuple[list[float], int]:
    """Wall times of `repeats` full runs of a fresh bidder (one per round of ``interleaved``), and a stop round."""
    stop = [0]

    def go() -> None:
        stop[0] = run_bidder(env, make(), seed=0).stop_round

    return interleaved({"x": go}, repeats, warmup=0)["x"], stop[0]


def cell(T: int, seconds: float) -> str:
    """Rounds per second and microseconds per round."""
    return f"{T / seconds:9.0f} ({1e6 * seconds / T:5.1f} us)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--T", type=int, default=20_000)
    parser.add_argument("--n-grid", type=int, default=101)
    parser.add_argument("--rho", type=float, default=0.01)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--small", action="store_true", help="make bench setting: T 2000, 3 repeats")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    if args.small:
        args.T, args.repeats = 2000, 3
    T = args.T
    grid = np.linspace(0.0, 1.0, args.n_grid)
    full = RepeatedAuction(T, stats.uniform(), stats.uniform())
    partial = RepeatedAuction(T, stats.uniform(), stats.uniform(), feedback="partial")
    budgets = {
        f"B = {args.rho:g} T": L2fobConfig(rho=args.rho, n_grid=args.n_grid),
        "B = 2 T (no stop)": L2fobConfig(rho=2.0, n_grid=args.n_grid),
    }
    rows = []
    print(f"T = {T}, grid of {args.n_grid} bids, median of {args.repeats}; rounds/s (us/round)")
    for budget, cfg in budgets.items():
        # the headline comparison, interleaved: L2FOB vs the two dual-pacing bidders
        runs = {name: (lambda name=name, cfg=cfg: run_bidder(full, make_bidder(name, cfg, T), seed=0))
                for name in ("l2fob", "wang", "coupled")}  # fmt: skip
        med = {k: median(v) for k, v in interleaved(runs, args.repeats).items()}
        for alt, alt_txt in (
            ("wang", "Wang et al. budget dual pacing (the paper's main baseline), same oracle and grid"),
            (
                "coupled",
                "coupled budget + ROI dual pacing (Balseiro-Lu-Mirrokni style), same oracle and grid",
            ),
        ):
            rows.append(
                row(
                    "l2fob",
                    f"rounds/s, first-price auction, T {T}, {args.n_grid}-bid grid, {budget}",
                    "L2FOB (look-ahead argmax, full feedback)",
                    alt_txt,
                    med[alt] / med["l2fob"],
                )
            )
        print(
            f"{budget}: l2fob {cell(T, med['l2fob'])}, wang {cell(T, med['wang'])}, coupled {cell(T, med['coupled'])}"
        )
    print(f"{'method':32s} {f'B = {args.rho:g} T':>22s} {'stop round':>10s} {'B = 2 T (no stop)':>22s}")
    paced, unpaced = budgets.values()
    methods = [(name, full, {}) for name in METHODS]
    methods.append(("l2fob (partial, bandit oracle)", partial, {"oracle": True}))
    for name, env, extra in methods:
        key = "l2fob" if extra else name

        def make(cfg, key=key, extra=extra):
            if extra:
                return lambda: make_bidder(key, cfg, T, oracle=BanditWinRateOracle(grid, T))
            return lambda: make_bidder(key, cfg, T)

        t_paced, stop = timed(env, make(paced), args.repeats)
        t_free, _ = timed(env, make(unpaced), args.repeats)
        print(f"{name:32s} {cell(T, median(t_paced)):>22s} {stop:10d} {cell(T, median(t_free)):>22s}")
    write_result(
        args.json,
        {
            "script": "l2fob_throughput.py",
            "title": "L2FOB per-round cost vs the dual-pacing bidders",
            "device": "cpu",
            "settings": {k: v for k, v in vars(args).items() if k != "json"},
            "rows": rows,
            "notes": [
                "l2fob: no library implements these bidders; the alternatives are the published dual-pacing "
                "rules, implemented in numpy next to L2FOB on the same oracle."
            ],
        },
    )


if __name__ == "__main__":
    main()
