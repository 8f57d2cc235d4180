"""Claim check of the SWAX reproduction (arXiv 2509.24552): the brief's overall rule for stochastic windows.

Per seed: ``r = recall(stochastic) - recall(fixed-long)`` and ``l = local(stochastic) - local(fixed-long)``
(accuracies in [0, 1]; one point = 0.01). The rule is :func:`~iclr26.harness.claims.all_of` two parts:

* recall, the three-way effect rule on the paired 95% Student-t interval of ``r``: supported when the interval
  lies above 0 and mean ``r`` >= +5 points; not supported when it lies entirely below 0;
* local (the brief's point-estimate band, :func:`local_band`): supported when mean ``l`` >= -1 point, not
  supported when mean ``l`` < -3 points (local deficit), inconclusive in between.

Supported when both parts are, not supported when either is, inconclusive otherwise.

Every claim of the reproduction compares trained models, so each declares :func:`learned` preconditions: the
compared models must beat chance on the task the claim measures by 10 points in every seed. Otherwise the
budget did not let them learn it, and the verdict is *not reproduced at this budget*.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import (
    Decider,
    Outcome,
    Precondition,
    Verdict,
    all_of,
    decider,
    effect_at_least,
)

__all__ = [
    "LEARNED_MARGIN",
    "LOCAL_FAIL",
    "LOCAL_SLACK",
    "RECALL_GAIN",
    "learned",
    "local_band",
    "stochastic_window_decider",
]

RECALL_GAIN = 0.05
LOCAL_SLACK = 0.01
LOCAL_FAIL = 0.03
LEARNED_MARGIN = 0.10

_TASKS = {
    "recall": "recall (chance = 1 / number of key-value pairs)",
    "local": "the local induction task (chance = 1 / number of filler tokens)",
}


def learned(condition: str, task: str) -> Precondition:
    """`condition`'s model beats chance on `task` (``"recall"`` or ``"local"``) by :data:`LEARNED_MARGIN`."""
    if task not in _TASKS:
        raise ValueError(f"task must be one of {sorted(_TASKS)}, got {task!r}")
    return Precondition(
        f"{condition}_{task}_above_chance",
        ">=",
        LEARNED_MARGIN,
        f"the {condition} model learned {_TASKS[task]}: accuracy >= chance + 10 points",
    )


def local_band(method: str, baseline: str) -> Decider:
    """The brief's local-task part on the mean of ``local(method) - local(baseline)``, a point estimate:
    supported at >= -1 point, not supported below -3 points, inconclusive in between. A non-inferiority part:
    the baseline against itself passes, so it declares no comparison."""
    lm, lb = f"{method}_local_acc", f"{baseline}_local_acc"

    def tie(rows: list[dict[str, float]]) -> list[dict[str, float]]:
        return [{**r, lm: float(r[lb])} for r in rows]

    @decider(
        lm,
        lb,
        description=f"mean {lm} - {lb} >= -{LOCAL_SLACK:.0%} (refuted below -{LOCAL_FAIL:.0%})",
        synthesize=tie,
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        local = float(np.mean([float(x[lm]) - float(x[lb]) for x in rows]))
        if local < -LOCAL_FAIL:
            outcome = Outcome.NOT_SUPPORTED
        elif local >= -LOCAL_SLACK:
            outcome = Outcome.SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        return Verdict(
            outcome,
            f"local change = {100 * local:.3g} points (need >= -{100 * LOCAL_SLACK:g}; refuted below "
            f"-{100 * LOCAL_FAIL:g})",
            local,
            None,
            len(rows),
        )

    return decide


def stochastic_window_decider(method: str = "stochastic", baseline: str = "fixed_long") -> Decider:
    """The brief's C2 / overall rule comparing ``method`` with ``baseline`` (metric prefixes)."""
    recall = effect_at_least(
        f"{method}_recall_acc", f"{baseline}_recall_acc", support_at=RECALL_GAIN, null=0.0, refute_below=0.0
    )
    return all_of(recall, local_band(method, baseline))
