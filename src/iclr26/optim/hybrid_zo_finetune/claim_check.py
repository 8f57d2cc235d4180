"""Claim check of the hybrid ZO/FO reproduction (arXiv 2604.09940), the brief's rule over harness seeds.

Per seed: ``gain_points = 100 * (acc_hybrid - acc_lora_fo)`` (final test accuracy) and ``step_ratio`` = steps
Hybrid needs to reach LoRA-FO's final accuracy / steps LoRA-FO needs to first reach it (a Hybrid run that
never reaches it is censored at one evaluation past the budget, a lower bound on its true value).

* C1: paired 95% Student-t interval of ``gain_points``: mean >= 2 points and lower end > 0.
* C2: median ``step_ratio`` <= 0.75 with the upper end of a 95% percentile bootstrap interval of the median < 1.

Supported if C1 and C2 hold; not supported if the whole C1 interval is <= 0; inconclusive otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Verdict, decider
from iclr26.harness.stats import bootstrap_interval, t_interval

__all__ = ["GAIN_POINTS", "RATIO_MAX", "hybrid_decider"]

GAIN_POINTS = 2.0
RATIO_MAX = 0.75


def _median(a: np.ndarray) -> np.ndarray:
    return np.median(a, axis=-1)


def hybrid_decider(gain: str = "gain_points", ratio: str = "step_ratio") -> Decider:
    """The brief's combined C1 (accuracy gain) and C2 (fewer steps) rule."""

    @decider(
        gain,
        ratio,
        description=f"C1: Hybrid - LoRA-FO >= {GAIN_POINTS} points (t-interval > 0); "
        f"C2: median step ratio <= {RATIO_MAX} (bootstrap upper < 1)",
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        g = np.array([float(r[gain]) for r in rows])
        q = np.array([float(r[ratio]) for r in rows])
        if not (np.all(np.isfinite(g)) and np.all(np.isfinite(q))):
            return Verdict(Outcome.INCONCLUSIVE, "non-finite metrics in some seeds", n_seeds=len(rows))
        iv = t_interval(g)
        if not iv.defined:
            return Verdict(Outcome.INCONCLUSIVE, "intervals need >= 2 seeds", iv.estimate, None, iv.n)
        bq = bootstrap_interval(q, statistic=_median)
        c1 = iv.estimate >= GAIN_POINTS and iv.lo > 0
        c2 = bq.estimate <= RATIO_MAX and bq.hi < 1.0
        if iv.hi <= 0:
            outcome = Outcome.NOT_SUPPORTED
        elif c1 and c2:
            outcome = Outcome.SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        text = (
            f"C1 gain = {iv.estimate:.3g} points [{iv.lo:.3g}, {iv.hi:.3g}] (95% paired t, {iv.n} seeds; need >= "
            f"{GAIN_POINTS} and lower end > 0: {'met' if c1 else 'not met'}); C2 median step ratio = "
            f"{bq.estimate:.3g} [{bq.lo:.3g}, {bq.hi:.3g}] (bootstrap; need <= {RATIO_MAX}, upper < 1: "
            f"{'met' if c2 else 'not met'})"
        )
        return Verdict(outcome, text, iv.estimate, (iv.lo, iv.hi), iv.n)

    return decide
