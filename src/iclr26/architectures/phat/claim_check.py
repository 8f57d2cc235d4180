"""Claim check of the PHAT reproduction (arXiv 2602.00654): the brief's relative-gain rule.

Per seed r = MSE(PHAT) / MSE(best baseline) - 1 on the heterogeneous data, the best baseline being the one
(of the given baselines) with the lower mean MSE over seeds; 95% paired t-interval of r over seeds.
Supported: mean r <= -5% and the interval below 0. Not supported: mean r >= 0, or the interval lies entirely
above -5% while containing 0. Inconclusive otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Verdict, column, decider, seed_spread
from iclr26.harness.stats import t_interval

__all__ = ["GAIN", "relative_gain_decider"]

GAIN = 0.05


def relative_gain_decider(method: str, baselines: Sequence[str], gain: float = GAIN) -> Decider:
    """Three-way rule on r = method / best baseline - 1 (lower MSE is better)."""

    def synthesize(rows: list[dict[str, float]]) -> list[dict[str, float]]:
        """A clear win: the method's MSE 20% below the best baseline's in every seed."""
        best = min(baselines, key=lambda b: float(np.mean(column(rows, b))))
        return [
            {**r, method: abs(float(r[best]) or 1.0) * (0.8 + seed_spread(i))} for i, r in enumerate(rows)
        ]

    @decider(
        method,
        *baselines,
        description=f"{method} / min({', '.join(baselines)}) - 1 <= -{gain:g} with the interval below 0",
        compares=[(method, b, False) for b in baselines],
        synthesize=synthesize,
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        best = min(baselines, key=lambda b: float(np.mean(column(rows, b))))
        r = column(rows, method) / column(rows, best) - 1.0
        iv = t_interval(r)
        if iv.estimate <= -gain and iv.hi < 0:
            outcome = Outcome.SUPPORTED
        elif iv.estimate >= 0 or (iv.lo > -gain and iv.lo <= 0 <= iv.hi):
            outcome = Outcome.NOT_SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        text = (
            f"r = MSE({method}) / MSE({best}) - 1 = {iv.estimate:+.3f} [{iv.lo:+.3f}, {iv.hi:+.3f}] (95% t, "
            f"{iv.n} seeds; best baseline {best}); supported at r <= -{gain:g} with the interval below 0"
        )
        return Verdict(outcome, text, iv.estimate, (iv.lo, iv.hi), iv.n)

    return decide
