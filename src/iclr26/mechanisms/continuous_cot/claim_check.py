"""Claim checks of the continuous-thought superposition reproduction (arXiv 2509.23365), the brief's rule.

Per seed, from the index-matching logit mu(epoch) on held-out graphs (epoch 0 = initialisation):

* ``mu_rise`` = max of mu over the first half of training minus mu(0); needs >= 1.0 nat;
* ``mu_slope_ratio`` = |least-squares slope of mu over the last 30% of epochs| / peak slope (largest slope
  of a 3-epoch sliding fit earlier); bounded when <= 0.1, unbounded growth when > 0.5;
* ``loss_decreasing`` = 1 when the training loss still falls over the final curriculum stage.

Superposition: ``frontier_mass`` >= 0.6 and ``frontier_entropy`` >= 0.6 (thought steps 1-2, final epoch);
collapse when the entropy is < 0.3. A property holds when it holds in >= 2/3 of the seeds.
Accuracy: Coconut minus no-CoT accuracy, mean >= 0.05 with the 95% t-interval above 0.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Verdict, decider
from iclr26.harness.stats import t_interval

__all__ = [
    "ACC_GAP",
    "ENTROPY_COLLAPSE",
    "PLATEAU_RATIO",
    "RISE_NATS",
    "UNBOUNDED_RATIO",
    "accuracy_gap_decider",
    "bounded_mu_decider",
    "mu_plateau_stats",
    "superposition_decider",
]

RISE_NATS = 1.0
PLATEAU_RATIO = 0.1
UNBOUNDED_RATIO = 0.5
MASS_MIN = 0.6
ENTROPY_MIN = 0.6
ENTROPY_COLLAPSE = 0.3
ACC_GAP = 0.05
SEED_FRACTION = 2 / 3


def _slope(x: np.ndarray, y: np.ndarray) -> float:
    return float(np.polyfit(x, y, 1)[0]) if len(x) >= 2 else float("nan")


def mu_plateau_stats(mu: Sequence[float]) -> dict[str, float]:
    """``mu_rise``, ``late_slope``, ``peak_slope`` and ``mu_slope_ratio`` of one trajectory mu(0..E)."""
    y = np.asarray(mu, dtype=float)
    if y.ndim != 1 or len(y) < 2:
        raise ValueError(f"mu must be a 1-D trajectory with >= 2 points, got shape {y.shape}")
    e = len(y) - 1
    x = np.arange(len(y), dtype=float)
    rise = float(np.max(y[: e // 2 + 1]) - y[0]) if e >= 2 else float(np.max(y) - y[0])
    late_start = min(int(math.ceil(0.7 * e)), e - 1)
    late = _slope(x[late_start:], y[late_start:])
    windows = [_slope(x[i : i + 3], y[i : i + 3]) for i in range(0, max(late_start - 1, 0))]
    if not windows:
        windows = [_slope(x[: late_start + 1], y[: late_start + 1])]
    peak = float(np.nanmax(windows)) if np.any(np.isfinite(windows)) else float("nan")
    ratio = abs(late) / peak if peak > 0 else float("nan")
    return {"mu_rise": rise, "late_slope": late, "peak_slope": peak, "mu_slope_ratio": ratio}


def _col(rows: Sequence[Mapping[str, float]], key: str) -> np.ndarray:
    return np.array([float(r[key]) for r in rows])


def bounded_mu_decider() -> Decider:
    """(a) + (b): mu rises by >= 1 nat early and then plateaus while the loss falls, in >= 2/3 of seeds."""

    @decider("mu_rise", "mu_slope_ratio", "loss_decreasing", description="mu rises then stays bounded")
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        rise, ratio, dec = _col(rows, "mu_rise"), _col(rows, "mu_slope_ratio"), _col(rows, "loss_decreasing")
        n = len(rows)
        ok = (rise >= RISE_NATS) & (ratio <= PLATEAU_RATIO) & (dec > 0.5)
        unbounded = ratio > UNBOUNDED_RATIO
        text = (
            f"rise {np.round(rise, 2).tolist()} (need >= {RISE_NATS}), late/peak slope "
            f"{np.round(ratio, 3).tolist()} (need <= {PLATEAU_RATIO}; unbounded > {UNBOUNDED_RATIO}), loss "
            f"falling {dec.astype(int).tolist()}; {int(ok.sum())}/{n} seeds pass"
        )
        est = float(np.nanmedian(ratio)) if np.any(np.isfinite(ratio)) else None
        if n < 2:
            return Verdict(Outcome.INCONCLUSIVE, "needs >= 2 seeds; " + text, est, None, n)
        if unbounded.mean() >= SEED_FRACTION:
            return Verdict(Outcome.NOT_SUPPORTED, text, est, None, n)
        if ok.mean() >= SEED_FRACTION:
            return Verdict(Outcome.SUPPORTED, text, est, None, n)
        return Verdict(Outcome.INCONCLUSIVE, text, est, None, n)

    return decide


def superposition_decider() -> Decider:
    """(c): the thought puts >= 0.6 of its mass on the frontier, spread with normalised entropy >= 0.6."""

    @decider("frontier_mass", "frontier_entropy", description="thoughts hold the frontier in superposition")
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        mass, ent = _col(rows, "frontier_mass"), _col(rows, "frontier_entropy")
        n = len(rows)
        text = (
            f"frontier mass {np.round(mass, 3).tolist()} (need >= {MASS_MIN}), normalised entropy "
            f"{np.round(ent, 3).tolist()} (need >= {ENTROPY_MIN}; collapse < {ENTROPY_COLLAPSE})"
        )
        est = float(np.mean(ent))
        if n < 2 or not (np.all(np.isfinite(mass)) and np.all(np.isfinite(ent))):
            return Verdict(Outcome.INCONCLUSIVE, "needs >= 2 seeds with finite values; " + text, est, None, n)
        if (ent < ENTROPY_COLLAPSE).mean() >= SEED_FRACTION:
            return Verdict(Outcome.NOT_SUPPORTED, text, est, None, n)
        if ((mass >= MASS_MIN) & (ent >= ENTROPY_MIN)).mean() >= SEED_FRACTION:
            return Verdict(Outcome.SUPPORTED, text, est, None, n)
        return Verdict(Outcome.INCONCLUSIVE, text, est, None, n)

    return decide


def accuracy_gap_decider() -> Decider:
    """Coconut accuracy exceeds no-CoT accuracy by >= 5 points with the 95% t-interval above 0."""

    @decider("acc_gap", description=f"Coconut - no-CoT accuracy >= {ACC_GAP}")
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        gap = _col(rows, "acc_gap")
        if not np.all(np.isfinite(gap)):
            return Verdict(Outcome.INCONCLUSIVE, "non-finite accuracy gap", n_seeds=len(rows))
        iv = t_interval(gap)
        if not iv.defined:
            return Verdict(Outcome.INCONCLUSIVE, "intervals need >= 2 seeds", iv.estimate, None, iv.n)
        text = f"gap = {iv.estimate:.3f} [{iv.lo:.3f}, {iv.hi:.3f}] (95% t, {iv.n} seeds; need >= {ACC_GAP}, lo > 0)"
        if iv.estimate >= ACC_GAP and iv.lo > 0:
            outcome = Outcome.SUPPORTED
        elif iv.hi < ACC_GAP:
            outcome = Outcome.NOT_SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        return Verdict(outcome, text, iv.estimate, (iv.lo, iv.hi), iv.n)

    return decide
