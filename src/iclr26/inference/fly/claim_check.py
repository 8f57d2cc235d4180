"""The brief's claim rule for FLy against exact-match speculative decoding, over harness seeds.

Two parts, combined as a conjunction (not supported if either part is, supported if both are):

* accuracy kept (:func:`accuracy_kept`): retained = mean over seeds of ``acc_fly / acc_target``; supported at
  >= 0.99 with the 95% t-interval of ``acc_fly - acc_target`` above -0.02; not supported below 0.97;
* longer acceptance (:func:`acceptance_gain`): ``tau_fly / tau_sd`` (geometric mean, t-interval on logs);
  supported at >= 1.10 with the interval above 1; not supported when the interval reaches 1 and lies wholly below
  the claimed 1.10; an interval that reaches 1 but also 1.10 is inconclusive (the harness rule that overrides the
  brief's "CI contains 1 -> not supported"), and so is a significant gain below 1.10, as the brief says.

and the brief's guard (:data:`SD_FASTER`): when exact speculative decoding is itself slower than target-only
decoding in wall time (mean ``speedup_sd < 1``, the tiny-model overhead regime), the whole claim is inconclusive
("report tau only"). That the target model learned the task is a precondition of the claim (:data:`TARGET_LEARNED`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Precondition, Verdict, all_of, decider, guarded
from iclr26.harness.claims import column as _col
from iclr26.harness.stats import interval

__all__ = [
    "KEEP_FAIL",
    "KEEP_SUPPORT",
    "TARGET_LEARNED",
    "TAU_GAIN",
    "acceptance_gain",
    "accuracy_kept",
    "fly_decider",
]

KEEP_SUPPORT, KEEP_FAIL, ACC_MARGIN = 0.99, 0.97, 0.02
TAU_GAIN = 1.10
MAJORITY_MARGIN = 0.10

TARGET_LEARNED = Precondition(
    "acc_target_over_majority",
    ">=",
    MAJORITY_MARGIN,
    "the target's final-answer accuracy beats always answering the training corpus's most frequent answer "
    "by 10 points (acc_target - acc_majority)",
)


def _jitter(i: int, scale: float) -> float:
    return scale * 1e-3 * ((i % 3) - 1)


def accuracy_kept(
    support: float = KEEP_SUPPORT, fail: float = KEEP_FAIL, margin: float = ACC_MARGIN
) -> Decider:
    """FLy keeps the target's accuracy: mean retained >= `support` with the interval of the accuracy difference
    above ``-margin``; not supported when the mean retained is below `fail`."""

    def win(rows: list[dict[str, float]]) -> list[dict[str, float]]:
        out = []
        for i, r in enumerate(rows):
            target = max(float(r["acc_target"]), 0.5)
            out.append({**r, "acc_target": target, "acc_fly": target * (1.0 + abs(_jitter(i, 1.0)))})
        return out

    @decider(
        "acc_fly", "acc_target", description=f"FLy keeps >= {support:.0%} of target accuracy", synthesize=win
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        fly, target = _col(rows, "acc_fly"), _col(rows, "acc_target")
        d = interval(fly - target)
        if np.any(target <= 0):
            return Verdict(
                Outcome.INCONCLUSIVE, f"target accuracy 0 in some seed: {target.tolist()}", n_seeds=len(rows)
            )
        kept = float(np.mean(fly / target))
        if kept < fail:
            outcome = Outcome.NOT_SUPPORTED
        elif kept >= support and d.lo > -margin:
            outcome = Outcome.SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        text = (
            f"accuracy retained {kept:.3g} (supported >= {support}, refuted < {fail}); acc_FLy - acc_target = "
            f"{d.estimate:.3g} [{d.lo:.3g}, {d.hi:.3g}] (need lower end > {-margin:g})"
        )
        return Verdict(outcome, text, kept, None, len(rows))

    return decide


def acceptance_gain(gain: float = TAU_GAIN) -> Decider:
    """``tau_fly / tau_sd`` (geometric mean over seeds): supported at >= `gain` with the interval above 1; not
    supported when the interval reaches 1 and lies wholly below `gain`; inconclusive otherwise."""

    def win(rows: list[dict[str, float]]) -> list[dict[str, float]]:
        out = []
        for i, r in enumerate(rows):
            sd = float(r["tau_sd"])
            sd = sd if math.isfinite(sd) and sd >= 1.0 else 1.0
            out.append({**r, "tau_sd": sd, "tau_fly": sd * 2.0 * gain * (1.0 + _jitter(i, 1.0))})
        return out

    @decider(
        "tau_fly",
        "tau_sd",
        description=f"tau_FLy / tau_SD >= {gain}",
        compares=[("tau_fly", "tau_sd", True)],
        synthesize=win,
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        fly, sd = _col(rows, "tau_fly"), _col(rows, "tau_sd")
        if np.any(fly <= 0) or np.any(sd <= 0):
            return Verdict(Outcome.INCONCLUSIVE, "acceptance lengths must be positive", n_seeds=len(rows))
        iv = interval(np.log(fly / sd))
        est, lo, hi = math.exp(iv.estimate), math.exp(iv.lo), math.exp(iv.hi)
        if est >= gain and lo > 1.0:
            outcome = Outcome.SUPPORTED
        elif lo <= 1.0 and hi < gain:
            outcome = Outcome.NOT_SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        text = (
            f"tau_FLy/tau_SD = {est:.3g} [{lo:.3g}, {hi:.3g}] (95% t on logs, {iv.n} seeds; supported >= {gain} "
            f"with the interval above 1, refuted when it reaches 1 and lies below {gain})"
        )
        return Verdict(outcome, text, est, (lo, hi), iv.n)

    return decide


def _fly_decider() -> Decider:
    return guarded(
        all_of(accuracy_kept(), acceptance_gain()),
        "speedup_sd",
        ">=",
        1.0,
        "the brief: when exact speculative decoding is itself slower than target-only decoding in wall time, "
        "the tiny-model overhead dominates and only tau is reported",
    )


fly_decider = _fly_decider()
