"""Claim check of the DirMoE reproduction (OpenReview a15cDnzr6r): the brief's three-part rule over seeds.

Per seed: the validation losses and token-level domain/expert-set NMIs of DirMoE and top-k softmax, and DirMoE's
mean number of active experts at inference.

* (i) quality: mean(loss_dirmoe - loss_topk) <= 0.02 nats;
* (ii) specialisation: mean(NMI_dirmoe - NMI_topk) >= 0.05 with the paired 95% t-interval above 0;
* (iii) sparsity control: |mean active experts - k| <= 0.25.

Supported if all three hold. Not supported if (i) fails by more than 0.05 nats (mean loss gap > 0.07) or the
interval of (ii) lies entirely below 0. Inconclusive otherwise (including fewer than 2 seeds).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Verdict, decider
from iclr26.harness.stats import t_interval

__all__ = ["ACTIVE_TOL", "LOSS_FAIL", "LOSS_SLACK", "NMI_GAIN", "dirmoe_decider"]

LOSS_SLACK = 0.02
LOSS_FAIL = LOSS_SLACK + 0.05
NMI_GAIN = 0.05
ACTIVE_TOL = 0.25


def dirmoe_decider(k: float = 2.0, method: str = "dirmoe", baseline: str = "topk") -> Decider:
    """The brief's supported / not supported / inconclusive rule for `method` against `baseline` at target `k`."""
    la, lb = f"{method}_val_loss", f"{baseline}_val_loss"
    na, nb = f"{method}_nmi", f"{baseline}_nmi"
    act = f"{method}_active"

    @decider(
        la,
        lb,
        na,
        nb,
        act,
        description=f"loss gap <= {LOSS_SLACK}, NMI gain >= {NMI_GAIN} (t-interval > 0), |active - {k}| <= {ACTIVE_TOL}",
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        col = {m: np.array([float(r[m]) for r in rows]) for m in (la, lb, na, nb, act)}
        if not all(np.all(np.isfinite(v)) for v in col.values()):
            return Verdict(Outcome.INCONCLUSIVE, "non-finite metrics in some seeds", n_seeds=len(rows))
        loss_gap = float((col[la] - col[lb]).mean())
        active = float(col[act].mean())
        iv = t_interval(col[na] - col[nb])
        if not iv.defined:
            return Verdict(Outcome.INCONCLUSIVE, "the NMI interval needs >= 2 seeds", iv.estimate, None, iv.n)
        quality = loss_gap <= LOSS_SLACK
        special = iv.estimate >= NMI_GAIN and iv.lo > 0
        sparse = abs(active - k) <= ACTIVE_TOL
        if loss_gap > LOSS_FAIL or iv.hi < 0:
            outcome = Outcome.NOT_SUPPORTED
        elif quality and special and sparse:
            outcome = Outcome.SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        text = (
            f"(i) loss gap {method}-{baseline} = {loss_gap:+.4f} nats (need <= {LOSS_SLACK}; refuted > {LOSS_FAIL}): "
            f"{'holds' if quality else 'fails'}; (ii) NMI gain = {iv.estimate:+.4f} [{iv.lo:+.4f}, {iv.hi:+.4f}] "
            f"(95% t, {iv.n} seeds; need >= {NMI_GAIN} and lower end > 0): {'holds' if special else 'fails'}; "
            f"(iii) mean active experts = {active:.3f} (need {k:g} +- {ACTIVE_TOL}): {'holds' if sparse else 'fails'}"
        )
        return Verdict(outcome, text, iv.estimate, (iv.lo, iv.hi), iv.n)

    return decide
