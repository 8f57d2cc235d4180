"""Claim check of the T1 reproduction (arXiv 2602.21043): the brief's rule over harness seeds.

Per seed, from raw metrics: ``log_ratio = log(MSE_T1 / MSE_best)`` at 70% MCAR, where ``MSE_best`` is the lowest
baseline MSE of that seed, and ``block_diff = MSE_T1 - MSE_SAITS`` on the unseen block-missing pattern (models
trained at 50% MCAR). 95% Student-t intervals over seeds. The rule is ``all_of`` two parts:

- the MSE cut (:func:`cut_decider`): supported when exp(mean log-ratio) <= 0.8 and the log-ratio interval lies
  below log 0.9; not supported when the interval lies entirely above log 0.9 (any gain is credibly under 10%),
  or when T1 is no better on average (mean log-ratio >= 0) and the interval excludes the claimed 0.8;
  inconclusive otherwise;
- the block pattern (:func:`~iclr26.harness.claims.effect_at_least` on SAITS - T1): holds when the interval of
  the difference lies below 0; it never refutes on its own (the brief's rule).

Supported when both hold; not supported when the cut is refuted; inconclusive otherwise.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Verdict, all_of, decider, effect_at_least
from iclr26.harness.stats import t_interval

__all__ = ["CUT", "MARGIN", "cut_decider", "t1_decider"]

CUT = 0.8  # supported needs a >= 20% MSE cut at 70% MCAR
MARGIN = 0.9  # and a credible cut of at least 10%


def cut_decider(method: str = "mse_mcar70_t1", best: str = "mse_mcar70_best_baseline") -> Decider:
    """T1's MSE against the best baseline's: geometric-mean ratio <= 0.8 with the interval below 0.9."""

    def synthesize(rows: list[dict[str, float]]) -> list[dict[str, float]]:
        out = []
        for i, r in enumerate(rows):
            b = float(r[best]) if math.isfinite(float(r[best])) and float(r[best]) > 0 else 1.0
            out.append({**r, best: b, method: b * (0.5 + 0.01 * ((i % 3) - 1))})
        return out

    @decider(
        method,
        best,
        description=f"{method} / {best} <= {CUT} (geometric mean) with the interval below {MARGIN}",
        compares=[(method, best, False)],
        synthesize=synthesize,
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        with np.errstate(divide="ignore", invalid="ignore"):
            lr = np.log(np.array([float(r[method]) for r in rows]) / np.array([float(r[best]) for r in rows]))
        if not np.all(np.isfinite(lr)):
            return Verdict(Outcome.INCONCLUSIVE, f"MSE ratio not positive and finite: {lr.tolist()}")
        iv = t_interval(lr)
        log_cut, log_margin = math.log(CUT), math.log(MARGIN)
        if iv.lo > log_margin or (iv.estimate >= 0 and iv.lo > log_cut):
            outcome = Outcome.NOT_SUPPORTED
        elif iv.estimate <= log_cut and iv.hi < log_margin:
            outcome = Outcome.SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        text = (
            f"70% MCAR MSE ratio T1/best baseline = {math.exp(iv.estimate):.3g} "
            f"[{math.exp(iv.lo):.3g}, {math.exp(iv.hi):.3g}] (geometric mean, 95% t, {iv.n} seeds; need <= {CUT} "
            f"with upper end < {MARGIN}; refuted when the lower end is above {MARGIN}, or above {CUT} with no "
            f"gain on average)"
        )
        return Verdict(outcome, text, math.exp(iv.estimate), (math.exp(iv.lo), math.exp(iv.hi)), iv.n)

    return decide


def t1_decider(
    method: str = "mse_mcar70_t1",
    best: str = "mse_mcar70_best_baseline",
    block_method: str = "mse_block_t1",
    block_baseline: str = "mse_block_saits",
) -> Decider:
    """The brief's supported / not supported / inconclusive rule on the raw per-seed MSEs."""
    block = effect_at_least(
        block_method, block_baseline, support_at=0.0, null=0.0, refute_below=-math.inf, higher_is_better=False
    )
    return all_of(cut_decider(method, best), block)
