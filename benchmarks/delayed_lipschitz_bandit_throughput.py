"""Delayed Lipschitz bandits: rounds per second of every algorithm, side by side, same machine, same run.

Each algorithm plays T rounds (default 20,000) on trig1d and bimodal2d under uniform delay with mean 50
(conf_scale 0.1, delta = 1/T), through the library's runner (``run``: sampling, delivery queue and bookkeeping
included). Delayed Zooming rechecks the covering of its candidate grid only where a ball shrank (incremental
covering counts); the classical ``Zooming`` reference checks the whole grid against every ball after each
update, so it runs at a shorter horizon (``--reference-T``) and its line says so.

    python benchmarks/delayed_lipschitz_bandit_throughput.py [--T 20000] [--reference-T 1000] [--delay uniform50]
"""

import argparse
import time

from iclr26.decision.delayed_lipschitz_bandit import Zooming, make_env, run
from iclr26.decision.delayed_lipschitz_bandit.experiment import delay_model, make_algorithm

ALGORITHMS = {
    "dz": "Delayed Zooming (lazy)",
    "naive": "naive delayed zooming",
    "dlpp": "DLPP",
    "blin": "BLiN",
    "grid_ucb": "grid + Delayed-UCB1",
}


def timed(env, algo, delay, T: int) -> tuple[float, float, int]:
    t0 = time.perf_counter()
    out = run(env, algo, delay, T, seed=0)
    seconds = time.perf_counter() - t0
    return T / seconds, float(out["regret_curve"][-1]), int(out["n_active"][-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--T", type=int, default=20_000)
    parser.add_argument("--reference-T", type=int, default=1_000)
    parser.add_argument("--delay", default="uniform50")
    parser.add_argument("--conf-scale", type=float, default=0.1)
    args = parser.parse_args()
    delay = delay_model(args.delay)
    print(f"delay {args.delay} ({delay!r}), conf_scale {args.conf_scale}, seed 0")
    print(f"{'function':<11}{'algorithm':<36}{'T':>8}{'rounds/s':>11}{'regret':>10}{'active':>8}")
    for name in ("trig1d", "bimodal2d"):
        env = make_env(name, seed=0)
        for key, label in ALGORITHMS.items():
            algo = make_algorithm(key, env.dim, args.T, args.conf_scale, seed=0)
            rate, regret, active = timed(env, algo, delay, args.T)
            print(f"{name:<11}{label:<36}{args.T:>8}{rate:>11,.0f}{regret:>10.1f}{active:>8}")
        algo = Zooming(env.dim, args.reference_T, conf_scale=args.conf_scale)
        rate, regret, active = timed(env, algo, delay, args.reference_T)
        label = "classical Zooming (brute-force cover)"
        print(f"{name:<11}{label:<36}{args.reference_T:>8}{rate:>11,.0f}{regret:>10.1f}{active:>8}")


if __name__ == "__main__":
    main()
