"""Claim check of the FACT reproduction (OpenReview j3gNYqrHtl): the brief's accuracy + efficiency rule.

Per seed: d = test MSE(FACT) - test MSE(iTransformer) on the raster ordering (same seed, paired);
r = FACT step time / FACTAttn step time at the largest timed N. 95% Student-t interval of d over seeds.
Supported: interval of d entirely below 0 and mean r <= 0.7. Not supported: interval of d entirely above 0
(FACT worse). Inconclusive otherwise (including non-finite times).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Verdict, decider
from iclr26.harness.stats import t_interval

__all__ = ["TIME_RATIO", "fact_decider"]

TIME_RATIO = 0.7


def fact_decider(diff_metric: str, ratio_metric: str, max_ratio: float = TIME_RATIO) -> Decider:
    """Both halves must hold for "supported"; FACT reliably worse -> "not supported"; else "inconclusive"."""

    @decider(diff_metric, ratio_metric, description=f"{diff_metric} CI < 0 and {ratio_metric} <= {max_ratio}")
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        d = np.array([float(r[diff_metric]) for r in rows])
        q = np.array([float(r[ratio_metric]) for r in rows])
        if not np.all(np.isfinite(d)):
            return Verdict(Outcome.INCONCLUSIVE, "non-finite MSE difference in some seeds", n_seeds=len(rows))
        iv = t_interval(d)
        if not iv.defined:
            return Verdict(Outcome.INCONCLUSIVE, "intervals need >= 2 seeds", iv.estimate, None, iv.n)
        ratio = float(q.mean()) if np.all(np.isfinite(q)) else float("nan")
        if iv.lo > 0:
            outcome = Outcome.NOT_SUPPORTED
        elif iv.hi < 0 and np.isfinite(ratio) and ratio <= max_ratio:
            outcome = Outcome.SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        text = (
            f"MSE(FACT) - MSE(iTransformer) = {iv.estimate:.3g} [{iv.lo:.3g}, {iv.hi:.3g}] (95% t, {iv.n} seeds; "
            f"need upper end < 0); FACT/FACTAttn step-time ratio = {ratio:.3g} (need <= {max_ratio})"
        )
        return Verdict(outcome, text, iv.estimate, (iv.lo, iv.hi), iv.n)

    return decide
