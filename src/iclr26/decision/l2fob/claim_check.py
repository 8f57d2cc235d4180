"""The brief's claim check for L2FOB (ICLR 2026, OpenReview AtbRCnvcrZ), judged over harness seeds.

The paper (first price, T = 10^4, B = 100, gamma = 1.8): L2FOB earns more than Wang et al. (2023), its ROI
tracks the 1.8 target, its regret is O~(sqrt T), and eta_gam = 60 behaves almost exactly like eta_gam = 6. The
rule:

* (a) mean paired difference reward(L2FOB) - reward(Wang-2023) > 0, 95% percentile-bootstrap interval above 0;
* (b) L2FOB's final ROI: mean >= 1.75 and the lower end of its 95% t-interval >= 1.70;
* (c) the normalized regret (T nu* - R) / T, averaged over seeds at each T of the sweep, has an OLS log-log
  slope in T <= -0.3 (point estimate; a seed-bootstrap interval is reported, not judged);
* (d) |mean R(eta_gam = 60) - mean R(eta_gam = 6)| / mean R(eta_gam = 6) <= 5% (point estimate; interval
  reported).

SUPPORTED when all four hold; NOT SUPPORTED when (a) or (b) fails with its interval on the wrong side ((a): the
interval lies below 0; (b): the interval lies below 1.75); INCONCLUSIVE otherwise. (c) and (d) are judged on
point estimates, so they can only be supported or inconclusive, and the four parts combine with
:func:`~iclr26.harness.claims.all_of`. Whether the coupled dual baseline matches L2FOB is reported in the
explanation, not judged (the paper does not compare to it). No part rests on a pre-trained model (every
bidder learns online within the run), so there are no preconditions.
"""

from __future__ import annotations

import numpy as np

from iclr26.harness.claims import (
    Decider,
    Outcome,
    PerSeed,
    Rows,
    Verdict,
    all_of,
    decider,
    difference_at_least,
    effect_at_least,
)
from iclr26.harness.stats import bootstrap_interval

__all__ = [
    "N_SWEEP",
    "ROI_FLOOR",
    "ROI_MEAN",
    "SLOPE_MAX",
    "ETA_GAP_MAX",
    "eta_part",
    "l2fob_claim",
    "regret_slope",
    "roi_part",
    "slope_part",
    "sweep_metrics",
]

N_SWEEP = 5  # points of the horizon sweep in every budget
ROI_MEAN, ROI_FLOOR = 1.75, 1.70
SLOPE_MAX = -0.3
ETA_GAP_MAX = 0.05


def sweep_metrics(method: str = "l2fob") -> list[str]:
    """Names of the sweep's horizons and of `method`'s normalized regrets, point by point."""
    return [f"sweep_T{i}" for i in range(N_SWEEP)] + [
        f"sweep_norm_regret_{method}_{i}" for i in range(N_SWEEP)
    ]


def regret_slope(horizons: np.ndarray, norm_regret: np.ndarray) -> float:
    """OLS slope of log(mean normalized regret) on log T; NaN when a mean is not positive.

    `norm_regret` is (n_seeds, n_points); the mean is taken over seeds first.

    Examples
    --------
    >>> import numpy as np
    >>> T = np.array([1e3, 4e3, 1.6e4])
    >>> round(regret_slope(T, np.array([[1.0, 0.5, 0.25]])), 6)
    -0.5
    """
    mean = np.asarray(norm_regret, dtype=float).mean(axis=0)
    if np.any(mean <= 0) or not np.all(np.isfinite(mean)):
        return float("nan")
    return float(np.polyfit(np.log(horizons), np.log(mean), 1)[0])


def _seed_bootstrap(stat, columns: np.ndarray, n_boot: int = 2000, seed: int = 0) -> tuple[float, float]:
    """95% percentile interval of stat(rows) over seeds resampled with replacement (NaN when n < 2)."""
    n = columns.shape[0]
    if n < 2:
        return float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    boots = np.array([stat(columns[rng.integers(0, n, n)]) for _ in range(n_boot)])
    boots = boots[np.isfinite(boots)]
    if boots.size == 0:
        return float("nan"), float("nan")
    lo, hi = np.quantile(boots, [0.025, 0.975])
    return float(lo), float(hi)


def roi_part() -> Decider:
    """(b): the t-interval of L2FOB's final ROI: supported at mean >= 1.75 with the lower end above 1.70, not
    supported when the whole interval lies below 1.75."""
    return effect_at_least("roi_l2fob", support_at=ROI_MEAN, null=ROI_FLOOR, refute_below=ROI_MEAN)


def slope_part() -> Decider:
    """(c): the log-log slope of L2FOB's mean normalized regret over the sweep is <= -0.3 (point estimate)."""
    names = sweep_metrics("l2fob")
    horizons_m, regrets_m = names[:N_SWEEP], names[N_SWEEP:]

    def synthesize(rows: Rows) -> Rows:  # normalized regret 10 / sqrt(T): slope -0.5
        return [
            {**r, **{g: 10.0 * float(r[h]) ** -0.5 for h, g in zip(horizons_m, regrets_m, strict=True)}}
            for r in rows
        ]

    @decider(*names, description=f"regret slope <= {SLOPE_MAX}", synthesize=synthesize)
    def fn(rows: PerSeed) -> Verdict:
        horizons = np.array([float(rows[0][h]) for h in horizons_m])
        regrets = np.array([[float(r[g]) for g in regrets_m] for r in rows])
        slope = regret_slope(horizons, regrets)
        lo, hi = _seed_bootstrap(lambda sample: regret_slope(horizons, sample), regrets)
        means = ", ".join(f"T={int(T)}: {m:.4g}" for T, m in zip(horizons, regrets.mean(axis=0), strict=True))
        outcome = Outcome.SUPPORTED if np.isfinite(slope) and slope <= SLOPE_MAX else Outcome.INCONCLUSIVE
        return Verdict(
            outcome,
            f"log-log slope of mean normalized regret = {slope:.3g} (seed bootstrap 95% [{lo:.3g}, {hi:.3g}]); "
            f"needed <= {SLOPE_MAX}; means {means}",
            slope,
            (lo, hi),
            len(rows),
        )

    return fn


def _eta_gap(rewards: np.ndarray) -> float:
    """|mean R(60) - mean R(6)| / mean R(6) from columns (R(6), R(60))."""
    mean6, mean60 = rewards.mean(axis=0)
    return float(abs(mean60 - mean6) / mean6) if mean6 > 0 else float("nan")


def eta_part() -> Decider:
    """(d): |mean R(eta_gam = 60) - mean R(eta_gam = 6)| / mean R(eta_gam = 6) <= 5% (point estimate)."""

    def synthesize(rows: Rows) -> Rows:  # eta 60 earns 1% more than eta 6 (a positive reward)
        out = []
        for r in rows:
            six = float(r["reward_eta6"]) if float(r["reward_eta6"]) > 0 else 100.0
            out.append({**r, "reward_eta6": six, "reward_eta60": 1.01 * six})
        return out

    @decider("reward_eta6", "reward_eta60", description="eta 60 ~ eta 6", synthesize=synthesize)
    def fn(rows: PerSeed) -> Verdict:
        rewards = np.array([[float(r["reward_eta6"]), float(r["reward_eta60"])] for r in rows])
        gap = _eta_gap(rewards)
        lo, hi = _seed_bootstrap(_eta_gap, rewards)
        outcome = Outcome.SUPPORTED if np.isfinite(gap) and gap <= ETA_GAP_MAX else Outcome.INCONCLUSIVE
        return Verdict(
            outcome,
            f"|R(eta=60) - R(eta=6)| / R(eta=6) = {gap:.3g} (seed bootstrap 95% [{lo:.3g}, {hi:.3g}]); "
            f"needed <= {ETA_GAP_MAX}",
            gap,
            (lo, hi),
            len(rows),
        )

    return fn


def _coupled_note(rows: PerSeed) -> str:
    diff = np.array([float(r["reward_coupled"]) - float(r["reward_l2fob"]) for r in rows])
    if diff.size < 2:
        return f"reward_coupled - reward_l2fob = {diff.tolist()}"
    iv = bootstrap_interval(diff)
    return f"reward_coupled - reward_l2fob = {iv.estimate:.4g} [{iv.lo:.4g}, {iv.hi:.4g}] (bootstrap 95%)"


def l2fob_claim() -> Decider:
    """The brief's four-part rule as one :class:`Decider` (see the module docstring)."""
    parts = all_of(
        difference_at_least("reward_l2fob", "reward_wang", margin=0.0, method="bootstrap"),
        roi_part(),
        slope_part(),
        eta_part(),
    )

    def judge(rows: PerSeed) -> Verdict:
        v = parts(rows)
        text = f"{v.explanation}. Secondary, not judged: {_coupled_note(rows)}"
        return Verdict(v.outcome, text, v.estimate, v.interval, v.n_seeds)

    return Decider(
        judge,
        [*parts.metrics, "reward_coupled"],
        "(a) L2FOB > Wang, (b) ROI ~ gamma, (c) regret slope <= -0.3, (d) eta 60 ~ 6",
        min_seeds=parts.min_seeds,
        compares=parts.compares,
        synthesize=parts.synthesize,
    )
