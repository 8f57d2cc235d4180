"""Claim checks of the NPE-LBF reproduction (OpenReview jsPQFNmnln): the brief's rules over harness seeds.

Main rule (:func:`beats_baselines_decider`), per task, on the paired held-out NLLs of LBF and of the better of
MDN and NSF (``<task>_best_baseline_nll``), with the 95% paired t-interval of the advantage
``best_baseline - LBF`` (the harness's three-way effect rule): a task favours LBF when the mean advantage is
>= 0.02 nats and the interval lies above 0, and favours the baselines when the whole interval lies below
0.02 nats. Supported when every task favours LBF, not supported when every task favours the baselines,
inconclusive otherwise (mixed or small effects).

Stability rule (:func:`stability_decider`): per task and per baseline, the across-seed variance of LBF's NLL
against the baseline's, with an exact interval for the ratio of the two variances of paired (correlated)
samples (Pitman-Morgan, :func:`variance_ratio_interval`). Supported when, on every task and against every
baseline, the 95% interval of the ratio lies below 1 (an intersection-union test: its level is that of each
part). Not supported when, in some comparison, the interval at the Bonferroni-adjusted level ``1 - 0.05 / k``
(k comparisons) lies above 1: LBF clearly varies more. Inconclusive otherwise. Identical methods are then
supported in at most 2.5% and refuted in at most 2.5% of replications.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Verdict, decider, effect_at_least

__all__ = [
    "LEVEL",
    "MARGIN",
    "beats_baselines_decider",
    "stability_decider",
    "variance_ratio_interval",
]

MARGIN = 0.02  # nats
LEVEL = 0.95

Rows = list[dict[str, float]]


def beats_baselines_decider(tasks: Sequence[str]) -> Decider:
    """The brief's supported / not supported / inconclusive rule over `tasks` (all must agree to conclude)."""
    parts = [
        effect_at_least(
            f"{t}_lbf_nll", f"{t}_best_baseline_nll", support_at=MARGIN, null=0.0, higher_is_better=False
        )
        for t in tasks
    ]

    def fn(rows: Sequence[Mapping[str, float]]) -> Verdict:
        verdicts = [p(rows) for p in parts]
        outcomes = {v.outcome for v in verdicts}
        if outcomes == {Outcome.SUPPORTED}:
            outcome = Outcome.SUPPORTED
        elif outcomes == {Outcome.NOT_SUPPORTED}:
            outcome = Outcome.NOT_SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        text = (
            "advantage = NLL(best of MDN, NSF) - NLL(LBF) in nats per task: "
            + "; ".join(f"{t} ({v.outcome.value}): {v.explanation}" for t, v in zip(tasks, verdicts))
            + ". Supported when every task is, not supported when every task is"
        )
        worst = min(verdicts, key=lambda v: v.estimate if v.estimate is not None else math.inf)
        return Verdict(outcome, text, worst.estimate, worst.interval, len(rows))

    synth = parts[0].synthesize
    for p in parts[1:]:
        synth = (lambda f, g: lambda rows: g(f(rows)))(synth, p.synthesize)
    return Decider(
        fn,
        [m for p in parts for m in p.metrics],
        f"NLL(LBF) - best baseline <= -{MARGIN} nats with interval < 0 on {tuple(tasks)}",
        compares=[c for p in parts for c in p.compares],
        synthesize=synth,
    )


def variance_ratio_interval(
    x: Sequence[float], y: Sequence[float], level: float = LEVEL
) -> tuple[float, float, float]:
    """``(F, lo, hi)``: the ratio ``F = var(x) / var(y)`` of two paired samples and its exact interval.

    Pitman-Morgan: under bivariate normality, ``x + sqrt(psi) y`` and ``x - sqrt(psi) y`` are uncorrelated exactly
    when ``var(x) / var(y) = psi``; inverting the t-test of that correlation (n - 2 degrees of freedom) gives
    ``psi = F (K +- sqrt(K^2 - 1))`` with ``K = 1 + 2 (1 - r^2) t^2 / (n - 2)``, r the sample correlation of x and
    y. Needs n >= 3 and var(y) > 0 (else the bounds are NaN).
    """
    from scipy import stats as sps

    xa, ya = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    n = xa.size
    if xa.shape != ya.shape or n < 3:
        return float("nan"), float("nan"), float("nan")
    vx, vy = float(np.var(xa, ddof=1)), float(np.var(ya, ddof=1))
    if vy <= 0:
        return float("nan"), float("nan"), float("nan")
    f = vx / vy
    r = float(np.corrcoef(xa, ya)[0, 1]) if vx > 0 else 0.0
    t = float(sps.t.ppf(0.5 + level / 2.0, df=n - 2))
    k = 1.0 + 2.0 * (1.0 - min(r * r, 1.0)) * t * t / (n - 2)
    spread = k + math.sqrt(max(k * k - 1.0, 0.0))
    return f, f / spread, f * spread


def stability_decider(tasks: Sequence[str], baselines: Sequence[str] = ("mdn", "nsf")) -> Decider:
    """Across-seed variance of LBF's NLL below every baseline's on every task (paired variance-ratio intervals)."""
    metrics = [f"{t}_{f}_nll" for t in tasks for f in ("lbf", *baselines)]
    pairs = [(t, b) for t in tasks for b in baselines]
    refute_level = 1.0 - (1.0 - LEVEL) / len(pairs)

    def win(rows: Rows) -> Rows:
        """LBF's NLL nearly constant over seeds (1% of the smallest baseline spread), baselines as they are."""
        out = [dict(r) for r in rows]
        for t in tasks:
            spread = min(float(np.std([float(r[f"{t}_{b}_nll"]) for r in rows])) for b in baselines)
            spread = spread if spread > 0 else 1e-3
            centre = float(np.mean([float(r[f"{t}_lbf_nll"]) for r in rows]))
            for i, r in enumerate(out):
                r[f"{t}_lbf_nll"] = centre + 0.01 * spread * ((i % 3) - 1)
        return out

    @decider(
        *metrics,
        description=f"across-seed NLL variance of LBF below every baseline's on {tuple(tasks)} (paired intervals)",
        min_seeds=3,
        compares=[(f"{t}_lbf_nll", f"{t}_{b}_nll", False) for t, b in pairs],
        synthesize=win,
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        def col(name: str) -> np.ndarray:
            return np.array([float(r[name]) for r in rows])

        below, above, parts, worst = [], [], [], 0.0
        for t, b in pairs:
            x, y = col(f"{t}_lbf_nll"), col(f"{t}_{b}_nll")
            f, lo, hi = variance_ratio_interval(x, y, LEVEL)
            _, lo_r, _ = variance_ratio_interval(x, y, refute_level)
            if not math.isfinite(f):
                return Verdict(
                    Outcome.INCONCLUSIVE,
                    f"{t}: {b}'s NLL does not vary over seeds; no variance ratio",
                    n_seeds=len(rows),
                )
            below.append(hi < 1.0)
            above.append(lo_r > 1.0)
            worst = max(worst, math.sqrt(f))
            parts.append(
                f"{t} vs {b}: sd(LBF)/sd({b}) = {math.sqrt(f):.3g} (95% [{math.sqrt(lo):.3g}, {math.sqrt(hi):.3g}])"
            )
        if all(below):
            outcome = Outcome.SUPPORTED
        elif any(above):
            outcome = Outcome.NOT_SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        text = (
            "; ".join(parts)
            + f" (paired Pitman-Morgan intervals, {len(rows)} seeds). Supported when every interval lies below 1; "
            f"refuted when one lies above 1 at the {refute_level:.2%} level ({len(pairs)} comparisons)"
        )
        return Verdict(outcome, text, worst, None, len(rows))

    return decide
