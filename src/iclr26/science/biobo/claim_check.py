"""Claim check of the BioBO reproduction (arXiv 2509.19988): labeling-efficiency gain over conventional BO.

Per seed: gain = 1 - L_BioBO(r*) / L_conv(r*), r* = the smaller final top-1% recall of the two, L(r) = labels at
the first cycle with recall >= r (gain = 0 if r* = 0). Supported: mean pathway-landscape gain >= 20% with a 95%
bootstrap interval lower end > 0, and mean control gain >= -10%. Not supported: mean gain <= 0 or mean control
gain < -25%. Inconclusive otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Verdict, decider
from iclr26.harness.stats import bootstrap_interval

__all__ = ["CONTROL_FAIL", "CONTROL_OK", "GAIN_BAR", "biobo_decider", "efficiency_gain", "labels_to_recall"]

GAIN_BAR = 0.20
CONTROL_OK = -0.10
CONTROL_FAIL = -0.25


def labels_to_recall(labels: Sequence[float], recall: Sequence[float], r: float) -> float:
    """Labels at the first cycle whose recall reaches r (NaN if never)."""
    lab, rec = np.asarray(labels, dtype=float), np.asarray(recall, dtype=float)
    if lab.shape != rec.shape or lab.ndim != 1:
        raise ValueError(f"labels and recall must be 1-D of the same length, got {lab.shape} and {rec.shape}")
    hit = np.flatnonzero(rec >= r - 1e-12)
    return float(lab[hit[0]]) if hit.size else float("nan")


def efficiency_gain(labels: Sequence[float], recall_a: Sequence[float], recall_b: Sequence[float]) -> float:
    """1 - L_a(r*) / L_b(r*) with r* = min of the final recalls (0 if r* = 0): a's label saving over b."""
    r_star = min(float(recall_a[-1]), float(recall_b[-1]))
    if r_star <= 0:
        return 0.0
    return 1.0 - labels_to_recall(labels, recall_a, r_star) / labels_to_recall(labels, recall_b, r_star)


def biobo_decider(gain: str = "pathway_gain", control: str = "control_gain") -> Decider:
    """The brief's rule on the per-seed `gain` (pathway landscape) and `control` (no-signal landscape) metrics."""

    @decider(
        gain,
        control,
        description=f"mean gain >= {GAIN_BAR:.0%} (bootstrap lo > 0) and control gain >= {CONTROL_OK:.0%}",
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        g = np.array([float(r[gain]) for r in rows])
        c = np.array([float(r[control]) for r in rows])
        if not (np.all(np.isfinite(g)) and np.all(np.isfinite(c))):
            return Verdict(Outcome.INCONCLUSIVE, "non-finite gains in some seeds", n_seeds=len(rows))
        iv = bootstrap_interval(g)
        if not iv.defined:
            return Verdict(Outcome.INCONCLUSIVE, "intervals need >= 2 seeds", iv.estimate, None, iv.n)
        cm = float(c.mean())
        if iv.estimate <= 0 or cm < CONTROL_FAIL:
            outcome = Outcome.NOT_SUPPORTED
        elif iv.estimate >= GAIN_BAR and iv.lo > 0 and cm >= CONTROL_OK:
            outcome = Outcome.SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        text = (
            f"label-efficiency gain = {iv.estimate:.3g} [{iv.lo:.3g}, {iv.hi:.3g}] (95% bootstrap, {iv.n} seeds; "
            f"need >= {GAIN_BAR} and lo > 0); control gain = {cm:.3g} (need >= {CONTROL_OK}, fails < {CONTROL_FAIL})"
        )
        return Verdict(outcome, text, iv.estimate, (iv.lo, iv.hi), iv.n)

    return decide
