"""Claim check of the Hyper-SET reproduction (arXiv 2502.11646), the brief's rule over harness seeds.

Per seed: ``acc_diff`` = test accuracy (points) of Hyper-SET minus the 6-layer vanilla Transformer (same split),
``param_ratio`` = Hyper-SET parameters / vanilla parameters, ``energy_descent_frac`` = fraction of test samples
whose total energy after the last iteration is below the energy after the first.

(a) holds when mean acc_diff >= -1.5 points, the 95% percentile bootstrap interval of the paired difference lies
above -3.0, and the parameter ratio is <= 1/3 in every seed. (b) holds when the mean descent fraction is >= 0.8.
Supported: (a) and (b). Not supported: (a) fails with the interval entirely below -1.5 (or the parameter ratio is
above 1/3), or the mean descent fraction is < 0.5. Inconclusive otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Verdict, decider
from iclr26.harness.stats import bootstrap_interval

__all__ = ["CI_FLOOR", "DESCENT_REFUTE", "DESCENT_SUPPORT", "MARGIN", "MAX_PARAM_RATIO", "hyperset_decider"]

MARGIN = -1.5  # points
CI_FLOOR = -3.0
MAX_PARAM_RATIO = 1.0 / 3.0
DESCENT_SUPPORT = 0.8
DESCENT_REFUTE = 0.5


def hyperset_decider(
    diff: str = "acc_diff", ratio: str = "param_ratio", descent: str = "energy_descent_frac"
) -> Decider:
    """The brief's supported / not supported / inconclusive rule on the three per-seed metrics."""

    @decider(diff, ratio, descent, description="Hyper-SET competitive with <= 1/3 params and energy descends")
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        d = np.array([float(r[diff]) for r in rows])
        q = np.array([float(r[ratio]) for r in rows])
        e = np.array([float(r[descent]) for r in rows])
        if not (np.all(np.isfinite(d)) and np.all(np.isfinite(q)) and np.all(np.isfinite(e))):
            return Verdict(Outcome.INCONCLUSIVE, "non-finite metrics in some seeds", n_seeds=len(rows))
        iv = bootstrap_interval(d)
        if not iv.defined:
            return Verdict(Outcome.INCONCLUSIVE, "the interval needs >= 2 seeds", iv.estimate, None, iv.n)
        small = bool(np.all(q <= MAX_PARAM_RATIO))
        a_ok = iv.estimate >= MARGIN and iv.lo > CI_FLOOR and small
        a_bad = iv.hi < MARGIN or not small
        frac = float(e.mean())
        if a_bad or frac < DESCENT_REFUTE:
            outcome = Outcome.NOT_SUPPORTED
        elif a_ok and frac >= DESCENT_SUPPORT:
            outcome = Outcome.SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        text = (
            f"accuracy difference = {iv.estimate:.3g} points [{iv.lo:.3g}, {iv.hi:.3g}] (95% bootstrap, {iv.n} "
            f"seeds; need mean >= {MARGIN} and lower end > {CI_FLOOR}); parameter ratio max {q.max():.3g} "
            f"(need <= 1/3); energy descends in {frac:.1%} of test samples (need >= {DESCENT_SUPPORT:.0%}, "
            f"refuted below {DESCENT_REFUTE:.0%})"
        )
        return Verdict(outcome, text, iv.estimate, (iv.lo, iv.hi), iv.n)

    return decide
