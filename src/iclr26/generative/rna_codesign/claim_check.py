"""Claim check of the RNA co-design reproduction: the brief's rules on mean self-consistency TM-scores.

Every seed stores, per method m, the mean self-consistency TM over its samples (``{m}_tm``) and the standard
error of that mean over the samples (``{m}_tm_se``). The methods' samples are independent draws, so the
difference of two means has the sample-level standard error ``sqrt(se_a^2 + se_b^2)``; pooled over seeds (equal
sample counts) the estimate is the mean of the per-seed differences and its standard error
``sqrt(sum_s (se_a,s^2 + se_b,s^2)) / n_seeds``. The 95% interval is the normal one (what the percentile
bootstrap over the pooled samples that the brief asks for approximates at these sample sizes). The
seed-level t-interval of the per-seed differences is reported beside it (it also carries the training
variance between seeds), but does not decide.

- pretraining (A = pretrained-init co-design, B = from scratch on the same scarce set, C = from scratch on 10x
  the data): supported when A - B >= 0.05 with the interval above 0 and mean A >= mean C - 0.03; not supported
  when the interval of A - B lies at or below 0; inconclusive otherwise.
- RL (D = A + RL fine-tuning): supported when D - A >= 0.03 with the interval above 0 and the mean diversity drop
  A - D < 0.1; not supported when the interval of D - A lies at or below 0; inconclusive otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Comparison, Decider, Outcome, Rows, Verdict, column, decider, seed_spread
from iclr26.harness.stats import t_interval

__all__ = [
    "MIN_PRETRAIN_GAIN",
    "MIN_RL_GAIN",
    "MAX_DIVERSITY_DROP",
    "NEAR_C",
    "pooled_difference",
    "pretraining_decider",
    "rl_decider",
]

MIN_PRETRAIN_GAIN = 0.05
NEAR_C = 0.03
MIN_RL_GAIN = 0.03
MAX_DIVERSITY_DROP = 0.1
Z95 = 1.959963984540054


def pooled_difference(rows: Sequence[Mapping[str, float]], a: str, b: str) -> tuple[float, float, float]:
    """(estimate, lower, upper) of mean ``{a}_tm - {b}_tm`` pooled over seeds (module docstring)."""
    diff = column(rows, f"{a}_tm") - column(rows, f"{b}_tm")
    var = column(rows, f"{a}_tm_se") ** 2 + column(rows, f"{b}_tm_se") ** 2
    est = float(diff.mean())
    se = float(np.sqrt(var.sum()) / len(rows))
    return est, est - Z95 * se, est + Z95 * se


def _seed_text(rows: Sequence[Mapping[str, float]], a: str, b: str) -> str:
    diff = column(rows, f"{a}_tm") - column(rows, f"{b}_tm")
    if len(rows) < 2:
        return "seed-level interval undefined (1 seed)"
    iv = t_interval(diff)
    return f"seed-level t-interval [{iv.lo:.3g}, {iv.hi:.3g}]"


def _metrics(*methods: str) -> list[str]:
    return [f"{m}_{k}" for m in methods for k in ("tm", "tm_se")]


def pretraining_decider() -> Decider:
    """The brief's rule for A (pretrained) vs B (scratch, same data) and C (scratch, 10x data)."""

    def synth(rows: Rows) -> Rows:
        out = []
        for i, r in enumerate(rows):
            r = dict(r)
            r["a_tm"] = float(r["b_tm"]) + 0.3 + seed_spread(i)
            r["c_tm"] = r["a_tm"]
            for m in "abc":
                r[f"{m}_tm_se"] = 0.01
            out.append(r)
        return out

    @decider(
        *_metrics("a", "b", "c"),
        description=f"A - B >= {MIN_PRETRAIN_GAIN} (interval > 0) and A >= C - {NEAR_C}",
        compares=[Comparison("a_tm", "b_tm", True)],
        synthesize=synth,
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        est, lo, hi = pooled_difference(rows, "a", "b")
        gap_c = float((column(rows, "a_tm") - column(rows, "c_tm")).mean())
        if hi <= 0:
            outcome = Outcome.NOT_SUPPORTED
        elif est >= MIN_PRETRAIN_GAIN and lo > 0 and gap_c >= -NEAR_C:
            outcome = Outcome.SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        text = (
            f"A - B = {est:.3g} [{lo:.3g}, {hi:.3g}] (95%, samples pooled over {len(rows)} seeds; "
            f"{_seed_text(rows, 'a', 'b')}); need >= {MIN_PRETRAIN_GAIN} with lower end > 0; A - C = {gap_c:.3g} "
            f"(need >= -{NEAR_C})"
        )
        return Verdict(outcome, text, est, (lo, hi), len(rows))

    return decide


def rl_decider() -> Decider:
    """The brief's rule for D (A + RL) vs A, with the diversity guard."""

    def synth(rows: Rows) -> Rows:
        out = []
        for i, r in enumerate(rows):
            r = dict(r)
            r["d_tm"] = float(r["a_tm"]) + 0.2 + seed_spread(i)
            r["d_diversity"] = float(r["a_diversity"])
            r["a_tm_se"] = r["d_tm_se"] = 0.01
            out.append(r)
        return out

    @decider(
        *_metrics("a", "d"),
        "a_diversity",
        "d_diversity",
        description=f"D - A >= {MIN_RL_GAIN} (interval > 0) and diversity drop < {MAX_DIVERSITY_DROP}",
        compares=[Comparison("d_tm", "a_tm", True)],
        synthesize=synth,
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        est, lo, hi = pooled_difference(rows, "d", "a")
        drop = float((column(rows, "a_diversity") - column(rows, "d_diversity")).mean())
        if hi <= 0:
            outcome = Outcome.NOT_SUPPORTED
        elif est >= MIN_RL_GAIN and lo > 0 and drop < MAX_DIVERSITY_DROP:
            outcome = Outcome.SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        text = (
            f"D - A = {est:.3g} [{lo:.3g}, {hi:.3g}] (95%, samples pooled over {len(rows)} seeds; "
            f"{_seed_text(rows, 'd', 'a')}); need >= {MIN_RL_GAIN} with lower end > 0; diversity drop "
            f"{drop:.3g} (need < {MAX_DIVERSITY_DROP})"
        )
        return Verdict(outcome, text, est, (lo, hi), len(rows))

    return decide
