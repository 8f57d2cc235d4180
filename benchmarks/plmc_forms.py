"""PLMC: event-jump form vs the K-step loop (the reference), same run, same machine.

Reports milliseconds per coarse step for each form, the speed ratio, and gradient calls per step, for
overdamped and underdamped dynamics on the 1-D SeparableLogCosh target of the quick budget.

    python benchmarks/plmc_forms.py [--chains 100000] [--K 8] [--steps 20]
"""

import argparse
import time

import numpy as np

from iclr26.optim.poisson_midpoint import SeparableLogCosh, plmc


def per_step_ms(form: str, overdamped: bool, chains: int, K: int, steps: int) -> tuple[float, float]:
    target = SeparableLogCosh(d=1, c=2.0)
    x0 = np.zeros((chains, 1))
    t0 = time.perf_counter()
    _, calls = plmc(
        target.grad, x0, 0.08, steps, np.random.default_rng(0), overdamped=overdamped, K=K, form=form
    )
    return 1e3 * (time.perf_counter() - t0) / steps, float(calls.mean() / steps)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chains", type=int, default=100_000)
    parser.add_argument("--K", type=int, default=8)
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args()
    print(f"PLMC, {args.chains} chains, K={args.K}, {args.steps} coarse steps per timing")
    print(f"{'dynamics':<12}{'loop ms/step':>14}{'jump ms/step':>14}{'speedup':>9}{'grad calls/step':>17}")
    for overdamped in (True, False):
        loop, _ = per_step_ms("loop", overdamped, args.chains, args.K, args.steps)
        jump, calls = per_step_ms("jump", overdamped, args.chains, args.K, args.steps)
        name = "overdamped" if overdamped else "underdamped"
        print(f"{name:<12}{loop:>14.2f}{jump:>14.2f}{loop / jump:>8.2f}x{calls:>17.3f}")


if __name__ == "__main__":
    main()
