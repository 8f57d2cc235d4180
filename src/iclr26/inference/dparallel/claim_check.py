"""Claim check of the dParallel reproduction (arXiv 2509.26488): the brief's rule over harness seeds.

Per seed, at the step budget NFE <= gen_len / 4 (the threshold chosen on a validation set), from the per-model
accuracies:

* ``drop = acc_teacher_1tok - acc_dparallel_budget`` (points; the teacher decodes one token per call),
* ``gain = acc_dparallel_budget - acc_ce_budget`` (points; the CE-only ablation, beta = 0, at the same budget).

95% Student-t intervals over seeds of the paired differences. Supported: mean drop <= 2, the interval of
``-drop`` has lower end >= -4, and the gain clears the three-way effect rule (mean >= 3 points with its interval
above 0). Not supported: mean drop > 5, or the whole gain interval lies below 3 points (the data exclude the
claimed ablation effect). Inconclusive otherwise, and whenever dParallel's mean test NFE exceeds the budget by
more than 10%.

The brief also refuted the claim when the gain interval merely reached 0 (the ablation "matches"); an interval
that still contains the claimed 3 points is no evidence against it, so that case is inconclusive here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Comparison, Decider, Outcome, Rows, Verdict, decider, effect_at_least
from iclr26.harness.stats import t_interval

__all__ = ["ABLATION_GAIN", "MAX_DROP", "MAX_DROP_LO", "REFUTE_DROP", "dparallel_decider"]

MAX_DROP = 2.0  # points
MAX_DROP_LO = -4.0  # lower end of the interval of (dParallel - teacher)
ABLATION_GAIN = 3.0  # points
REFUTE_DROP = 5.0  # points
NFE_SLACK = 1.10


def dparallel_decider(budget_nfe: float | None = None) -> Decider:
    """The rule of the module docstring.

    ``budget_nfe`` (gen_len / 4) enables the NFE guard; the per-seed ``budget_nfe`` metric is used when None.
    """
    a, b, c, n = "acc_teacher_1tok", "acc_dparallel_budget", "acc_ce_budget", "nfe_dparallel_budget"
    # the ablation clause: the three-way effect rule on accuracy fractions (3 points = 0.03)
    gain_rule = effect_at_least(b, c, support_at=ABLATION_GAIN / 100.0)

    def win(rows: Rows) -> Rows:
        """dParallel at the teacher's accuracy, 10 points above CE-only, at half the NFE budget."""
        out = []
        for i, r in enumerate(rows):
            j = 1e-3 * ((i % 3) - 1)
            acc = float(r[a]) + j
            out.append({**r, b: acc, c: acc - 0.10 + j, n: 0.5 * float(r["budget_nfe"])})
        return out

    @decider(
        a,
        b,
        c,
        n,
        "budget_nfe",
        description="dParallel at NFE <= gen_len/4 vs teacher 1 tok/call and CE",
        compares=[Comparison(b, c, True)],
        synthesize=win,
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        cols = {k: np.array([float(r[k]) for r in rows]) for k in (a, b, c, n, "budget_nfe")}
        iv_d = t_interval(100.0 * (cols[b] - cols[a]))  # dParallel - teacher, points
        gain = gain_rule(rows)
        g_lo, g_hi = (100.0 * v for v in gain.interval) if gain.interval else (float("nan"),) * 2
        budget = float(budget_nfe) if budget_nfe is not None else float(cols["budget_nfe"].mean())
        nfe = float(cols[n].mean())
        drop = -iv_d.estimate
        if drop > REFUTE_DROP or gain.outcome is Outcome.NOT_SUPPORTED:
            outcome = Outcome.NOT_SUPPORTED
        elif drop <= MAX_DROP and iv_d.lo >= MAX_DROP_LO and gain.outcome is Outcome.SUPPORTED:
            outcome = Outcome.SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        note = ""
        if nfe > NFE_SLACK * budget:
            outcome, note = Outcome.INCONCLUSIVE, f"; guard failed: mean NFE {nfe:.3g} > {NFE_SLACK} x budget"
        text = (
            f"dParallel - teacher(1 tok/call) = {iv_d.estimate:+.3g} pts [{iv_d.lo:.3g}, {iv_d.hi:.3g}] "
            f"(need drop <= {MAX_DROP:g}, lower end >= {MAX_DROP_LO:g}; refuted at a drop > {REFUTE_DROP:g}); "
            f"dParallel - CE-only = {100.0 * gain.estimate:+.3g} pts [{g_lo:.3g}, {g_hi:.3g}] (need >= "
            f"{ABLATION_GAIN:g} with the interval above 0; refuted when it lies below {ABLATION_GAIN:g}); "
            f"mean NFE {nfe:.3g} vs budget {budget:.3g} (95% t, {iv_d.n} seeds){note}"
        )
        return Verdict(outcome, text, iv_d.estimate, (iv_d.lo, iv_d.hi), iv_d.n)

    return decide
