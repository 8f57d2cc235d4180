"""The brief's claim check for PLMC: W2-vs-cost slopes above the noise floor, and a cost-matched W2 ratio.

Paper: "Poisson Midpoint Method for Log Concave Sampling: Beyond the Strong Error Lower Bounds" (arXiv
2506.07614): PLMC improves the eps-dependence of the W2 complexity cubically over LMC (overdamped eps^-2 ->
eps^-2/3, underdamped eps^-1 -> eps^-1/3), i.e. log W2 falls faster with log cost. The rule, per setting
(overdamped, underdamped):

* per seed, fit the OLS slope of log W2 on log cost over the step sizes whose W2 exceeds twice the noise floor;
  a method with fewer than 3 such points in some seed makes the slope part inconclusive;
* d = slope(LMC) - slope(PLMC) (> 0: PLMC steeper), 95% percentile-bootstrap interval of the mean over seeds:
  supported if mean d >= 0.5 and the interval lies above 0.25; not supported if the interval reaches 0;
  inconclusive otherwise;
* at the smallest cost-matched budget (nominal cost: LMC 1/h, PLMC 2/h), PLMC's W2 <= 0.5 x LMC's, judged on
  the 95% t-interval of the geometric-mean ratio over seeds (supported when its upper end is <= 0.5).

The claim is supported when all four parts are; not supported when a slope part is; inconclusive otherwise.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, PerSeed, Verdict
from iclr26.harness.stats import bootstrap_interval, t_interval

__all__ = ["SETTINGS", "matched_pair", "plmc_claim_decider", "usable_slope"]

SETTINGS: tuple[str, ...] = ("over", "under")
MIN_POINTS = 3


def usable_slope(
    cost: Sequence[float], w2: Sequence[float], floor: float, factor: float = 2.0
) -> tuple[float, int]:
    """OLS slope of log W2 on log cost over the points with W2 > factor * floor, and how many points that is.

    The slope is NaN with fewer than two usable points.

    Examples
    --------
    >>> slope, n = usable_slope([1.0, 2.0, 4.0, 8.0], [1.0, 0.5, 0.25, 0.01], floor=0.1)
    >>> round(slope, 6), n
    (-1.0, 3)
    """
    cost, w2 = np.asarray(cost, dtype=float), np.asarray(w2, dtype=float)
    keep = np.isfinite(w2) & (w2 > factor * floor) & (cost > 0)
    n = int(keep.sum())
    if n < 2:
        return float("nan"), n
    slope = np.polyfit(np.log(cost[keep]), np.log(w2[keep]), 1)[0]
    return float(slope), n


def matched_pair(step_sizes: Sequence[float]) -> tuple[float, float]:
    """(h_PLMC, h_LMC) at the smallest cost-matched budget: nominal costs 2/h_PLMC = 1/h_LMC, both on the grid."""
    grid = sorted(step_sizes, reverse=True)
    for h in grid:
        match = [g for g in grid if math.isclose(g, h / 2, rel_tol=1e-9)]
        if match:
            return h, match[0]
    raise ValueError(f"no cost-matched pair (h, h/2) in the step grid {list(step_sizes)}")


def _slope_part(
    rows: PerSeed, setting: str, level: float
) -> tuple[Outcome, str, float, tuple[float, float] | None]:
    n_min = min(min(row[f"n_usable_{setting}_{m}"] for m in ("lmc", "plmc")) for row in rows)
    if n_min < MIN_POINTS:
        return (
            Outcome.INCONCLUSIVE,
            f"a method has only {int(n_min)} point(s) above twice the noise floor",
            math.nan,
            None,
        )
    diff = np.array([row[f"slope_{setting}_lmc"] - row[f"slope_{setting}_plmc"] for row in rows], dtype=float)
    if not np.all(np.isfinite(diff)):
        return Outcome.INCONCLUSIVE, "slope difference not finite in some seed", math.nan, None
    iv = bootstrap_interval(diff, level)
    if not iv.defined:
        return (
            Outcome.INCONCLUSIVE,
            f"slope difference {iv.estimate:.3g} from one seed: no interval",
            iv.estimate,
            None,
        )
    tv = t_interval(diff, level)
    if iv.lo <= 0.0:
        outcome = Outcome.NOT_SUPPORTED
    elif iv.estimate >= 0.5 and iv.lo > 0.25:
        outcome = Outcome.SUPPORTED
    else:
        outcome = Outcome.INCONCLUSIVE
    text = (
        f"slope(LMC) - slope(PLMC) = {iv.estimate:.3g} [{iv.lo:.3g}, {iv.hi:.3g}] ({level:.0%} bootstrap, "
        f"{iv.n} seeds; t-interval [{tv.lo:.3g}, {tv.hi:.3g}]), needed >= 0.5 with the interval above 0.25"
    )
    return outcome, text, iv.estimate, (iv.lo, iv.hi)


def _ratio_part(rows: PerSeed, setting: str, level: float) -> tuple[Outcome, str]:
    ratio = np.array([row[f"w2_matched_{setting}_plmc"] / row[f"w2_matched_{setting}_lmc"] for row in rows])
    if not np.all(np.isfinite(ratio) & (ratio > 0)):
        return Outcome.INCONCLUSIVE, f"cost-matched W2 ratio not a finite positive number: {ratio.tolist()}"
    iv = t_interval(np.log(ratio), level)
    est = math.exp(iv.estimate)
    if not iv.defined:
        return Outcome.INCONCLUSIVE, f"cost-matched W2(PLMC)/W2(LMC) = {est:.3g} from one seed: no interval"
    outcome = Outcome.SUPPORTED if math.exp(iv.hi) <= 0.5 else Outcome.INCONCLUSIVE
    return outcome, (
        f"cost-matched W2(PLMC)/W2(LMC) = {est:.3g} [{math.exp(iv.lo):.3g}, {math.exp(iv.hi):.3g}] "
        f"({level:.0%} t on logs), needed <= 0.5"
    )


def plmc_claim_decider(level: float = 0.95) -> Decider:
    """The brief's rule over per-seed metrics ``slope_*``, ``n_usable_*`` and ``w2_matched_*`` (see the module)."""
    metrics = [
        f"{kind}_{s}_{m}"
        for s in SETTINGS
        for kind in ("slope", "n_usable", "w2_matched")
        for m in ("lmc", "plmc")
    ]

    def decide(rows: PerSeed) -> Verdict:
        parts, estimates = [], []
        for s in SETTINGS:
            slope_outcome, slope_text, estimate, interval = _slope_part(rows, s, level)
            ratio_outcome, ratio_text = _ratio_part(rows, s, level)
            parts += [
                (f"{s}damped slope", slope_outcome, slope_text),
                (f"{s}damped ratio", ratio_outcome, ratio_text),
            ]
            estimates.append((estimate, interval))
        outcomes = [p[1] for p in parts]
        slope_outcomes = [p[1] for p in parts if p[0].endswith("slope")]
        if Outcome.NOT_SUPPORTED in slope_outcomes:
            outcome = Outcome.NOT_SUPPORTED
        elif all(o is Outcome.SUPPORTED for o in outcomes):
            outcome = Outcome.SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        finite = [e for e in estimates if math.isfinite(e[0])]
        estimate, interval = min(finite, key=lambda e: e[0]) if finite else (None, None)
        text = "; ".join(f"{name}: {o.value} ({t})" for name, o, t in parts)
        return Verdict(outcome, text, estimate, interval, len(rows))

    return Decider(decide, metrics, "PLMC's W2-vs-cost slope steeper than LMC's by >= 0.5, both dynamics")
