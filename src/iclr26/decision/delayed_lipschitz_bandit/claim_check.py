"""The brief's claim check for "Lipschitz Bandits with Stochastic Delayed Feedback" (arXiv 2510.00309).

Three parts, each from per-seed regrets at T (one harness seed = one replication; every algorithm and delay of
a seed shares the environment's noise and the delay draws):

(a) delay costs an additive, modest amount: for each function, R_DZ(uniform 50) / R_DZ(none), the ratio of
    the mean regrets over seeds, is <= 1.5 with its 95% bootstrap interval's upper end <= 1.75;
(b) DLPP is robust to unbounded delay: R_DLPP(geometric 50) / R_DLPP(none) <= 1.3, upper end <= 1.5 (judged on
    every function of the run);
(c) regret is sublinear under delay: the mean over seeds of the fitted log-log slope of R_DZ(T) over the
    T-sweep is <= 0.8 with its 95% bootstrap interval's upper end <= 0.9.

A part is *supported* when both of its bounds hold, *not supported* when its interval lies entirely above the
interval bound (1.75, 1.5, 0.9), *inconclusive* otherwise; the parts are combined with
:func:`~iclr26.harness.claims.all_of` (supported when every part is, not supported when any part is).

Precondition, our addition to the brief (:func:`dlpp_learned`): in every seed DLPP's no-delay regret is at
most 0.75 x the regret of uniform random play (``dlpp_regret_vs_uniform_<f>``), else DLPP learned too little at
this horizon for its delay ratio to say anything and the claim is *not reproduced at this budget*. Not judged,
appended to the explanation: DLPP vs DelayedZooming in 2-D and lazy vs naive zooming (paired regret
differences), for whichever of those metrics the results hold.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from iclr26.harness.claims import (
    Decider,
    Outcome,
    PerSeed,
    Precondition,
    Rows,
    Verdict,
    all_of,
    combine_outcomes,
)
from iclr26.harness.claims import (
    column as _col,
)
from iclr26.harness.stats import Interval, bootstrap_interval, paired_difference

__all__ = [
    "DLPP_LEARNED",
    "delayed_bandit_decider",
    "dlpp_learned",
    "fit_slope",
    "ratio_of_means",
    "ratio_part",
    "slope_part",
]

RATIO_DZ = (1.5, 1.75)  # (bound on the estimate, bound on the interval's upper end)
RATIO_DLPP = (1.3, 1.5)
SLOPE = (0.8, 0.9)
_DZ = "R_DZ(uniform 50) / R_DZ(none)"
_DLPP = "R_DLPP(geometric 50) / R_DLPP(none)"
DLPP_LEARNED = 0.75  # precondition: R_DLPP(none) <= 0.75 x uniform-play regret, in every seed


def fit_slope(horizons: Sequence[float], regrets: Sequence[float]) -> float:
    """OLS slope of log R(T) on log T; NaN if some regret is not positive.

    Examples
    --------
    >>> round(fit_slope([1e3, 1e4, 1e5], [10.0, 31.6227766, 100.0]), 3)
    0.5
    """
    r = np.asarray(regrets, dtype=float)
    if r.size < 2 or np.any(~np.isfinite(r)) or np.any(r <= 0):
        return math.nan
    return float(np.polyfit(np.log(np.asarray(horizons, dtype=float)), np.log(r), 1)[0])


def ratio_of_means(num: Sequence[float], den: Sequence[float], level: float = 0.95) -> Interval:
    """mean(num) / mean(den) over paired seeds, with a percentile bootstrap interval resampling seeds.

    Examples
    --------
    >>> iv = ratio_of_means([2.0, 4.0, 6.0], [1.0, 2.0, 3.0])
    >>> iv.estimate, iv.lo, iv.hi
    (2.0, 2.0, 2.0)
    """
    a, b = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"num and den must pair up seed by seed, got {a.size} and {b.size} values")

    def stat(idx: np.ndarray) -> np.ndarray:  # idx: resampled seed indices, shape (n_boot, n)
        i = idx.astype(int)
        return a[i].mean(axis=-1) / b[i].mean(axis=-1)

    return bootstrap_interval(np.arange(a.size, dtype=float), level, statistic=stat)


def _part(iv: Interval, bounds: tuple[float, float], what: str) -> tuple[Outcome, str]:
    est_max, hi_max = bounds
    text = f"{what} = {iv.estimate:.3g} [{iv.lo:.3g}, {iv.hi:.3g}] (needed <= {est_max:g}, upper end <= {hi_max:g})"
    if not (math.isfinite(iv.estimate) and iv.defined):
        return Outcome.INCONCLUSIVE, text + ", interval undefined"
    if iv.estimate <= est_max and iv.hi <= hi_max:
        return Outcome.SUPPORTED, text
    if iv.lo > hi_max:
        return Outcome.NOT_SUPPORTED, text
    return Outcome.INCONCLUSIVE, text


def _secondary(rows: PerSeed, functions: Sequence[str], delays: Sequence[str]) -> str:
    """Paired differences reported beside the verdict, for whatever metrics the run has."""
    notes = []
    for f in functions:
        for label, a, b in (("DLPP - DZ", "dlpp", "dz"), ("lazy - naive", "dz", "naive")):
            if label == "DLPP - DZ" and not f.endswith("2d"):
                continue
            parts = []
            for d in delays:
                ka, kb = f"regret_{f}_{d}_{a}", f"regret_{f}_{d}_{b}"
                if len(rows) >= 2 and all(ka in r and kb in r for r in rows):
                    iv = paired_difference(_col(rows, ka), _col(rows, kb))
                    parts.append(f"{d} {iv.estimate:+.0f} [{iv.lo:+.0f}, {iv.hi:+.0f}]")
            if parts:
                notes.append(f"{label} regret on {f}: " + ", ".join(parts))
        names = [f"regret_{f}_{d}_dlpp_e2" for d in ("none", "geometric50")] + [f"uniform_regret_{f}"]
        if len(rows) >= 2 and all(n in r for n in names for r in rows):
            iv = ratio_of_means(_col(rows, names[1]), _col(rows, names[0]))
            learned = _col(rows, names[0]).mean() / _col(rows, names[2]).mean()
            notes.append(
                f"ablation DLPP eliminating at 2 r_m on {f}: R(geometric 50) / R(none) = {iv.estimate:.3g} "
                f"[{iv.lo:.3g}, {iv.hi:.3g}], R(none) / uniform-play regret = {learned:.3f}"
            )
    return "; ".join(notes)


def ratio_part(num: str, den: str, bounds: tuple[float, float], what: str) -> Decider:
    """Part (a) or (b): mean(num) / mean(den) over seeds is <= ``bounds[0]`` with the bootstrap interval's
    upper end <= ``bounds[1]``; not supported when the interval lies wholly above ``bounds[1]``."""

    def fn(rows: PerSeed) -> Verdict:
        iv = ratio_of_means(_col(rows, num), _col(rows, den))
        outcome, text = _part(iv, bounds, what)
        return Verdict(outcome, text, iv.estimate, (iv.lo, iv.hi) if iv.defined else None, iv.n)

    def synthesize(rows: Rows) -> Rows:  # delay costs a quarter of the allowed excess: a clear win
        factor = 1.0 + (bounds[0] - 1.0) / 4.0
        return [{**r, num: float(r[den]) * factor * (1.0 + 1e-3 * ((i % 3) - 1))} for i, r in enumerate(rows)]

    return Decider(fn, [num, den], f"{what} <= {bounds[0]:g}", synthesize=synthesize)


def slope_part(n_sweep: int, bounds: tuple[float, float] = SLOPE) -> Decider:
    """Part (c): the mean over seeds of the per-seed log-log slope of ``regret_sweep_<i>`` on
    ``sweep_horizon_<i>`` is <= ``bounds[0]``, its bootstrap interval's upper end <= ``bounds[1]``."""
    horizons = [f"sweep_horizon_{i}" for i in range(n_sweep)]
    regrets = [f"regret_sweep_{i}" for i in range(n_sweep)]

    def fn(rows: PerSeed) -> Verdict:
        slopes = np.array([fit_slope([r[h] for h in horizons], [r[g] for g in regrets]) for r in rows])
        if not np.all(np.isfinite(slopes)):
            return Verdict(Outcome.INCONCLUSIVE, f"slope undefined in some seed: {slopes.tolist()}")
        iv = bootstrap_interval(slopes)
        outcome, text = _part(iv, bounds, "log-log slope of R_DZ(T)")
        return Verdict(outcome, text, iv.estimate, (iv.lo, iv.hi) if iv.defined else None, iv.n)

    def synthesize(rows: Rows) -> Rows:  # R(T) = 3 sqrt(T): slope 0.5
        return [
            {**r, **{g: 3.0 * float(r[h]) ** 0.5 for h, g in zip(horizons, regrets, strict=True)}}
            for r in rows
        ]

    return Decider(fn, [*horizons, *regrets], "log-log slope of R_DZ(T) <= 0.8", synthesize=synthesize)


def dlpp_learned(functions: Sequence[str] = ("trig1d", "bimodal2d")) -> tuple[Precondition, ...]:
    """DLPP learned on each function: ``dlpp_regret_vs_uniform_<f>`` <= :data:`DLPP_LEARNED` in every seed."""
    return tuple(
        Precondition(
            f"dlpp_regret_vs_uniform_{f}",
            "<=",
            DLPP_LEARNED,
            f"DLPP learned on {f}: its no-delay regret is at most 0.75 x that of uniform random play (the "
            "trivial no-learning baseline, with a 25% margin); else its delay ratio is ~1 because it does not "
            "learn, not because it is robust",
        )
        for f in functions
    )


def delayed_bandit_decider(
    functions: Sequence[str] = ("trig1d", "bimodal2d"),
    n_sweep: int = 4,
    secondary_delays: Sequence[str] = ("none", "uniform50", "geometric50", "censored"),
) -> Decider:
    """The rule of the module docstring over metrics ``regret_<f>_<delay>_<algo>``, ``sweep_horizon_<i>`` and
    ``regret_sweep_<i>`` (i < n_sweep); returns a :class:`Decider`. Declare :func:`dlpp_learned` as the
    claim's preconditions."""
    named = [
        (f"(a) {f}", ratio_part(f"regret_{f}_uniform50_dz", f"regret_{f}_none_dz", RATIO_DZ, _DZ))
        for f in functions
    ]
    named += [
        (f"(b) {f}", ratio_part(f"regret_{f}_geometric50_dlpp", f"regret_{f}_none_dlpp", RATIO_DLPP, _DLPP))
        for f in functions
    ]
    named.append(("(c)", slope_part(n_sweep)))
    inner = all_of(*(part for _, part in named))  # the metrics, seeds and clear win of the conjunction

    def decide(rows: PerSeed) -> Verdict:
        verdicts = [(name, part(rows)) for name, part in named]
        outcome = combine_outcomes(v.outcome for _, v in verdicts)
        text = "; ".join(f"{name}: {v.outcome.value}: {v.explanation}" for name, v in verdicts)
        extra = _secondary(rows, functions, secondary_delays)
        if extra:
            text += f". Not judged: {extra}"
        first = verdicts[0][1]
        return Verdict(outcome, text, first.estimate, first.interval, len(rows))

    return inner.derive(decide, description="delay adds a modest amount; DLPP robust; R_DZ(T) sublinear")
