"""Claim rule of the ENS reproduction (OpenReview iZ7i2y1YxO), the brief's rule over harness seeds.

Per seed (one secret set, DiPmark base): ``tpr_gain_t50`` / ``tpr_gain_t100`` = TPR(n=3) - TPR(n=1) at z > 2.326
on the first 50 / 100 generated tokens; ``ttd_reduction`` = 1 - median tokens-to-detect(n=3) / median(n=1)
(z > 4); ``nll_rel_diff_n3`` = (NLL(ENS_3) - NLL(unwatermarked)) / NLL(unwatermarked), paired by prompt;
``exact_unbiased_err`` = max |E[ENS_2(P)] - P| over all 576 permutation pairs at V = 4.

95% Student-t intervals over seeds. Not supported: the exact test fails, the NLL interval excludes 0
(a significant quality shift), or the detection gains fail at both T = 50 and T = 100. Supported: the T = 50
gain >= 0.10 and the tokens-to-detect reduction >= 0.25, both intervals above 0, and |NLL shift| <= 1%.
Inconclusive: gains only at T = 100, an NLL shift over 1% that is not significant, or fewer than 2 seeds.
Ceiling guard (ours, not the brief's): when single-key DiPmark already detects more than 1 - 0.10 of the texts
at T = 50 (``tpr_dipmark_n1_t50``), a 10-point gain is impossible by construction and the T = 50 criterion
cannot decide; the verdict is then inconclusive unless the quality part fails (see the separate claims on
tokens-to-detect and quality, which have no ceiling).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Verdict, decider
from iclr26.harness.stats import Interval, t_interval

__all__ = ["EXACT_TOL", "MIN_TPR_GAIN", "MIN_TTD_REDUCTION", "NLL_TOL", "ens_decider", "quality_decider"]

MIN_TPR_GAIN = 0.10
MIN_TTD_REDUCTION = 0.25
NLL_TOL = 0.01
EXACT_TOL = 1e-12


def _passes(iv: Interval, minimum: float) -> bool:
    return iv.lo > 0 and iv.estimate >= minimum


def ens_decider() -> Decider:
    """The brief's supported / not supported / inconclusive rule for ENS_3 vs single-key DiPmark."""
    names = (
        "tpr_gain_t50",
        "tpr_gain_t100",
        "ttd_reduction",
        "nll_rel_diff_n3",
        "exact_unbiased_err",
        "tpr_dipmark_n1_t50",
    )

    @decider(*names, description="ENS_3 vs DiPmark: TPR@1%FPR gain at T=50, tokens-to-detect, NLL shift")
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        cols = {k: np.array([float(r[k]) for r in rows]) for k in names}
        if not all(np.all(np.isfinite(v)) for v in cols.values()):
            return Verdict(Outcome.INCONCLUSIVE, "non-finite metrics in some seeds", n_seeds=len(rows))
        g50, g100, drop, nll = (t_interval(cols[k]) for k in names[:4])
        exact = float(cols["exact_unbiased_err"].max())
        if not g50.defined:
            return Verdict(Outcome.INCONCLUSIVE, "intervals need >= 2 seeds", g50.estimate, None, g50.n)
        nll_shift = nll.lo > 0 or nll.hi < 0
        detect50 = _passes(g50, MIN_TPR_GAIN) and _passes(drop, MIN_TTD_REDUCTION)
        base50 = float(cols["tpr_dipmark_n1_t50"].mean())
        ceiling = base50 > 1.0 - MIN_TPR_GAIN
        if exact > EXACT_TOL or nll_shift:
            outcome = Outcome.NOT_SUPPORTED
        elif ceiling:
            outcome = Outcome.INCONCLUSIVE
        elif detect50 and abs(nll.estimate) <= NLL_TOL:
            outcome = Outcome.SUPPORTED
        elif detect50 or _passes(g100, MIN_TPR_GAIN):
            outcome = Outcome.INCONCLUSIVE
        else:
            outcome = Outcome.NOT_SUPPORTED
        text = (
            f"TPR gain at T=50 = {g50.estimate:.3g} [{g50.lo:.3g}, {g50.hi:.3g}] (need >= {MIN_TPR_GAIN}, > 0); "
            f"at T=100 = {g100.estimate:.3g} [{g100.lo:.3g}, {g100.hi:.3g}]; tokens-to-detect reduction = "
            f"{drop.estimate:.3g} [{drop.lo:.3g}, {drop.hi:.3g}] (need >= {MIN_TTD_REDUCTION}); relative NLL "
            f"shift = {nll.estimate:.3g} [{nll.lo:.3g}, {nll.hi:.3g}] (need |.| <= {NLL_TOL}, CI containing 0); "
            f"exact enumeration error = {exact:.2g}; single-key TPR at T=50 = {base50:.3g}"
            f"{' (ceiling: a 10-point gain is impossible)' if ceiling else ''}; 95% t over {g50.n} seeds"
        )
        return Verdict(outcome, text, g50.estimate, (g50.lo, g50.hi), g50.n)

    return decide


def quality_decider() -> Decider:
    """Quality part alone (an equivalence test): the relative NLL shift's interval lies within +-1%, exact test ok."""
    names = ("nll_rel_diff_n3", "exact_unbiased_err")

    @decider(*names, description="ENS_3 NLL shift vs unwatermarked within 1% (CI containing 0), exact test")
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        nll = np.array([float(r["nll_rel_diff_n3"]) for r in rows])
        exact = max(float(r["exact_unbiased_err"]) for r in rows)
        if not np.all(np.isfinite(nll)) or not np.isfinite(exact):
            return Verdict(Outcome.INCONCLUSIVE, "non-finite metrics in some seeds", n_seeds=len(rows))
        iv = t_interval(nll)
        if not iv.defined:
            return Verdict(Outcome.INCONCLUSIVE, "intervals need >= 2 seeds", iv.estimate, None, iv.n)
        if exact > EXACT_TOL or iv.lo > 0 or iv.hi < 0:
            outcome = Outcome.NOT_SUPPORTED
        elif -NLL_TOL <= iv.lo and iv.hi <= NLL_TOL:
            outcome = Outcome.SUPPORTED  # equivalence: the whole interval lies within the tolerance
        else:
            outcome = Outcome.INCONCLUSIVE  # no significant shift, but too few seeds to rule out a 1% one
        text = (
            f"relative NLL shift = {iv.estimate:.3g} [{iv.lo:.3g}, {iv.hi:.3g}] (95% t, {iv.n} seeds; supported "
            f"when the interval lies within +-{NLL_TOL}); exact enumeration error = {exact:.2g} "
            f"(need <= {EXACT_TOL:g})"
        )
        return Verdict(outcome, text, iv.estimate, (iv.lo, iv.hi), iv.n)

    return decide
