"""Claim check of the denoising-heads reproduction (arXiv 2509.21012): the brief's rule over seeds.

Per seed: ``acc_zero`` (zero-shot intended-task accuracy), ``acc_filter`` / ``acc_random`` (with the learned /
a random rank-r filter), ``acc_8shot`` (the learning precondition), ``offsub_8shot`` / ``offsub_zero`` (mean
off-subspace ratio of 8-shot / zero-shot query states) with ``offsub_diff_half`` (half-width of the 95% t
interval of their difference, paired over queries), ``drop_top`` / ``drop_rand`` (8-shot accuracy drop when
ablating the top-2 / 2 random heads), ``drop_top_absent`` / ``drop_top_present``.

* not reproduced if 8-shot accuracy < 0.85 in some seed (:data:`LEARNED`: the analogue did not learn the tasks);
* (1) filter: supported if mean acc_zero <= 0.40, mean acc_filter >= 0.80 and mean (acc_filter - acc_random)
  >= 0.30; not supported otherwise;
* (2) removal: supported if in every seed the query-paired 95% upper bound of offsub_8shot - offsub_zero is < 0;
  inconclusive otherwise;
* (3a) denoising heads: supported if mean (drop_top - drop_rand) >= 0.15; not supported if its 95% t interval
  over seeds lies below 0.15 (the data exclude the claimed effect); inconclusive otherwise;
* (3b) label absent: supported if the 95% t interval of (drop_top_absent - drop_top_present) lies above 0;
  inconclusive otherwise;
* the claim: supported if every part is; not supported if (1) or (3a) is; inconclusive otherwise.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Precondition, Verdict, all_of, decider, effect_at_least
from iclr26.harness.claims import column as _col
from iclr26.harness.claims import seed_spread as _spread

__all__ = ["ACC_GATE", "LEARNED", "denoising_claim_decider"]

ACC_GATE = 0.85
ZERO_MAX = 0.40
FILTER_MIN = 0.80
FILTER_MARGIN = 0.30
ABLATION_MARGIN = 0.15

LEARNED = Precondition(
    "acc_8shot",
    ">=",
    ACC_GATE,
    "the GPT learned the tasks in context: 8-shot accuracy >= 0.85, the brief's learning gate (chance is 1/8)",
)

Rows = Sequence[Mapping[str, float]]


def _filter_win(rows: list[dict[str, float]]) -> list[dict[str, float]]:
    return [
        {**r, "acc_zero": 0.25 + _spread(i), "acc_filter": 0.95 + _spread(i), "acc_random": 0.15 - _spread(i)}
        for i, r in enumerate(rows)
    ]


@decider(
    "acc_zero",
    "acc_filter",
    "acc_random",
    description="(1) zero-shot <= 0.40, filtered >= 0.80, filtered - random >= 0.30 (means)",
    compares=[("acc_filter", "acc_random", True), ("acc_filter", "acc_zero", True)],
    synthesize=_filter_win,
)
def _filter_part(rows: Rows) -> Verdict:
    zero, filt = _col(rows, "acc_zero").mean(), _col(rows, "acc_filter").mean()
    gap = float((_col(rows, "acc_filter") - _col(rows, "acc_random")).mean())
    ok = zero <= ZERO_MAX and filt >= FILTER_MIN and gap >= FILTER_MARGIN
    return Verdict(
        Outcome.SUPPORTED if ok else Outcome.NOT_SUPPORTED,
        f"zero-shot acc {zero:.3f} (need <= {ZERO_MAX}), filtered {filt:.3f} (need >= {FILTER_MIN}), "
        f"filtered - random {gap:.3f} (need >= {FILTER_MARGIN})",
        gap,
        None,
        len(rows),
    )


def _removal_win(rows: list[dict[str, float]]) -> list[dict[str, float]]:
    return [
        {
            **r,
            "offsub_zero": 0.7 + _spread(i),
            "offsub_8shot": 0.45 - _spread(i),
            "offsub_diff_half": 0.02 + _spread(i) * 0.1,
        }
        for i, r in enumerate(rows)
    ]


@decider(
    "offsub_8shot",
    "offsub_zero",
    "offsub_diff_half",
    description="(2) 8-shot off-subspace ratio below zero-shot in every seed (query-paired upper bound < 0)",
    compares=[("offsub_8shot", "offsub_zero", False)],
    synthesize=_removal_win,
)
def _removal_part(rows: Rows) -> Verdict:
    upper = _col(rows, "offsub_8shot") - _col(rows, "offsub_zero") + _col(rows, "offsub_diff_half")
    ok = bool(np.all(upper < 0))
    return Verdict(
        Outcome.SUPPORTED if ok else Outcome.INCONCLUSIVE,
        f"query-paired 95% upper bound of 8-shot - zero-shot off-subspace ratio per seed "
        f"{np.round(upper, 4).tolist()} (need all < 0)",
        float(upper.max()),
        None,
        len(rows),
    )


def denoising_claim_decider() -> Decider:
    """The brief's supported / not supported / inconclusive rule on the per-seed metrics above.

    The ablation part comes first, so the claim's estimate is mean (drop_top - drop_rand) with its interval.
    """
    heads = effect_at_least(
        "drop_top",
        "drop_rand",
        support_at=ABLATION_MARGIN,
        null=-math.inf,  # the brief asks only the mean to reach 15 points; the interval decides refutation
    )
    absent = effect_at_least(
        "drop_top_absent",
        "drop_top_present",
        support_at=0.0,
        refute_below=-math.inf,  # the brief never refutes on this part: inconclusive unless the interval > 0
    )
    return all_of(heads, _filter_part, _removal_part, absent)
