"""Claim checks of the continuous-thought superposition reproduction (arXiv 2509.23365), the brief's rule.

Per seed, from the index-matching logit mu(epoch) on held-out graphs (epoch 0 = initialisation):

* ``mu_rise`` = ``mu_early_max - mu_init``: the max of mu over the first half of training minus mu(0); needs
  >= 1.0 nat (the decider computes it from the two raw metrics, so a run whose mu never left its initial value
  can be fed in as the "method");
* ``mu_slope_ratio`` = |least-squares slope of mu over the last 30% of epochs| / peak slope (largest slope
  of a 3-epoch sliding fit earlier); bounded when <= 0.1, unbounded growth when > 0.5;
* ``loss_decreasing`` = 1 when the training loss still falls over the final curriculum stage.

Superposition: ``frontier_mass`` >= 0.6 and ``frontier_entropy`` >= 0.6 (thought steps 1-2, final epoch);
collapse when the entropy is < 0.3. A property holds when it holds in >= 2/3 of the seeds.
Accuracy: Coconut minus no-CoT accuracy, mean >= 0.05 with the 95% t-interval above 0
(:func:`accuracy_gap_decider`, the harness's three-way effect rule; the brief gives this part no refutation).

The shared guards of :class:`~iclr26.harness.claims.Decider` (metrics present and finite, >= 2 seeds) run before
each rule; that Coconut learned the task is a precondition of the claims (see ``experiment.py``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Verdict, decider, effect_at_least
from iclr26.harness.claims import column as _col
from iclr26.harness.claims import seed_spread as _spread

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

Rows = list[dict[str, float]]


def _slope(x: np.ndarray, y: np.ndarray) -> float:
    return float(np.polyfit(x, y, 1)[0]) if len(x) >= 2 else float("nan")


def mu_plateau_stats(mu: Sequence[float]) -> dict[str, float]:
    """``mu_rise``, ``mu_early_max``, ``late_slope``, ``peak_slope`` and ``mu_slope_ratio`` of one trajectory
    mu(0..E)."""
    y = np.asarray(mu, dtype=float)
    if y.ndim != 1 or len(y) < 2:
        raise ValueError(f"mu must be a 1-D trajectory with >= 2 points, got shape {y.shape}")
    e = len(y) - 1
    x = np.arange(len(y), dtype=float)
    early_max = float(np.max(y[: e // 2 + 1])) if e >= 2 else float(np.max(y))
    rise = early_max - float(y[0])
    late_start = min(int(math.ceil(0.7 * e)), e - 1)
    late = _slope(x[late_start:], y[late_start:])
    windows = [_slope(x[i : i + 3], y[i : i + 3]) for i in range(0, max(late_start - 1, 0))]
    if not windows:
        windows = [_slope(x[: late_start + 1], y[: late_start + 1])]
    peak = float(np.nanmax(windows)) if np.any(np.isfinite(windows)) else float("nan")
    ratio = abs(late) / peak if peak > 0 else float("nan")
    return {
        "mu_rise": rise,
        "mu_early_max": early_max,
        "late_slope": late,
        "peak_slope": peak,
        "mu_slope_ratio": ratio,
    }


def _bounded_win(rows: Rows) -> Rows:
    return [
        {
            **r,
            "mu_early_max": float(r["mu_init"]) + 2.0 * RISE_NATS + _spread(i),
            "mu_slope_ratio": PLATEAU_RATIO / 4 + _spread(i),
            "loss_decreasing": 1.0,
        }
        for i, r in enumerate(rows)
    ]


def bounded_mu_decider() -> Decider:
    """(a) + (b): mu rises by >= 1 nat early and then plateaus while the loss falls, in >= 2/3 of seeds.

    Not supported when the late slope exceeds half the peak slope (unbounded growth) in >= 2/3 of seeds.
    """

    @decider(
        "mu_early_max",
        "mu_init",
        "mu_slope_ratio",
        "loss_decreasing",
        description="mu rises then stays bounded",
        compares=[("mu_early_max", "mu_init", True)],
        synthesize=_bounded_win,
        allow_nonfinite=("mu_slope_ratio",),  # NaN when mu never rose in any window (peak slope <= 0)
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        rise = _col(rows, "mu_early_max") - _col(rows, "mu_init")
        ratio, dec = _col(rows, "mu_slope_ratio"), _col(rows, "loss_decreasing")
        n = len(rows)
        with np.errstate(invalid="ignore"):  # a NaN ratio neither plateaus nor grows without bound
            ok = (rise >= RISE_NATS) & (ratio <= PLATEAU_RATIO) & (dec > 0.5)
            unbounded = ratio > UNBOUNDED_RATIO
        text = (
            f"rise {np.round(rise, 2).tolist()} (need >= {RISE_NATS}), late/peak slope "
            f"{np.round(ratio, 3).tolist()} (need <= {PLATEAU_RATIO}; unbounded > {UNBOUNDED_RATIO}), loss "
            f"falling {dec.astype(int).tolist()}; {int(ok.sum())}/{n} seeds pass"
        )
        est = float(np.nanmedian(ratio)) if np.any(np.isfinite(ratio)) else None
        if unbounded.mean() >= SEED_FRACTION:
            return Verdict(Outcome.NOT_SUPPORTED, text, est, None, n)
        if ok.mean() >= SEED_FRACTION:
            return Verdict(Outcome.SUPPORTED, text, est, None, n)
        return Verdict(Outcome.INCONCLUSIVE, text, est, None, n)

    return decide


def _superposition_win(rows: Rows) -> Rows:
    return [
        {**r, "frontier_mass": 0.9 + _spread(i), "frontier_entropy": 0.9 + _spread(i)}
        for i, r in enumerate(rows)
    ]


def superposition_decider() -> Decider:
    """(c): the thought puts >= 0.6 of its mass on the frontier, spread with normalised entropy >= 0.6, in
    >= 2/3 of seeds; not supported when the entropy is < 0.3 (collapse to one path) in >= 2/3 of seeds."""

    @decider(
        "frontier_mass",
        "frontier_entropy",
        description="thoughts hold the frontier in superposition",
        synthesize=_superposition_win,
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        mass, ent = _col(rows, "frontier_mass"), _col(rows, "frontier_entropy")
        n = len(rows)
        text = (
            f"frontier mass {np.round(mass, 3).tolist()} (need >= {MASS_MIN}), normalised entropy "
            f"{np.round(ent, 3).tolist()} (need >= {ENTROPY_MIN}; collapse < {ENTROPY_COLLAPSE})"
        )
        est = float(np.mean(ent))
        if (ent < ENTROPY_COLLAPSE).mean() >= SEED_FRACTION:
            return Verdict(Outcome.NOT_SUPPORTED, text, est, None, n)
        if ((mass >= MASS_MIN) & (ent >= ENTROPY_MIN)).mean() >= SEED_FRACTION:
            return Verdict(Outcome.SUPPORTED, text, est, None, n)
        return Verdict(Outcome.INCONCLUSIVE, text, est, None, n)

    return decide


def accuracy_gap_decider() -> Decider:
    """Coconut accuracy exceeds no-CoT accuracy by >= 5 points with the 95% t-interval above 0 (paired over
    seeds). The brief's NOT SUPPORTED conditions concern mu and the entropy only, so a shortfall here is
    inconclusive, never a refutation (``refute_below=-inf``)."""
    return effect_at_least(
        "acc_coconut", "acc_no_cot", support_at=ACC_GAP, null=0.0, refute_below=float("-inf")
    )
