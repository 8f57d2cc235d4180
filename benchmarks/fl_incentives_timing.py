"""PWYC-LP: covering-LP / MILP solve time against calling SciPy's HiGHS directly, and Monte Carlo throughput.

Instances: random-labeling (|X| = 30) and random-halfspace (20 x 20 grid), agent rows. Ours wraps SciPy's HiGHS
(``solve_allocation`` -> ``scipy.optimize.linprog(method="highs")``, ``integer_optimum`` ->
``scipy.optimize.milp``) with input checks and free-row filtering, so the user's alternative for the solves is the
same SciPy call made directly on the same rows: the ratio is the wrapper's overhead (about 1 is the honest
expectation; < 1 means the wrapper costs time), and the optimal costs must agree. MILP only for |H| <= 500.

Monte Carlo (``simulate_failures``: pooled samples S drawn as multinomial counts for a chunk of draws at once,
version spaces by one matrix product): the alternative a user writes without it is one draw at a time in a
Python loop (``rng.choice`` per agent, then the surviving hypotheses and the failing agents with numpy), run on
``--loop-draws`` draws; the ratio is draws per second. Agreement: the largest gap between the two failure rates,
beside its Clopper-Pearson half-widths (different random streams, so only statistical agreement is expected).

All timings are medians of ``--repeats`` interleaved rounds, one thread. ``--small`` (make bench): 3 repeats,
1,000 vectorised draws, 100 loop draws, the sizes up to |H| = 500.

    python benchmarks/fl_incentives_timing.py [--repeats 5] [--draws 5000] [--loop-draws 300] [--small]
        [--json PATH]
"""

import argparse

import numpy as np
from _bench import interleaved, median, row, write_result
from scipy.optimize import Bounds, LinearConstraint, linprog, milp
from threadpoolctl import threadpool_limits

from iclr26.decision.fl_incentives import (
    halfspace_instance,
    integer_optimum,
    lp_plan,
    random_labeling_instance,
    simulate_failures,
    solve_allocation,
)
from iclr26.decision.fl_incentives.sim import clopper_pearson


def scipy_lp(a: np.ndarray, c: np.ndarray, rhs: np.ndarray) -> float:
    """The covering LP min c.m, a.T m >= rhs, m >= 0, straight through SciPy's HiGHS."""
    res = linprog(c, A_ub=-a.T, b_ub=-rhs, bounds=(0, None), method="highs")
    return float(res.fun)


def scipy_milp(a: np.ndarray, c: np.ndarray, rhs: np.ndarray) -> float:
    res = milp(
        c, constraints=LinearConstraint(a.T, lb=rhs), integrality=np.ones(len(c)), bounds=Bounds(0, np.inf)
    )
    return float(res.fun)


def loop_failures(inst, m: np.ndarray, n_draws: int, rng: np.random.Generator) -> np.ndarray:
    """Failure counts per agent, one pooled sample S at a time (what a user writes without the batched form)."""
    failures = np.zeros(inst.k, dtype=np.int64)
    for _ in range(n_draws):
        seen = np.zeros(inst.n_points, dtype=bool)
        for j in np.flatnonzero(m > 0):
            seen[rng.choice(inst.n_points, size=int(m[j]), p=inst.D[j])] = True
        survive = ~inst.disagree[:, seen].any(axis=1)  # h consistent with h* on S
        failures += inst.bad[:, survive].any(axis=1)
    return failures


def bench_instance(kind: str, k: int, n_h: int, args: argparse.Namespace) -> list[dict]:
    """Rows for one instance (LP, MILP for |H| <= 500, Monte Carlo); prints its table line."""
    rows = []
    rng = np.random.default_rng(0)
    if kind == "labelings":
        inst = random_labeling_instance(k, rng, n_hypotheses=n_h)
    else:
        inst = halfspace_instance(k, rng, n_hypotheses=n_h, grid=20)
    a, rhs = inst.rows("agent")
    rhs = np.broadcast_to(np.asarray(rhs, dtype=float), (a.shape[1],))
    keep = rhs > 0
    a_k, rhs_k = a[:, keep], rhs[keep]
    label = f"{kind} k {k}, |H| {n_h}, |B| {inst.B.size}"
    fns = {
        "ours": lambda: solve_allocation(a, inst.c, rhs),
        "scipy": lambda: scipy_lp(a_k, inst.c, rhs_k),
    }
    t = interleaved(fns, args.repeats)
    lp_ours, lp_sp = median(t["ours"]), median(t["scipy"])
    gap = abs(solve_allocation(a, inst.c, rhs).cost - scipy_lp(a_k, inst.c, rhs_k))
    rows.append(
        row(
            "fl-incentives",
            f"covering LP, {label} (|cost gap| {gap:.1e})",
            "solve_allocation (wraps linprog HiGHS)",
            'scipy.optimize.linprog(method="highs") called directly',
            lp_sp / lp_ours,
        )
    )
    milp_txt = f"{'-':>9}{'-':>8}"
    if n_h <= 500:
        fns = {
            "ours": lambda: integer_optimum(a, inst.c, rhs),
            "scipy": lambda: scipy_milp(a_k, inst.c, rhs_k),
        }
        t = interleaved(fns, max(1, args.repeats - 2))
        mi_ours, mi_sp = median(t["ours"]), median(t["scipy"])
        gap = abs(integer_optimum(a, inst.c, rhs).cost - scipy_milp(a_k, inst.c, rhs_k))
        milp_txt = f"{1e3 * mi_ours:9.1f}{1e3 * mi_sp:8.1f}"
        rows.append(
            row(
                "fl-incentives",
                f"exact integer optimum, {label} (|cost gap| {gap:.1e})",
                "integer_optimum (wraps milp HiGHS)",
                "scipy.optimize.milp called directly",
                mi_sp / mi_ours,
            )
        )
    m = lp_plan(inst).m
    results = {}
    fns = {
        "ours": lambda: results.__setitem__("ours", simulate_failures(inst, m, args.draws, rng).failures),
        "loop": lambda: results.__setitem__("loop", loop_failures(inst, m, args.loop_draws, rng)),
    }
    t = interleaved(fns, max(1, args.repeats - 2))
    rate_ours, rate_loop = args.draws / median(t["ours"]), args.loop_draws / median(t["loop"])
    r_o, r_l = results["ours"] / args.draws, results["loop"] / args.loop_draws
    worst = int(np.argmax(np.abs(r_o - r_l)))
    lo, hi = clopper_pearson(results["loop"][worst], args.loop_draws)
    half = 0.5 * float(hi - lo)
    gap = float(abs(r_o[worst] - r_l[worst]))
    rows.append(
        row(
            "fl-incentives",
            f"Monte Carlo failure rates, {label}, draws per second (max rate gap {gap:.3f}, "
            f"loop CP half-width {half:.3f})",
            f"simulate_failures ({args.draws} draws, batched)",
            f"one draw at a time in a Python loop ({args.loop_draws} draws, rng.choice + numpy)",
            rate_ours / rate_loop,
        )
    )
    print(
        f"{kind:<11}{k:>4}{n_h:>6}{inst.B.size:>6}{1e3 * lp_ours:8.2f}{1e3 * lp_sp:8.2f}{milp_txt}"
        f"{rate_ours:12.0f}{rate_loop:8.0f}{gap:9.3f}{half:7.3f}"
    )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--draws", type=int, default=5000)
    parser.add_argument("--loop-draws", type=int, default=300)
    parser.add_argument(
        "--small", action="store_true", help="make bench setting: 3 repeats, 1000 / 100 draws, |H| <= 500"
    )
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    sizes = [
        ("labelings", 5, 50),
        ("labelings", 20, 50),
        ("labelings", 5, 500),
        ("labelings", 20, 2000),
        ("halfspaces", 5, 500),
        ("halfspaces", 20, 2000),
    ]
    if args.small:
        args.repeats, args.draws, args.loop_draws = 3, 1000, 100
        sizes = [s for s in sizes if s[2] <= 500]
    rows = []
    print(
        f"{'instance':<11}{'k':>4}{'|H|':>6}{'|B|':>6}{'LP ms':>8}{'scipy':>8}{'MILP ms':>9}{'scipy':>8}"
        f"{'MC draws/s':>12}{'loop':>8}{'rate gap':>9}{'CP +-':>7}"
    )
    with threadpool_limits(1):
        for kind, k, n_h in sizes:
            rows += bench_instance(kind, k, n_h, args)
    write_result(
        args.json,
        {
            "script": "fl_incentives_timing.py",
            "title": "PWYC-LP solves vs SciPy HiGHS directly; batched Monte Carlo vs a per-draw loop",
            "device": "cpu",
            "settings": {k: v for k, v in vars(args).items() if k != "json"},
            "rows": rows,
            "notes": [
                "fl-incentives: solve_allocation / integer_optimum call SciPy's HiGHS themselves, so their ratios "
                "measure the wrapper (checks, free-row filtering), not a different solver."
            ],
        },
    )


if __name__ == "__main__":
    main()
