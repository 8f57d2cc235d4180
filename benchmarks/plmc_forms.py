"""PLMC: wall time and gradient calls against plain Langevin at the fine step it stands in for (not a test).

One PLMC step of length h covers K fine steps of length h/K with about two gradient calls instead of K. The
alternative a user would run without it (no Langevin sampler library is installed here) is plain Langevin at the
fine step h/K for the same simulated time: overdamped, the unadjusted Langevin loop written out in the script
(``x <- x - delta grad F(x) + sqrt(2 delta) z``); underdamped, ULMC with the exponential integrator
(:func:`iclr26.optim.poisson_midpoint.ulmc`, one gradient call per step). Ours is ``plmc(..., form="jump")``, the
event-jump form the reproduction uses. Two targets: the quick budget's 1-D ``SeparableLogCosh`` (c = 2, h = 0.08;
its gradient is nearly free, so wall time measures the samplers' own overhead), and a synthetic Bayesian logistic
regression (1,000 data points, d = 10, h = 0.5 / L), whose gradient is a (chains x d) @ (d x 1000) product and
dominates.

Rows: the wall-time ratio (fine-step Langevin / PLMC, > 1: PLMC is faster) and the gradient-call ratio (K / PLMC's
measured calls per coarse step, beside the paper's "about 2 calls instead of K", i.e. K / 2). Wall time, NumPy,
one thread, interleaved (each repeat runs both in turn), median. Agreement: on the 1-D target, the W2 distance
between PLMC's and the fine-step chains' final samples, beside the same distance between two independent
fine-step runs (the sampling-noise level); PLMC and the fine chain approximate the same law at the same time.
The K-step loop form of PLMC (the reference, equal to the jump form under shared randomness; tested) is timed
too and printed.

    python benchmarks/plmc_forms.py [--chains 100000] [--K 8] [--steps 20] [--repeats 3] [--small] [--json PATH]
"""

import argparse
import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # NumPy's BLAS on one thread (before NumPy is imported)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from _bench import interleaved, median, row, write_result  # noqa: E402

from iclr26.optim.poisson_midpoint import BayesLogReg, SeparableLogCosh, plmc, ulmc  # noqa: E402
from iclr26.optim.poisson_midpoint.wasserstein import w2_empirical_1d  # noqa: E402


def plain_ula(grad, x0: np.ndarray, delta: float, n: int, rng: np.random.Generator) -> np.ndarray:
    """The unadjusted Langevin loop a user writes: x <- x - delta grad F(x) + sqrt(2 delta) z."""
    x = x0.copy()
    s = np.sqrt(2.0 * delta)
    for _ in range(n):
        x = x - delta * grad(x) + s * rng.standard_normal(x.shape)
    return x


def fine_step(overdamped: bool, grad, x0, delta: float, n: int, rng) -> np.ndarray:
    if overdamped:
        return plain_ula(grad, x0, delta, n, rng)
    return ulmc(grad, x0, delta, n, rng).samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chains", type=int, default=100_000)
    parser.add_argument("--K", type=int, default=8)
    parser.add_argument("--steps", type=int, default=20, help="coarse steps per timing")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--small", action="store_true", help="make bench setting: 20000 chains, 10 steps")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    if args.small:
        args.chains, args.steps = 20_000, 10
    K, steps = args.K, args.steps
    logcosh = SeparableLogCosh(d=1, c=2.0)
    logreg = BayesLogReg.synthetic(1000, 10, np.random.default_rng(0))
    targets = (
        ("1-D SeparableLogCosh (c = 2)", logcosh, 0.08, args.chains),
        ("Bayesian logistic regression, 1000 x 10", logreg, 0.5 / logreg.L, max(args.chains // 20, 500)),
    )
    rows, notes = [], []
    print(f"PLMC (jump form) vs Langevin at the fine step h/K, K = {K}, {steps} coarse steps, 1 thread")
    print(
        f"{'target':<40}{'dynamics':<12}{'chains':>8}{'PLMC ms':>10}{'fine ms':>10}{'loop ms':>10}"
        f"{'wall ratio':>11}{'calls/step':>11}"
    )
    for name, target, h, chains in targets:
        d = target.d if hasattr(target, "d") else 1
        x0 = np.zeros((chains, d))
        for overdamped in (True, False):
            dyn = "overdamped" if overdamped else "underdamped"
            calls: list[float] = []

            def ours(overdamped=overdamped, h=h, x0=x0, target=target, calls=calls):
                res = plmc(target.grad, x0, h, steps, np.random.default_rng(0), overdamped=overdamped, K=K)
                calls.append(float(res.grad_calls.mean()) / steps)

            def loop(overdamped=overdamped, h=h, x0=x0, target=target):
                plmc(
                    target.grad,
                    x0,
                    h,
                    steps,
                    np.random.default_rng(0),
                    overdamped=overdamped,
                    K=K,
                    form="loop",
                )

            def fine(overdamped=overdamped, h=h, x0=x0, target=target):
                fine_step(overdamped, target.grad, x0, h / K, K * steps, np.random.default_rng(1))

            t = interleaved({"plmc": ours, "fine": fine, "loop": loop}, args.repeats)
            p, f, lp = median(t["plmc"]), median(t["fine"]), median(t["loop"])
            per_step = float(np.mean(calls))
            print(
                f"{name:<40}{dyn:<12}{chains:>8}{1e3 * p:>10.1f}{1e3 * f:>10.1f}{1e3 * lp:>10.1f}"
                f"{f / p:>11.2f}{per_step:>11.2f}"
            )
            what = f"{name}, {dyn}, {chains} chains, h = {h:.3g}, K = {K}"
            alt = (
                "plain unadjusted Langevin loop at step h/K"
                if overdamped
                else "ULMC (exponential integrator) at step h/K"
            )
            rows.append(row("poisson-midpoint", f"{what}: wall time", "plmc, event-jump form", alt, f / p))
            rows.append(
                row(
                    "poisson-midpoint",
                    f"{what}: gradient calls per unit time",
                    "plmc, event-jump form",
                    alt,
                    K / per_step,
                    paper_value=f"K / 2 = {K / 2:g} (about 2 calls per step instead of K)",
                )
            )
            if target is logcosh:  # agreement: the same law at the same time
                rng = np.random.default_rng
                a = plmc(target.grad, x0, h, steps, rng(10), overdamped=overdamped, K=K).samples
                b = fine_step(overdamped, target.grad, x0, h / K, K * steps, rng(11))
                c = fine_step(overdamped, target.grad, x0, h / K, K * steps, rng(12))
                w_pf, w_ff = w2_empirical_1d(a, b), w2_empirical_1d(b, c)
                print(f"  W2(PLMC, fine) = {w_pf:.4f}; W2(fine, fine), two independent runs = {w_ff:.4f}")
                notes.append(
                    f"PLMC {dyn} on the 1-D target at T = {steps * h:g}: W2 between PLMC's and the fine-step "
                    f"chains' samples {w_pf:.4f}, between two independent fine-step runs {w_ff:.4f}."
                )
    write_result(
        args.json,
        {
            "script": "plmc_forms.py",
            "title": "PLMC against Langevin at the fine step h/K",
            "device": "cpu",
            "settings": {k: v for k, v in vars(args).items() if k != "json"},
            "rows": rows,
            "notes": notes,
        },
    )


if __name__ == "__main__":
    main()
