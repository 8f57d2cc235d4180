"""Claim check of the HDLA reproduction: the brief's paired rule on MQAR accuracy, HDLA vs Gated DeltaNet.

Per seed, ``d = acc_hdla - acc_gdn`` (fractions; 0.03 = 3 points). Over seeds, with the paired 95% Student-t
interval of d (:func:`~iclr26.harness.claims.effect_at_least`):

* supported when the mean difference is >= 3 points and the interval lies above 0;
* not supported when the whole interval lies below 3 points (the data exclude the claimed gain);
* inconclusive otherwise, and whenever both mixers sit at the ceiling (mean accuracy >= 99%): the setting cannot
  separate them (a sanity part of :func:`~iclr26.harness.claims.all_of`).

The brief's floor (both mixers at <= chance + 5 points) is a precondition of the claim, checked per seed on
``acc_best_above_chance`` (the better mixer's accuracy minus chance): when it fails, the verdict is *not
reproduced at this budget* (:data:`LEARNED_PRECONDITION`).
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
    "CEILING",
    "CHANCE_MARGIN",
    "LEARNED_PRECONDITION",
    "MIN_GAIN_POINTS",
    "hdla_mqar_decider",
    "not_both_at_ceiling",
]

MIN_GAIN_POINTS = 3.0
CEILING = 0.99
CHANCE_MARGIN = 0.05

LEARNED_PRECONDITION = Precondition(
    "acc_best_above_chance",
    ">",
    CHANCE_MARGIN,
    "the better of HDLA and Gated DeltaNet recalls more than chance + 5 points (the brief's floor; chance = "
    "1 / number of value tokens)",
)


def not_both_at_ceiling(ours: str, baseline: str) -> Decider:
    """Sanity part: supported unless both mean accuracies are >= :data:`CEILING` (then inconclusive)."""

    def cap(rows: list[dict[str, float]]) -> list[dict[str, float]]:
        # a clear win needs headroom: keep the baseline well below the ceiling
        return [{**r, baseline: min(float(r[baseline]), 0.5)} for r in rows]

    @decider(ours, baseline, description=f"not both {ours} and {baseline} >= {CEILING:.0%}", synthesize=cap)
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        a = float(np.mean([float(r[ours]) for r in rows]))
        b = float(np.mean([float(r[baseline]) for r in rows]))
        at_ceiling = a >= CEILING and b >= CEILING
        return Verdict(
            Outcome.INCONCLUSIVE if at_ceiling else Outcome.SUPPORTED,
            f"{'both' if at_ceiling else 'not both'} at the ceiling (>= {CEILING:.0%}): {ours} = {a:.3f}, "
            f"{baseline} = {b:.3f}",
            min(a, b),
            None,
            len(rows),
        )

    return decide


def hdla_mqar_decider(ours: str, baseline: str) -> Decider:
    """The brief's rule on the accuracies `ours` and `baseline` (fractions)."""
    gain = MIN_GAIN_POINTS / 100.0
    return all_of(
        effect_at_least(ours, baseline, support_at=gain, null=0.0),
        sanity=[not_both_at_ceiling(ours, baseline)],
    )
