"""The brief's decision rule for the segregation claim (part a)."""

from __future__ import annotations

import numpy as np

from iclr26.harness.claims import Outcome, Verdict, decider
from iclr26.harness.stats import t_interval

__all__ = ["segregation_decider"]

FRAC_NEEDED = 0.75


@decider(
    "frac_models_sig",
    "mask_diff_minus_random",
    "viz_cos_gap",
    description="positive pathway's mask share > negative's (>= 3/4 of ReLU models), beats random split, "
    "and removing positive inputs changes visualisations more",
)
def segregation_decider(rows) -> Verdict:
    """Supported when (i) mean over seeds of the fraction of ReLU models whose paired-bootstrap interval of
    (positive - negative) mask share lies above 0 is >= 3/4, (ii) the t-interval over seeds of the mean
    (difference - random-split difference) lies above 0, and (iii) the t-interval of the visualisation cosine gap
    cos(intact, minus-negative) - cos(intact, minus-positive) lies above 0. Not supported when any part's
    estimate is on the wrong side (fraction < 3/4, or an interval entirely below 0); otherwise inconclusive."""
    frac = np.array([r["frac_models_sig"] for r in rows], float)
    margin = t_interval(np.array([r["mask_diff_minus_random"] for r in rows], float))
    gap = t_interval(np.array([r["viz_cos_gap"] for r in rows], float))
    if not (np.isfinite(frac).all() and np.isfinite(margin.estimate) and np.isfinite(gap.estimate)):
        return Verdict(Outcome.INCONCLUSIVE, "non-finite metric", float("nan"), None, len(rows))
    f = float(frac.mean())
    parts_ok = [f >= FRAC_NEEDED, margin.lo > 0, gap.lo > 0]
    parts_bad = [f < FRAC_NEEDED, margin.hi < 0, gap.hi < 0]
    if all(parts_ok):
        outcome = Outcome.SUPPORTED
    elif any(parts_bad):
        outcome = Outcome.NOT_SUPPORTED
    else:
        outcome = Outcome.INCONCLUSIVE
    text = (
        f"fraction of ReLU models with CI>0 = {f:.2f} (need >= {FRAC_NEEDED}); "
        f"diff - random = {margin.estimate:.4f} [{margin.lo:.4f}, {margin.hi:.4f}]; "
        f"viz cos gap = {gap.estimate:.4f} [{gap.lo:.4f}, {gap.hi:.4f}]"
    )
    ci = (margin.lo, margin.hi) if margin.defined else None
    return Verdict(outcome, text, margin.estimate, ci, len(rows))
