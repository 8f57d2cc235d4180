"""Claim check of the AtteNT reproduction (arXiv 2602.20461): the brief's three-part rule over harness seeds.

Per seed and task, target = full-data final test accuracy - 0.5 points; a method's cost ratio is its cost (in
forward-pass units) to first reach the target divided by full-data's cost to reach it, capped at 2 for a run
that never reaches it. Per seed the experiment averages over the tasks: ``{method}_log_cost_ratio`` (the log of a
geometric mean; 0 for full data) and ``attent_acc_gain`` (AtteNT final accuracy - full-data final accuracy).

1. cost: supported if the geometric-mean AtteNT/full ratio is <= 0.90 and the bootstrap 95% upper end < 1 (on
   log scale: full - AtteNT log ratio >= -log 0.9 with the interval above 0); not supported if the whole interval
   lies at or above 1 (no saving); inconclusive otherwise;
2. accuracy: supported if the paired t-interval of the accuracy change has lower end > -0.5 points; never refutes;
3. vs random subsets: supported if the paired t-interval of log(AtteNT ratio) - log(random ratio) lies below 0;
   not supported if it lies above 0 (AtteNT measurably costlier); an interval containing 0 is inconclusive.

Supported if all three hold; not supported if part 1 or part 3 is; inconclusive otherwise. The claim is judged
only when the full-data learner learned both tasks (:data:`PRECONDITIONS`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from iclr26.harness.claims import (
    Decider,
    PerSeed,
    Precondition,
    Verdict,
    all_of,
    difference_at_least,
    effect_at_least,
)

__all__ = [
    "ACC_SLACK",
    "COST_CAP",
    "PRECONDITIONS",
    "RATIO_TARGET",
    "attent_decider",
    "cost_to_target",
]

ACC_SLACK = 0.005  # 0.5 accuracy points
RATIO_TARGET = 0.90
COST_CAP = 2.0
LEARNED_MARGIN = 0.10

PRECONDITIONS = (
    Precondition(
        "digits_full_final_acc",
        ">=",
        0.1 + LEARNED_MARGIN,
        "the full-data learner learned digits: test accuracy at least 10 points above chance (1/10)",
    ),
    Precondition(
        "seqprop_full_final_acc",
        ">=",
        0.5 + LEARNED_MARGIN,
        "the full-data learner learned the sequence property: test accuracy at least 10 points above chance (1/2)",
    ),
)


def cost_to_target(costs: Sequence[float], accuracies: Sequence[float], target: float) -> float | None:
    """The cost at the first evaluation whose accuracy is >= `target` (None when never reached)."""
    if len(costs) != len(accuracies):
        raise ValueError(
            f"costs and accuracies must have equal length, got {len(costs)} and {len(accuracies)}"
        )
    for c, a in zip(costs, accuracies):
        if a >= target:
            return float(c)
    return None


def attent_decider() -> Decider:
    """The brief's rule; the verdict's estimate is the geometric-mean AtteNT/full cost ratio (bootstrap 95%)."""
    inner = all_of(
        effect_at_least(
            "attent_log_cost_ratio",
            "full_log_cost_ratio",
            support_at=-math.log(RATIO_TARGET),
            null=0.0,
            refute_below=0.0,  # refuted only when the ratio interval lies wholly at or above 1 (no saving)
            method="bootstrap",
            higher_is_better=False,
        ),
        effect_at_least("attent_acc_gain", support_at=-ACC_SLACK, null=-ACC_SLACK, refute_below=-math.inf),
        difference_at_least("attent_log_cost_ratio", "random_log_cost_ratio", 0.0, higher_is_better=False),
    )

    def fn(rows: PerSeed) -> Verdict:
        v = inner(rows)
        est = math.exp(-v.estimate) if v.estimate is not None else None
        band = (math.exp(-v.interval[1]), math.exp(-v.interval[0])) if v.interval is not None else None
        ratio = (
            f"{est:.3g}" + (f" [{band[0]:.3g}, {band[1]:.3g}]" if band else "") if est is not None else "n/a"
        )
        text = (
            f"AtteNT/full cost-to-target ratio (geometric mean over seeds and tasks) = {ratio} (need <= "
            f"{RATIO_TARGET}, upper < 1); parts on log scale: {v.explanation}"
        )
        return Verdict(v.outcome, text, est, band, v.n_seeds)

    return inner.derive(
        fn,
        description=f"geo-mean cost-to-target ratio <= {RATIO_TARGET} (CI < 1), acc >= full - 0.5 pt, beats random",
        synthesize=_clear_win,
    )


def _clear_win(rows: list[dict[str, float]]) -> list[dict[str, float]]:
    """AtteNT at about 0.55x full data's cost, 26% cheaper than random subsets, accuracy unchanged."""
    out = []
    for i, r in enumerate(rows):
        j = 1e-3 * ((i % 3) - 1)
        out.append(
            {
                **r,
                "full_log_cost_ratio": 0.0,
                "attent_log_cost_ratio": -0.6 + j,
                "random_log_cost_ratio": -0.3 - j,
                "attent_acc_gain": j,
            }
        )
    return out
