"""Claim check of the IC-SSL reproduction (arXiv 2512.15934): the brief's rule at 1 label per class.

Per seed (accuracies in percent on held-out tasks of one split, in-distribution or OOD):
``gain = acc(IC-SSL) - acc(plain ICL on labelled points)`` and ``gap = acc(IC-SSL) - acc(eigenmaps + LR)``.
Supported: mean gain >= 10 points, its 95% t-interval above 0, and mean gap >= -5. Not supported: mean gain
< 3 points or its interval contains 0. Inconclusive otherwise (e.g. a large gain but far below eigenmaps).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Verdict, decider
from iclr26.harness.stats import t_interval

__all__ = ["GAIN_MIN", "GAIN_SUPPORT", "GAP_SLACK", "icssl_decider"]

GAIN_SUPPORT = 10.0
GAIN_MIN = 3.0
GAP_SLACK = 5.0


def icssl_decider(split: str, lpc: int = 1) -> Decider:
    """The brief's supported / not supported / inconclusive rule on `split` ("id" or "ood") at `lpc` labels."""
    g, e = f"gain_plain_{split}_l{lpc}", f"gap_eigenmap_{split}_l{lpc}"

    @decider(
        g, e, description=f"{split} l={lpc}: gain over plain ICL >= {GAIN_SUPPORT} pts, gap >= -{GAP_SLACK}"
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        gains = np.array([float(r[g]) for r in rows])
        gaps = np.array([float(r[e]) for r in rows])
        if not (np.all(np.isfinite(gains)) and np.all(np.isfinite(gaps))):
            return Verdict(Outcome.INCONCLUSIVE, "non-finite metrics in some seeds", n_seeds=len(rows))
        iv = t_interval(gains)
        if not iv.defined:
            return Verdict(Outcome.INCONCLUSIVE, "the interval needs >= 2 seeds", iv.estimate, None, iv.n)
        gap = float(gaps.mean())
        if iv.estimate < GAIN_MIN or iv.lo <= 0:
            outcome = Outcome.NOT_SUPPORTED
        elif iv.estimate >= GAIN_SUPPORT and gap >= -GAP_SLACK:
            outcome = Outcome.SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        text = (
            f"gain over plain ICL = {iv.estimate:.3g} pts [{iv.lo:.3g}, {iv.hi:.3g}] (95% t, {iv.n} seeds; need "
            f">= {GAIN_SUPPORT} and lower end > 0, < {GAIN_MIN} refutes); IC-SSL - eigenmaps = {gap:.3g} pts "
            f"(need >= -{GAP_SLACK})"
        )
        return Verdict(outcome, text, iv.estimate, (iv.lo, iv.hi), iv.n)

    return decide
