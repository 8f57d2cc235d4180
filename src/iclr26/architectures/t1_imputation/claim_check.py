"""Claim check of the T1 reproduction (arXiv 2602.21043): the brief's rule over harness seeds.

Per seed: ``log_ratio_mcar70 = log(MSE_T1 / min over baselines MSE)`` at 70% MCAR, and
``block_diff = MSE_T1 - MSE_SAITS`` on the unseen block-missing pattern (models trained at 50% MCAR).
95% Student-t intervals over seeds.

- supported: exp(mean log-ratio) <= 0.8, the log-ratio interval lies below log 0.9, and the block-difference
  interval lies below 0;
- not supported: mean log-ratio >= 0 (T1 no better) or the log-ratio interval lies entirely above log 0.9;
- inconclusive otherwise (also with < 2 seeds or non-finite numbers).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Verdict, decider
from iclr26.harness.stats import t_interval

__all__ = ["CUT", "MARGIN", "t1_decider"]

CUT = 0.8  # supported needs a >= 20% MSE cut at 70% MCAR
MARGIN = 0.9  # and a credible cut of at least 10%


def t1_decider(ratio_metric: str = "log_ratio_mcar70", block_metric: str = "block_diff_t1_saits") -> Decider:
    """The brief's supported / not supported / inconclusive rule on the two per-seed metrics."""

    @decider(
        ratio_metric,
        block_metric,
        description=f"70% MCAR: T1/best-baseline MSE <= {CUT} with CI below {MARGIN}; block: T1 < SAITS",
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        lr = np.array([float(r[ratio_metric]) for r in rows])
        bd = np.array([float(r[block_metric]) for r in rows])
        if not (np.all(np.isfinite(lr)) and np.all(np.isfinite(bd))):
            return Verdict(Outcome.INCONCLUSIVE, "non-finite metrics in some seeds", n_seeds=len(rows))
        iv, ib = t_interval(lr), t_interval(bd)
        if not (iv.defined and ib.defined):
            return Verdict(
                Outcome.INCONCLUSIVE, "intervals need >= 2 seeds", math.exp(iv.estimate), None, iv.n
            )
        log_margin = math.log(MARGIN)
        if iv.estimate >= 0 or iv.lo > log_margin:
            outcome = Outcome.NOT_SUPPORTED
        elif iv.estimate <= math.log(CUT) and iv.hi < log_margin and ib.hi < 0:
            outcome = Outcome.SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        text = (
            f"70% MCAR MSE ratio T1/best baseline = {math.exp(iv.estimate):.3g} "
            f"[{math.exp(iv.lo):.3g}, {math.exp(iv.hi):.3g}] (geometric mean, 95% t, {iv.n} seeds; need <= {CUT} "
            f"with upper end < {MARGIN}); block pattern MSE T1 - SAITS = {ib.estimate:.3g} "
            f"[{ib.lo:.3g}, {ib.hi:.3g}] (need upper end < 0)"
        )
        return Verdict(outcome, text, math.exp(iv.estimate), (math.exp(iv.lo), math.exp(iv.hi)), iv.n)

    return decide
