"""Claim check of the SWAX reproduction (arXiv 2509.24552): the brief's overall rule for stochastic windows.

Per seed: ``r = recall(stochastic) - recall(fixed-long)`` and ``l = local(stochastic) - local(fixed-long)``
(accuracies in [0, 1]; one point = 0.01). With the 95% Student-t interval of ``r`` over seeds:

* supported (C2 holds): the interval of ``r`` lies above 0, mean ``r`` >= +5 points, and mean ``l`` >= -1 point;
* not supported: the interval of ``r`` lies entirely below 0, or mean ``l`` < -3 points (local deficit);
* inconclusive otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Verdict, decider
from iclr26.harness.stats import t_interval

__all__ = ["LOCAL_FAIL", "LOCAL_SLACK", "RECALL_GAIN", "stochastic_window_decider"]

RECALL_GAIN = 0.05
LOCAL_SLACK = 0.01
LOCAL_FAIL = 0.03


def stochastic_window_decider(method: str = "stochastic", baseline: str = "fixed_long") -> Decider:
    """The brief's C2 / overall rule comparing ``method`` with ``baseline`` (metric prefixes)."""
    rm, rb = f"{method}_recall_acc", f"{baseline}_recall_acc"
    lm, lb = f"{method}_local_acc", f"{baseline}_local_acc"

    @decider(
        rm,
        rb,
        lm,
        lb,
        description=f"{method} - {baseline}: recall >= +{RECALL_GAIN:.0%} (interval > 0), local >= -{LOCAL_SLACK:.0%}",
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        r = np.array([float(x[rm]) - float(x[rb]) for x in rows])
        loc = np.array([float(x[lm]) - float(x[lb]) for x in rows])
        if not (np.all(np.isfinite(r)) and np.all(np.isfinite(loc))):
            return Verdict(Outcome.INCONCLUSIVE, "non-finite metrics in some seeds", n_seeds=len(rows))
        iv = t_interval(r)
        if not iv.defined:
            return Verdict(Outcome.INCONCLUSIVE, "intervals need >= 2 seeds", iv.estimate, None, iv.n)
        local = float(loc.mean())
        if iv.hi < 0 or local < -LOCAL_FAIL:
            outcome = Outcome.NOT_SUPPORTED
        elif iv.lo > 0 and iv.estimate >= RECALL_GAIN and local >= -LOCAL_SLACK:
            outcome = Outcome.SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        text = (
            f"recall gain = {100 * iv.estimate:.3g} points [{100 * iv.lo:.3g}, {100 * iv.hi:.3g}] (95% t, {iv.n} "
            f"seeds; need mean >= {100 * RECALL_GAIN:g} and lower end > 0; refuted if upper end < 0); local change "
            f"= {100 * local:.3g} points (need >= -{100 * LOCAL_SLACK:g}; refuted below -{100 * LOCAL_FAIL:g})"
        )
        return Verdict(outcome, text, iv.estimate, (iv.lo, iv.hi), iv.n)

    return decide
