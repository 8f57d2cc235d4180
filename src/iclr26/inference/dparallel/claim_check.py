"""Claim check of the dParallel reproduction (arXiv 2509.26488): the brief's rule over harness seeds.

Per seed, at the step budget NFE <= gen_len / 4 (the threshold chosen on a validation set):

* ``drop = acc_teacher_1tok - acc_dparallel_budget`` (points; the teacher decodes one token per call),
* ``gain = acc_dparallel_budget - acc_ce_budget`` (points; the CE-only ablation, beta = 0, at the same budget).

95% Student-t intervals over seeds of the paired differences. Supported: mean drop <= 2, the interval of
``-drop`` has lower end >= -4, mean gain >= 3 and the gain interval lies above 0. Not supported: mean drop > 5,
or the gain interval reaches 0 or below (the ablation matches or beats dParallel). Inconclusive otherwise, and
whenever dParallel's mean test NFE exceeds the budget by more than 10%.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Verdict, decider
from iclr26.harness.stats import t_interval

__all__ = ["ABLATION_GAIN", "MAX_DROP", "MAX_DROP_LO", "REFUTE_DROP", "dparallel_decider"]

MAX_DROP = 2.0  # points
MAX_DROP_LO = -4.0  # lower end of the interval of (dParallel - teacher)
ABLATION_GAIN = 3.0  # points
REFUTE_DROP = 5.0  # points
NFE_SLACK = 1.10


def dparallel_decider(budget_nfe: float | None = None) -> Decider:
    """The brief's supported / not supported / inconclusive rule (module docstring).

    ``budget_nfe`` (gen_len / 4) enables the NFE guard; the per-seed ``budget_nfe`` metric is used when None.
    """
    a, b, c, n = "acc_teacher_1tok", "acc_dparallel_budget", "acc_ce_budget", "nfe_dparallel_budget"

    @decider(
        a, b, c, n, "budget_nfe", description="dParallel at NFE <= gen_len/4 vs teacher 1 tok/call and CE"
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        cols = {k: np.array([float(r[k]) for r in rows]) for k in (a, b, c, n, "budget_nfe")}
        if not all(np.all(np.isfinite(v)) for v in cols.values()):
            return Verdict(Outcome.INCONCLUSIVE, "non-finite metrics in some seeds", n_seeds=len(rows))
        diff = 100.0 * (cols[b] - cols[a])  # dParallel - teacher, points
        gain = 100.0 * (cols[b] - cols[c])  # dParallel - CE-only, points
        iv_d, iv_g = t_interval(diff), t_interval(gain)
        if not (iv_d.defined and iv_g.defined):
            return Verdict(Outcome.INCONCLUSIVE, "intervals need >= 2 seeds", iv_d.estimate, None, iv_d.n)
        budget = float(budget_nfe) if budget_nfe is not None else float(cols["budget_nfe"].mean())
        nfe = float(cols[n].mean())
        drop = -iv_d.estimate
        if drop > REFUTE_DROP or iv_g.lo <= 0.0:
            outcome = Outcome.NOT_SUPPORTED
        elif drop <= MAX_DROP and iv_d.lo >= MAX_DROP_LO and iv_g.estimate >= ABLATION_GAIN:
            outcome = Outcome.SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        note = ""
        if nfe > NFE_SLACK * budget:
            outcome, note = Outcome.INCONCLUSIVE, f"; guard failed: mean NFE {nfe:.3g} > {NFE_SLACK} x budget"
        text = (
            f"dParallel - teacher(1 tok/call) = {iv_d.estimate:+.3g} pts [{iv_d.lo:.3g}, {iv_d.hi:.3g}] "
            f"(need drop <= {MAX_DROP:g}, lower end >= {MAX_DROP_LO:g}); dParallel - CE-only = "
            f"{iv_g.estimate:+.3g} pts [{iv_g.lo:.3g}, {iv_g.hi:.3g}] (need >= {ABLATION_GAIN:g}, above 0); "
            f"mean NFE {nfe:.3g} vs budget {budget:.3g} (95% t, {iv_d.n} seeds){note}"
        )
        return Verdict(outcome, text, iv_d.estimate, (iv_d.lo, iv_d.hi), iv_d.n)

    return decide
