"""The brief's decision rules for the segregation claims, on raw per-method metrics.

``positive-pathway-object`` (part a) is the conjunction (:func:`~iclr26.harness.claims.all_of`) of

* (i) on average over seeds, >= 3/4 of the ReLU models have a paired-bootstrap 95% interval of (positive -
  negative pathway mask share) above 0 (:func:`models_significant`, the one rule here that is not a harness
  helper: a mean fraction without an interval); not supported below 3/4;
* (ii) the ReLU models' mean mask-share difference exceeds the random-sign-split difference (paired t-interval
  over seeds above 0; not supported when it lies below 0);
* (iii) removing all positive inputs changes the visualisation's readout features more than removing all
  negative inputs: cos(intact, minus-negative) - cos(intact, minus-positive) at alpha = 1, paired t-interval above
  0 (not supported when below 0).

``tanh-removes-segregation`` (part b): the per-seed shrink ``1 - diff_tanh / diff_relu`` of the mask-share
difference in the tanh model against the ReLU model of the same width and epochs; supported when its 95%
t-interval lies above 0.5, not supported when it lies below 0.5, inconclusive otherwise (and when the ReLU
difference is not positive in some seed, where the shrink is undefined).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Verdict, all_of, decider, difference_at_least
from iclr26.harness.stats import t_interval

__all__ = [
    "FRAC_NEEDED",
    "SHRINK_NEEDED",
    "VIZ_ALPHA",
    "models_significant",
    "segregation_decider",
    "tanh_shrink_decider",
]

FRAC_NEEDED = 0.75
SHRINK_NEEDED = 0.5
VIZ_ALPHA = "1"  # the visualisation comparison uses alpha = 1 (the whole sign removed)
COS_NEG, COS_POS = f"cos_minus_neg_{VIZ_ALPHA}", f"cos_minus_pos_{VIZ_ALPHA}"

Rows = list[dict[str, float]]


def _all_significant(rows: Rows) -> Rows:
    return [{**r, "frac_models_sig": 1.0} for r in rows]


@decider(
    "frac_models_sig",
    description=f"mean fraction of ReLU models with bootstrap CI > 0 >= {FRAC_NEEDED}",
    synthesize=_all_significant,
)
def models_significant(rows: Sequence[Mapping[str, float]]) -> Verdict:
    """(i): supported when the mean over seeds of the fraction of significant ReLU models is >= 3/4, else not."""
    frac = np.array([float(r["frac_models_sig"]) for r in rows])
    f = float(frac.mean())
    outcome = Outcome.SUPPORTED if f >= FRAC_NEEDED else Outcome.NOT_SUPPORTED
    return Verdict(
        outcome,
        f"fraction of ReLU models with CI > 0 = {f:.2f} (mean over seeds; need >= {FRAC_NEEDED})",
        f,
        None,
        len(rows),
    )


segregation_decider: Decider = all_of(
    difference_at_least("mask_diff_relu", "mask_diff_random", margin=0.0),
    models_significant,
    difference_at_least(COS_NEG, COS_POS, margin=0.0),
)


def _shrunk(rows: Rows) -> Rows:
    out = []
    for i, r in enumerate(rows):
        relu = float(r["mask_diff_relu_match"])
        relu = relu if relu > 0 else 0.05
        out.append({**r, "mask_diff_relu_match": relu, "mask_diff_tanh": relu * (0.1 + 1e-3 * (i % 3))})
    return out


@decider(
    "mask_diff_tanh",
    "mask_diff_relu_match",
    description=f"tanh shrinks the mask-share difference by >= {SHRINK_NEEDED:.0%}",
    compares=[("mask_diff_tanh", "mask_diff_relu_match", False)],
    synthesize=_shrunk,
)
def tanh_shrink_decider(rows: Sequence[Mapping[str, float]]) -> Verdict:
    """(b): per seed ``shrink = 1 - mask_diff_tanh / mask_diff_relu_match``; supported when the 95% t-interval of
    its mean lies above 0.5, not supported when below, inconclusive otherwise or when a ReLU difference is <= 0."""
    tanh = np.array([float(r["mask_diff_tanh"]) for r in rows])
    relu = np.array([float(r["mask_diff_relu_match"]) for r in rows])
    if np.any(relu <= 0):
        return Verdict(
            Outcome.INCONCLUSIVE,
            f"the ReLU model shows no positive mask-share difference in some seed ({np.round(relu, 4).tolist()}), "
            "so there is nothing to shrink",
            n_seeds=len(rows),
        )
    shrink = 1.0 - tanh / relu
    iv = t_interval(shrink)
    if not iv.defined:
        outcome = Outcome.INCONCLUSIVE
    elif iv.lo > SHRINK_NEEDED:
        outcome = Outcome.SUPPORTED
    elif iv.hi < SHRINK_NEEDED:
        outcome = Outcome.NOT_SUPPORTED
    else:
        outcome = Outcome.INCONCLUSIVE
    return Verdict(
        outcome,
        f"tanh shrink 1 - diff_tanh / diff_relu = {iv.estimate:.4g} [{iv.lo:.4g}, {iv.hi:.4g}] (95% t, {iv.n} "
        f"seeds); claimed > {SHRINK_NEEDED}",
        iv.estimate,
        (iv.lo, iv.hi) if iv.defined else None,
        iv.n,
    )
