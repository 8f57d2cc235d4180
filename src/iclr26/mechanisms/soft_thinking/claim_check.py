"""Claim check of the soft-thinking reproduction (arXiv 2508.03440), the brief's rule over harness seeds.

Per seed: ``dom_agree`` = argmax agreement of the next step given the soft input and given its top-1 token alone,
over thinking steps with p_top1 < 0.8; ``js_top1_median`` / ``js_top2_median`` = medians of JS(soft, top-1) and
JS(soft, top-2) over the same steps; ``acc_greedy``, ``acc_soft``, ``acc_gumbel``, ``acc_sample`` = pass@1 of
each decoder (fractions). Means over seeds; 95% percentile bootstrap interval over seeds of gumbel - soft.

(a) greedy pitfall: mean dom_agree >= 0.9, mean js_top1_median < mean js_top2_median, |mean soft - greedy|
    <= 0.03; not supported if mean dom_agree < 0.7 (the model genuinely reads the soft input in parallel).
(b) randomness helps: gumbel - soft >= 0.03 with interval above 0, and mean gumbel - sample >= -0.01; not
    supported if the interval of gumbel - soft lies below 0.03 (the data exclude the claimed 3-point gain). An
    interval that merely contains 0 is inconclusive.
Supported: (a) and (b). Not supported: (a) or (b) refuted. Inconclusive otherwise. The parts are also judged
alone (:func:`part_decider`). Every claim is judged only when greedy decoding solves the tasks clearly above a
guessing baseline (:data:`LEARNED`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from iclr26.harness.claims import (
    Decider,
    Outcome,
    Precondition,
    Verdict,
    all_of,
    decider,
    effect_at_least,
)
from iclr26.harness.claims import (
    column as _col,
)
from iclr26.harness.claims import (
    seed_spread as _spread,
)
from iclr26.harness.stats import bootstrap_interval

__all__ = [
    "AGREE_MIN",
    "AGREE_PARALLEL",
    "GAIN_MIN",
    "GREEDY_TOL",
    "LEARNED",
    "LEARNED_MARGIN",
    "SAMPLE_TOL",
    "part_decider",
    "soft_thinking_decider",
]

AGREE_MIN = 0.9
AGREE_PARALLEL = 0.7
GREEDY_TOL = 0.03
GAIN_MIN = 0.03
SAMPLE_TOL = 0.01
LEARNED_MARGIN = 0.10

LEARNED = Precondition(
    "greedy_above_chance",
    ">=",
    LEARNED_MARGIN,
    "the GPT solves the tasks: greedy pass@1 at least 10 points above a guesser that copies start and goal and "
    "picks the DAG's middle node uniformly from its layer (the residue of a chain with chance 1/12)",
)

Rows = Sequence[Mapping[str, float]]


def _dominance_win(rows: list[dict[str, float]]) -> list[dict[str, float]]:
    return [
        {
            **r,
            "dom_agree": 0.95 + _spread(i),
            "js_top1_median": 0.01 + 0.1 * _spread(i),
            "js_top2_median": 0.6 + _spread(i),
            "acc_greedy": float(r["acc_soft"]) + _spread(i),
        }
        for i, r in enumerate(rows)
    ]


@decider(
    "dom_agree",
    "js_top1_median",
    "js_top2_median",
    "acc_soft",
    "acc_greedy",
    description="(a) top-1 dominance: agreement >= 0.9, JS to top-1 < JS to top-2, soft within 3 points of greedy",
    compares=[("js_top1_median", "js_top2_median", False)],
    synthesize=_dominance_win,
)
def _dominance(rows: Rows) -> Verdict:
    agree = float(_col(rows, "dom_agree").mean())
    js1, js2 = float(_col(rows, "js_top1_median").mean()), float(_col(rows, "js_top2_median").mean())
    gap = float((_col(rows, "acc_soft") - _col(rows, "acc_greedy")).mean())
    ok = agree >= AGREE_MIN and js1 < js2 and abs(gap) <= GREEDY_TOL
    outcome = (
        Outcome.SUPPORTED if ok else Outcome.NOT_SUPPORTED if agree < AGREE_PARALLEL else Outcome.INCONCLUSIVE
    )
    iv = bootstrap_interval(_col(rows, "dom_agree"))
    return Verdict(
        outcome,
        f"top-1 agreement (p_top1 < 0.8) = {agree:.3f} [{iv.lo:.3f}, {iv.hi:.3f}] (need >= {AGREE_MIN}; "
        f"< {AGREE_PARALLEL} refutes); median JS soft-top1 = {js1:.3f} vs soft-top2 = {js2:.3f}; soft - greedy = "
        f"{gap:+.3f} (need |.| <= {GREEDY_TOL})",
        iv.estimate,
        (iv.lo, iv.hi),
        len(rows),
    )


def _not_behind_sampling_win(rows: list[dict[str, float]]) -> list[dict[str, float]]:
    return [{**r, "acc_sample": float(r["acc_gumbel"]) - 0.05 + _spread(i)} for i, r in enumerate(rows)]


@decider(
    "acc_gumbel",
    "acc_sample",
    description="(b) Gumbel pass@1 not below sampling by more than 1 point (mean)",
    synthesize=_not_behind_sampling_win,
)
def _not_behind_sampling(rows: Rows) -> Verdict:
    vs = float((_col(rows, "acc_gumbel") - _col(rows, "acc_sample")).mean())
    return Verdict(
        Outcome.SUPPORTED if vs >= -SAMPLE_TOL else Outcome.INCONCLUSIVE,
        f"gumbel - sample = {vs:+.3f} (need >= {-SAMPLE_TOL}; never refutes)",
        vs,
        None,
        len(rows),
    )


def _gain() -> Decider:
    return effect_at_least("acc_gumbel", "acc_soft", support_at=GAIN_MIN, null=0.0, method="bootstrap")


def soft_thinking_decider() -> Decider:
    """The brief's combined rule: (a) greedy pitfall and (b) Gumbel randomisation beats vanilla soft thinking.

    The Gumbel gain comes first, so the claim's estimate is gumbel - soft with its bootstrap interval.
    """
    return all_of(_gain(), _not_behind_sampling, _dominance)


def part_decider(part: str) -> Decider:
    """Part 'a' (greedy pitfall; estimate = top-1 agreement) or 'b' (Gumbel gain; estimate = gumbel - soft)."""
    if part not in ("a", "b"):
        raise ValueError(f"part must be 'a' or 'b', got {part!r}")
    if part == "a":
        return _dominance
    return all_of(_gain(), _not_behind_sampling)
