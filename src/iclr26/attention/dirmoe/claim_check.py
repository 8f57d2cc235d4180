"""Claim check of the DirMoE reproduction (OpenReview a15cDnzr6r): the brief's three-part rule over seeds.

Per seed: the validation losses and token-level domain/expert-set NMIs of DirMoE and top-k softmax, and DirMoE's
mean number of active experts at inference. The rule is ``all_of`` three parts:

* (i) quality (:func:`quality_decider`): mean(loss_dirmoe - loss_topk) <= 0.02 nats holds; > 0.07 (fails by
  more than 0.05) refutes; inconclusive in between. Non-inferiority: DirMoE equal to top-k passes;
* (ii) specialisation, :func:`~iclr26.harness.claims.effect_at_least` on NMI_dirmoe - NMI_topk: mean >= 0.05
  with the paired 95% t-interval above 0 holds; the whole interval below 0 refutes;
* (iii) sparsity control (:func:`sparsity_decider`): |mean active experts - k| <= 0.25 holds; never refutes.

Supported if all three hold; not supported if (i) or (ii) is refuted; inconclusive otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Verdict, all_of, decider, effect_at_least

__all__ = [
    "ACTIVE_TOL",
    "LOSS_FAIL",
    "LOSS_SLACK",
    "NMI_GAIN",
    "dirmoe_decider",
    "quality_decider",
    "sparsity_decider",
]

LOSS_SLACK = 0.02
LOSS_FAIL = LOSS_SLACK + 0.05
NMI_GAIN = 0.05
ACTIVE_TOL = 0.25


def quality_decider(la: str, lb: str) -> Decider:
    """(i): mean loss gap ``la - lb`` <= LOSS_SLACK holds, > LOSS_FAIL refutes, else inconclusive."""

    def synthesize(rows: list[dict[str, float]]) -> list[dict[str, float]]:
        return [{**r, la: float(r[lb]) - 0.01 * (1 + 0.1 * (i % 3))} for i, r in enumerate(rows)]

    @decider(la, lb, description=f"mean({la} - {lb}) <= {LOSS_SLACK} nats", synthesize=synthesize)
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        gap = float(np.mean([float(r[la]) - float(r[lb]) for r in rows]))
        outcome = (
            Outcome.SUPPORTED
            if gap <= LOSS_SLACK
            else Outcome.NOT_SUPPORTED
            if gap > LOSS_FAIL
            else Outcome.INCONCLUSIVE
        )
        return Verdict(
            outcome,
            f"loss gap {la} - {lb} = {gap:+.4f} nats (need <= {LOSS_SLACK}; refuted > {LOSS_FAIL})",
            gap,
            None,
            len(rows),
        )

    return decide


def sparsity_decider(active: str, k: float) -> Decider:
    """(iii): the mean active experts at inference lie within ``k +- ACTIVE_TOL`` (never refutes)."""

    def synthesize(rows: list[dict[str, float]]) -> list[dict[str, float]]:
        return [{**r, active: k + 0.01 * ((i % 3) - 1)} for i, r in enumerate(rows)]

    @decider(active, description=f"|mean {active} - {k:g}| <= {ACTIVE_TOL}", synthesize=synthesize)
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        mean = float(np.mean([float(r[active]) for r in rows]))
        ok = abs(mean - k) <= ACTIVE_TOL
        return Verdict(
            Outcome.SUPPORTED if ok else Outcome.INCONCLUSIVE,
            f"mean active experts = {mean:.3f} (need {k:g} +- {ACTIVE_TOL})",
            mean,
            None,
            len(rows),
        )

    return decide


def dirmoe_decider(k: float = 2.0, method: str = "dirmoe", baseline: str = "topk") -> Decider:
    """The brief's supported / not supported / inconclusive rule for `method` against `baseline` at target `k`."""
    return all_of(
        quality_decider(f"{method}_val_loss", f"{baseline}_val_loss"),
        effect_at_least(f"{method}_nmi", f"{baseline}_nmi", support_at=NMI_GAIN, null=0.0, refute_below=0.0),
        sparsity_decider(f"{method}_active", k),
    )
