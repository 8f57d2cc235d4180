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
interval lies below 0; (b): the interval lies below 1.75); INCONCLUSIVE otherwise. Whether the coupled dual
baseline matches L2FOB is reported in the explanation, not judged (the paper does not compare to it).
"""

from __future__ import annotations

import numpy as np

from iclr26.harness.claims import Decider, Outcome, PerSeed, Verdict, difference_at_least
from iclr26.harness.stats import bootstrap_interval, t_interval

__all__ = [
    "N_SWEEP",
    "ROI_FLOOR",
    "ROI_MEAN",
    "SLOPE_MAX",
    "ETA_GAP_MAX",
    "l2fob_claim",
    "regret_slope",
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


def _part_a(rows: PerSeed) -> Verdict:
    return difference_at_least("reward_l2fob", "reward_wang", margin=0.0, method="bootstrap")(rows)


def _part_b(rows: PerSeed) -> Verdict:
    roi = np.array([float(r["roi_l2fob"]) for r in rows])
    if not np.all(np.isfinite(roi)):
        return Verdict(Outcome.INCONCLUSIVE, f"roi_l2fob is not finite in some seeds: {roi.tolist()}")
    iv = t_interval(roi)
    text = f"roi_l2fob = {iv.estimate:.4g} [{iv.lo:.4g}, {iv.hi:.4g}] (95% t, {iv.n} seeds)"
    if not iv.defined:
        return Verdict(Outcome.INCONCLUSIVE, f"{text}; interval undefined", iv.estimate, None, iv.n)
    if iv.estimate >= ROI_MEAN and iv.lo >= ROI_FLOOR:
        outcome = Outcome.SUPPORTED
    elif iv.hi < ROI_MEAN:
        outcome = Outcome.NOT_SUPPORTED
    else:
        outcome = Outcome.INCONCLUSIVE
    return Verdict(
        outcome,
        f"{text}; needed mean >= {ROI_MEAN} and lower end >= {ROI_FLOOR}",
        iv.estimate,
        (iv.lo, iv.hi),
        iv.n,
    )


def _part_c(rows: PerSeed) -> Verdict:
    horizons = np.array([float(rows[0][f"sweep_T{i}"]) for i in range(N_SWEEP)])
    regrets = np.array([[float(r[f"sweep_norm_regret_l2fob_{i}"]) for i in range(N_SWEEP)] for r in rows])
    slope = regret_slope(horizons, regrets)
    lo, hi = _seed_bootstrap(lambda sample: regret_slope(horizons, sample), regrets)
    means = ", ".join(f"T={int(T)}: {m:.4g}" for T, m in zip(horizons, regrets.mean(axis=0)))
    outcome = Outcome.SUPPORTED if np.isfinite(slope) and slope <= SLOPE_MAX else Outcome.INCONCLUSIVE
    return Verdict(
        outcome,
        f"log-log slope of mean normalized regret = {slope:.3g} (seed bootstrap 95% [{lo:.3g}, {hi:.3g}]); "
        f"needed <= {SLOPE_MAX}; means {means}",
        slope,
        (lo, hi),
        len(rows),
    )


def _eta_gap(rewards: np.ndarray) -> float:
    """|mean R(60) - mean R(6)| / mean R(6) from columns (R(6), R(60))."""
    mean6, mean60 = rewards.mean(axis=0)
    return float(abs(mean60 - mean6) / mean6) if mean6 > 0 else float("nan")


def _part_d(rows: PerSeed) -> Verdict:
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


def _coupled_note(rows: PerSeed) -> str:
    diff = np.array([float(r["reward_coupled"]) - float(r["reward_l2fob"]) for r in rows])
    if diff.size < 2:
        return f"reward_coupled - reward_l2fob = {diff.tolist()}"
    iv = bootstrap_interval(diff)
    return f"reward_coupled - reward_l2fob = {iv.estimate:.4g} [{iv.lo:.4g}, {iv.hi:.4g}] (bootstrap 95%)"


def _judge(rows: PerSeed) -> Verdict:
    parts = [_part_a(rows), _part_b(rows), _part_c(rows), _part_d(rows)]
    a, b = parts[0].outcome, parts[1].outcome
    if Outcome.NOT_SUPPORTED in (a, b):
        outcome = Outcome.NOT_SUPPORTED
    elif all(p.outcome is Outcome.SUPPORTED for p in parts):
        outcome = Outcome.SUPPORTED
    else:
        outcome = Outcome.INCONCLUSIVE
    text = "; ".join(f"({'abcd'[i]}) {p.outcome.value}: {p.explanation}" for i, p in enumerate(parts))
    return Verdict(
        outcome,
        f"{text}. Secondary, not judged: {_coupled_note(rows)}",
        parts[0].estimate,
        parts[0].interval,
        len(rows),
    )


def l2fob_claim() -> Decider:
    """The brief's four-part rule as one :class:`Decider` (see the module docstring)."""
    metrics = [
        "reward_l2fob",
        "reward_wang",
        "roi_l2fob",
        *sweep_metrics("l2fob"),
        "reward_eta6",
        "reward_eta60",
        "reward_coupled",
    ]
    return Decider(
        _judge, metrics, "(a) L2FOB > Wang, (b) ROI ~ gamma, (c) regret slope <= -0.3, (d) eta 60 ~ 6"
    )
