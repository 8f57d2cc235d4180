"""Claim rules of the ENS reproduction (OpenReview iZ7i2y1YxO), the brief's rule over harness seeds.

Every rule reads the per-method metrics and forms its differences itself. Per seed (one secret set, DiPmark
base, ENS with ``n`` keys against the single key): the TPR gain at z > 2.326 on the first 50 / 100 generated
tokens, ``tpr_dipmark_n{n}_t{T} - tpr_dipmark_n1_t{T}``; the tokens-to-detect reduction,
``1 - ttd_median_dipmark_n{n} / ttd_median_dipmark_n1`` (median tokens until z > 4); the relative NLL shift,
``(nll_dipmark_n{n} - nll_plain) / nll_plain`` (means over the same prompts); ``exact_unbiased_err`` = max
|E[ENS_2(P)] - P| over all 576 permutation pairs at V = 4.

95% Student-t intervals over seeds. Main rule (:func:`ens_decider`):

- not supported: the exact test fails or the NLL interval excludes 0 (a significant quality shift);
- inconclusive: single-key DiPmark already detects more than 1 - 0.10 of the texts at T = 50 (ceiling guard,
  ours: a 10-point gain is then impossible by construction);
- supported: the T = 50 gain >= 0.10 and the reduction >= 0.25, both intervals above 0, and |NLL shift| <= 1%;
- inconclusive: the T = 50 criteria pass but the NLL shift is over 1% (not significantly), or the gain appears
  only at T = 100;
- not supported: the data exclude the claimed detection gain at T = 50 (the gain interval lies below 0.10 or
  the reduction interval below 0.25) and no gain appears at T = 100;
- inconclusive otherwise. (The brief also refuted a gain whose interval merely contains 0; an interval that still
  contains the claimed effect is no evidence against it, so that case is inconclusive here.)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Comparison, Decider, Outcome, Rows, Verdict, decider
from iclr26.harness.stats import Interval, t_interval

__all__ = [
    "EXACT_TOL",
    "MIN_TPR_GAIN",
    "MIN_TTD_REDUCTION",
    "NLL_TOL",
    "ens_decider",
    "quality_decider",
    "ttd_decider",
]

MIN_TPR_GAIN = 0.10
MIN_TTD_REDUCTION = 0.25
NLL_TOL = 0.01
EXACT_TOL = 1e-12


def _passes(iv: Interval, minimum: float) -> bool:
    return iv.lo > 0 and iv.estimate >= minimum


def _col(rows: Sequence[Mapping[str, float]], m: str) -> np.ndarray:
    return np.array([float(r[m]) for r in rows])


def _names(n: int, base: str) -> dict[str, str]:
    return {
        "tpr50": f"tpr_{base}_n{n}_t50",
        "tpr50_1": f"tpr_{base}_n1_t50",
        "tpr100": f"tpr_{base}_n{n}_t100",
        "tpr100_1": f"tpr_{base}_n1_t100",
        "ttd": f"ttd_median_{base}_n{n}",
        "ttd_1": f"ttd_median_{base}_n1",
        "nll": f"nll_{base}_n{n}",
        "nll_plain": "nll_plain",
        "exact": "exact_unbiased_err",
    }


def _reduction(rows: Sequence[Mapping[str, float]], k: dict[str, str]) -> np.ndarray:
    return 1.0 - _col(rows, k["ttd"]) / _col(rows, k["ttd_1"])


def _nll_shift(rows: Sequence[Mapping[str, float]], k: dict[str, str]) -> np.ndarray:
    return (_col(rows, k["nll"]) - _col(rows, k["nll_plain"])) / _col(rows, k["nll_plain"])


def _unbiased(rows: Rows, k: dict[str, str]) -> Rows:
    """NLL within +-1e-4 (relative) of the unwatermarked one, around 0, and an exact enumeration."""
    return [
        {**r, k["nll"]: float(r[k["nll_plain"]]) * (1.0 + 1e-4 * ((i % 3) - 1)), k["exact"]: 0.0}
        for i, r in enumerate(rows)
    ]


def ens_decider(n: int = 3, base: str = "dipmark") -> Decider:
    """The brief's supported / not supported / inconclusive rule for ENS_n vs single-key `base`."""
    k = _names(n, base)

    def win(rows: Rows) -> Rows:
        out = []
        for i, r in enumerate(rows):
            j = 0.01 * ((i % 3) - 1)
            out.append(
                {
                    **r,
                    k["tpr50_1"]: 0.5 + j,
                    k["tpr50"]: 0.8 + j,
                    k["tpr100_1"]: 0.6 + j,
                    k["tpr100"]: 0.9 + j,
                    k["ttd_1"]: 40.0,
                    k["ttd"]: 20.0 + 10 * j,
                }
            )
        return _unbiased(out, k)

    @decider(
        *k.values(),
        description=f"ENS_{n} vs {base}: TPR@1%FPR gain at T=50, tokens-to-detect, NLL shift",
        compares=[Comparison(k["tpr50"], k["tpr50_1"], True), Comparison(k["ttd"], k["ttd_1"], False)],
        synthesize=win,
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        g50 = t_interval(_col(rows, k["tpr50"]) - _col(rows, k["tpr50_1"]))
        g100 = t_interval(_col(rows, k["tpr100"]) - _col(rows, k["tpr100_1"]))
        drop = t_interval(_reduction(rows, k))
        nll = t_interval(_nll_shift(rows, k))
        exact = float(_col(rows, k["exact"]).max())
        nll_shift = nll.lo > 0 or nll.hi < 0
        detect50 = _passes(g50, MIN_TPR_GAIN) and _passes(drop, MIN_TTD_REDUCTION)
        refuted50 = g50.hi < MIN_TPR_GAIN or drop.hi < MIN_TTD_REDUCTION
        base50 = float(_col(rows, k["tpr50_1"]).mean())
        ceiling = base50 > 1.0 - MIN_TPR_GAIN
        if exact > EXACT_TOL or nll_shift:
            outcome = Outcome.NOT_SUPPORTED
        elif ceiling:
            outcome = Outcome.INCONCLUSIVE
        elif detect50 and abs(nll.estimate) <= NLL_TOL:
            outcome = Outcome.SUPPORTED
        elif detect50 or _passes(g100, MIN_TPR_GAIN):
            outcome = Outcome.INCONCLUSIVE
        elif refuted50:
            outcome = Outcome.NOT_SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
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


def ttd_decider(n: int = 3, base: str = "dipmark", minimum: float = MIN_TTD_REDUCTION) -> Decider:
    """ENS_n needs >= `minimum` fewer tokens (median, z > 4) than one key: supported when the interval of the
    per-seed reduction lies above `minimum`, not supported when it lies below, inconclusive otherwise."""
    k = _names(n, base)

    def win(rows: Rows) -> Rows:
        return [{**r, k["ttd_1"]: 40.0, k["ttd"]: 10.0 + 0.1 * ((i % 3) - 1)} for i, r in enumerate(rows)]

    @decider(
        k["ttd"],
        k["ttd_1"],
        description=f"1 - ttd(ENS_{n}) / ttd({base}) > {minimum}",
        compares=[Comparison(k["ttd"], k["ttd_1"], False)],
        synthesize=win,
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        iv = t_interval(_reduction(rows, k))
        outcome = (
            Outcome.SUPPORTED
            if iv.lo > minimum
            else Outcome.NOT_SUPPORTED
            if iv.hi < minimum
            else Outcome.INCONCLUSIVE
        )
        return Verdict(
            outcome,
            f"tokens-to-detect reduction 1 - {k['ttd']} / {k['ttd_1']} = {iv.estimate:.4g} [{iv.lo:.4g}, "
            f"{iv.hi:.4g}] (95% t, {iv.n} seeds); claimed > {minimum:.4g}",
            iv.estimate,
            (iv.lo, iv.hi),
            iv.n,
        )

    return decide


def quality_decider(n: int = 3, base: str = "dipmark") -> Decider:
    """Quality part alone (an equivalence test): the relative NLL shift's interval lies within +-1%, exact test ok.

    Not supported when the exact test fails or the interval excludes 0 (a significant shift); supported when
    the whole interval lies within +-1%; inconclusive otherwise (no significant shift, but the interval is too
    wide to rule out a 1% one). ENS_n equal to unwatermarked sampling passes: there is no baseline to beat.
    """
    k = _names(n, base)

    @decider(
        k["nll"],
        k["nll_plain"],
        k["exact"],
        description=f"ENS_{n} NLL shift vs unwatermarked within 1% (CI containing 0), exact test",
        synthesize=lambda rows: _unbiased(rows, k),
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        iv = t_interval(_nll_shift(rows, k))
        exact = float(_col(rows, k["exact"]).max())
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
