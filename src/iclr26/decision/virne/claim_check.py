"""Claim check of the Virne reproduction (arXiv 2507.19234): the brief's quick rule over harness seeds.

Per seed (paired: the same PN and test requests for every solver): gap = RAC(PPO-GCN) - RAC(NRM-Rank),
lrc_gap = LRC(PPO-GCN) - LRC(NRM-Rank), mask_gap = RAC(PPO-GCN masked) - RAC(PPO-GCN unmasked). 95% percentile
bootstrap intervals of the mean over seeds. SUPPORTED: mean gap >= 0.03 with its interval above 0, mean lrc_gap
>= 0, and mask_gap's interval above 0. NOT SUPPORTED: mean gap < 0 with its interval below 0. INCONCLUSIVE
otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Outcome, Verdict, decider
from iclr26.harness.stats import bootstrap_interval

__all__ = ["RAC_MARGIN", "virne_decider"]

RAC_MARGIN = 0.03


@decider(
    "rac_gap_gcn_nrm",
    "lrc_gap_gcn_nrm",
    "rac_gap_mask",
    description="PPO-GCN beats NRM-Rank by >= 0.03 RAC (CI > 0), LRC not lower, masking helps (CI > 0)",
)
def virne_decider(rows: Sequence[Mapping[str, float]]) -> Verdict:
    """The brief's supported / not supported / inconclusive rule (paired bootstrap over seeds)."""
    gap = np.array([float(r["rac_gap_gcn_nrm"]) for r in rows])
    lrc = np.array([float(r["lrc_gap_gcn_nrm"]) for r in rows])
    mask = np.array([float(r["rac_gap_mask"]) for r in rows])
    if not (np.all(np.isfinite(gap)) and np.all(np.isfinite(lrc)) and np.all(np.isfinite(mask))):
        return Verdict(Outcome.INCONCLUSIVE, "non-finite metrics in some seeds", n_seeds=len(rows))
    g = bootstrap_interval(gap)
    m = bootstrap_interval(mask)
    if not g.defined:
        return Verdict(Outcome.INCONCLUSIVE, "intervals need >= 2 seeds", g.estimate, None, g.n)
    if g.estimate < 0 and g.hi < 0:
        outcome = Outcome.NOT_SUPPORTED
    elif g.estimate >= RAC_MARGIN and g.lo > 0 and lrc.mean() >= 0 and m.lo > 0:
        outcome = Outcome.SUPPORTED
    else:
        outcome = Outcome.INCONCLUSIVE
    text = (
        f"RAC(PPO-GCN) - RAC(NRM) = {g.estimate:.3g} [{g.lo:.3g}, {g.hi:.3g}] (95% bootstrap, {g.n} seeds; need "
        f">= {RAC_MARGIN}, lower end > 0); LRC gap = {lrc.mean():.3g} (need >= 0); RAC(mask) - RAC(no mask) = "
        f"{m.estimate:.3g} [{m.lo:.3g}, {m.hi:.3g}] (need lower end > 0)"
    )
    return Verdict(outcome, text, g.estimate, (g.lo, g.hi), g.n)
