"""The brief's claim check for PLMC: W2-vs-cost slopes above the noise floor, and a cost-matched W2 ratio.

Paper: "Poisson Midpoint Method for Log Concave Sampling: Beyond the Strong Error Lower Bounds" (arXiv
2506.07614): PLMC improves the eps-dependence of the W2 complexity cubically over LMC (overdamped eps^-2 ->
eps^-2/3, underdamped eps^-1 -> eps^-1/3), i.e. log W2 falls faster with log cost. The rule, per setting
(overdamped, underdamped):

* per seed, fit the OLS slope of log W2 on log cost over the step sizes whose W2 exceeds twice the noise floor;
  a method with fewer than 3 such points in some seed makes the setting inconclusive (a sanity part: the slope
  is not measurable above the floor, which is no evidence either way);
* d = slope(LMC) - slope(PLMC) (> 0: PLMC steeper), 95% percentile-bootstrap interval of the mean over seeds
  supported if mean d >= 0.5 and the interval lies above 0.25; not supported if the interval reaches 0 and lies
  wholly below the claimed 0.5 (it excludes the claimed effect size); inconclusive otherwise. (Before, an
  interval that reached 0 refuted even when it also held 0.5.)
* at the smallest cost-matched budget (nominal cost: LMC 1/h, PLMC 2/h), PLMC's W2 <= 0.5 x LMC's, judged on
  the 95% t-interval of the geometric-mean ratio over seeds (supported when its upper end is <= 0.5; this part
  never refutes).

The claim is supported when all four parts are; not supported when a slope part is; inconclusive otherwise
(:func:`~iclr26.harness.claims.all_of` per setting, then over the two settings).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from iclr26.harness.claims import (
    Decider,
    Outcome,
    PerSeed,
    Verdict,
    all_of,
    decider,
    fraction_of_seeds,
)
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


def _slope_part(setting: str, level: float) -> Decider:
    plmc, lmc = f"slope_{setting}_plmc", f"slope_{setting}_lmc"

    def win(rows: list[dict[str, float]]) -> list[dict[str, float]]:
        out = []
        for i, r in enumerate(rows):
            base = float(r[lmc]) if math.isfinite(float(r[lmc])) else -0.5
            out.append({**r, lmc: base, plmc: base - 1.0 - 1e-3 * (i % 3)})
        return out

    @decider(
        plmc,
        lmc,
        description=f"{setting}damped slope(LMC) - slope(PLMC) >= 0.5",
        compares=[(plmc, lmc, False)],
        synthesize=win,
        allow_nonfinite=(plmc, lmc),
    )
    def slope(rows: PerSeed) -> Verdict:
        diff = np.array([float(row[lmc]) - float(row[plmc]) for row in rows])
        if not np.all(np.isfinite(diff)):
            return Verdict(Outcome.INCONCLUSIVE, "slope difference not finite in some seed")
        iv = bootstrap_interval(diff, level)
        if iv.estimate >= 0.5 and iv.lo > 0.25:
            outcome = Outcome.SUPPORTED
        elif iv.lo <= 0.0 and iv.hi < 0.5:
            outcome = Outcome.NOT_SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        text = (
            f"slope(LMC) - slope(PLMC) = {iv.estimate:.3g} [{iv.lo:.3g}, {iv.hi:.3g}] ({level:.0%} bootstrap, "
            f"{iv.n} seeds), needed >= 0.5 with the interval above 0.25; refuted when the interval reaches 0 and "
            "lies below 0.5"
        )
        return Verdict(outcome, text, iv.estimate, (iv.lo, iv.hi), iv.n)

    return slope


def _ratio_part(setting: str, level: float) -> Decider:
    plmc, lmc = f"w2_matched_{setting}_plmc", f"w2_matched_{setting}_lmc"

    def win(rows: list[dict[str, float]]) -> list[dict[str, float]]:
        out = []
        for i, r in enumerate(rows):
            base = float(r[lmc]) if math.isfinite(float(r[lmc])) and float(r[lmc]) > 0 else 0.1
            out.append({**r, lmc: base, plmc: base * 0.1 * (1.0 + 1e-3 * (i % 3))})
        return out

    @decider(
        plmc,
        lmc,
        description=f"{setting}damped cost-matched W2(PLMC)/W2(LMC) <= 0.5",
        compares=[(plmc, lmc, False)],
        synthesize=win,
        allow_nonfinite=(plmc, lmc),
    )
    def ratio(rows: PerSeed) -> Verdict:
        r = np.array([float(row[plmc]) / float(row[lmc]) for row in rows])
        if not np.all(np.isfinite(r) & (r > 0)):
            return Verdict(
                Outcome.INCONCLUSIVE, f"cost-matched W2 ratio not a finite positive number: {r.tolist()}"
            )
        iv = t_interval(np.log(r), level)
        est = math.exp(iv.estimate)
        outcome = Outcome.SUPPORTED if math.exp(iv.hi) <= 0.5 else Outcome.INCONCLUSIVE
        return Verdict(
            outcome,
            f"cost-matched W2(PLMC)/W2(LMC) = {est:.3g} [{math.exp(iv.lo):.3g}, {math.exp(iv.hi):.3g}] "
            f"({level:.0%} t on logs), needed <= 0.5",
            est,
            (math.exp(iv.lo), math.exp(iv.hi)),
            iv.n,
        )

    return ratio


def _setting(setting: str, level: float) -> Decider:
    usable = [
        fraction_of_seeds(f"n_usable_{setting}_{m}", ">=", MIN_POINTS, support_at=1.0)
        for m in ("lmc", "plmc")
    ]
    return all_of(_slope_part(setting, level), _ratio_part(setting, level), sanity=usable)


def plmc_claim_decider(level: float = 0.95) -> Decider:
    """The brief's rule over per-seed metrics ``slope_*``, ``n_usable_*`` and ``w2_matched_*`` (see the module)."""
    return all_of(*(_setting(s, level) for s in SETTINGS))
