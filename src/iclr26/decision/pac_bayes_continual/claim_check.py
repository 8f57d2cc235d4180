"""Claim checks of the cumulative-loss reproduction (OpenReview hWw269fPov): the brief's rule over seeds.

:func:`certificate_decider` (per seed: ``perm_vi_cul``, ``perm_vi_bound`` and the over-parameterised relative
gaps ``reg_overparam_<scenario>_relgap``):

(a) validity and non-vacuity (:func:`certificate_holds`): cul <= bound and bound < 1 in every seed; a seed
    where the certificate equals the loss exactly (zero slack, which a PAC-Bayes bound's positive complexity
    term excludes) makes (a) inconclusive rather than supported;
(b) tightness: the 95% Student-t upper end of mean(bound - cul) is <= 0.25;
(c) oracle: for i.i.d., alternating and switch, the 95% bootstrap interval over seeds of the relative gap lies in
    [-0.1, 0.1].

Not supported if (a) fails in any seed; supported if (a), (b) and (c) hold; inconclusive otherwise.
:func:`oracle_decider` judges (c) alone: supported if every interval lies inside [-0.1, 0.1], not supported if
some interval lies entirely outside it, inconclusive otherwise.

Preconditions (:data:`PERM_LEARNED`, :data:`SPLIT_LEARNED`): VI learned the tasks, its (1/T) CuL at least 10
points below the chance 0-1 risk, since a posterior that stayed at its prior gets a small certificate for free.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import (
    Comparison,
    Decider,
    Outcome,
    Precondition,
    Rows,
    Verdict,
    combine_outcomes,
    decider,
)
from iclr26.harness.claims import (
    column as _col,
)
from iclr26.harness.stats import bootstrap_interval, t_interval

__all__ = [
    "GAP_MAX",
    "ORACLE_TOL",
    "PERM_LEARNED",
    "SCENARIOS_JUDGED",
    "SPLIT_LEARNED",
    "certificate_decider",
    "certificate_holds",
    "oracle_decider",
]

GAP_MAX = 0.25
ORACLE_TOL = 0.1
SCENARIOS_JUDGED = ("iid", "alternating", "switch")
_REL = [f"reg_overparam_{s}_relgap" for s in SCENARIOS_JUDGED]

PERM_LEARNED = Precondition(
    "perm_vi_cul",
    "<=",
    0.8,
    "VI learned the permuted tasks: its (1/T) CuL (mean true 0-1 risk) is at least 10 points below chance "
    "(0.9 for 10 classes); a posterior left at its prior would get a small certificate for free",
)
SPLIT_LEARNED = Precondition(
    "split_vi_cul",
    "<=",
    0.4,
    "VI learned the split tasks: its (1/T) CuL (mean true 0-1 risk) is at least 10 points below chance "
    "(0.5 for the binary tasks); a posterior left at its prior would get a small certificate for free",
)

PerSeed = Sequence[Mapping[str, float]]


def _jitter(i: int, scale: float) -> float:
    return scale * 1e-2 * ((i % 3) - 1)


def certificate_holds(cul: str, bound: str) -> Decider:
    """(a): the certificate `bound` covers the loss `cul` and is non-vacuous (< 1, 0-1 loss) in every seed.

    Not supported when some seed has ``cul > bound`` (violated) or ``bound >= 1`` (vacuous); supported when
    every seed has ``cul < bound < 1``; inconclusive when the certificate equals the loss in some seed.
    """

    def synthesize(rows: Rows) -> Rows:  # a learned loss of 0.2 under a certificate of 0.4
        return [{**r, cul: 0.2 + _jitter(i, 0.2), bound: 0.4 + _jitter(i, 0.2)} for i, r in enumerate(rows)]

    @decider(
        cul,
        bound,
        description=f"{cul} <= {bound} < 1 in every seed",
        compares=[Comparison(bound, cul, True)],
        synthesize=synthesize,
    )
    def fn(rows: PerSeed) -> Verdict:
        loss, cert = _col(rows, cul), _col(rows, bound)
        n = len(rows)
        violated, vacuous, tight = (
            int(np.sum(loss > cert)),
            int(np.sum(cert >= 1.0)),
            int(np.sum(loss == cert)),
        )
        if violated or vacuous:
            outcome = Outcome.NOT_SUPPORTED
        elif tight:
            outcome = Outcome.INCONCLUSIVE
        else:
            outcome = Outcome.SUPPORTED
        worst = float(np.max(loss - cert))
        return Verdict(
            outcome,
            f"violations {violated}/{n}, vacuous (bound >= 1) {vacuous}/{n}, zero slack {tight}/{n}, bound "
            f"{cert.mean():.3f}, (1/T)CuL {loss.mean():.3f}, largest CuL - bound {worst:.3g}",
            worst,
            None,
            n,
        )

    return fn


def _gap_part(cul: str, bound: str) -> Decider:
    """(b): the 95% t upper end of mean(bound - cul) is <= GAP_MAX; else inconclusive (never refutes)."""

    def synthesize(rows: Rows) -> Rows:  # slack 0.1 <= 0.25
        return [{**r, bound: float(r[cul]) + 0.1 + _jitter(i, 0.1)} for i, r in enumerate(rows)]

    @decider(cul, bound, description=f"mean({bound} - {cul}) <= {GAP_MAX}", synthesize=synthesize)
    def fn(rows: PerSeed) -> Verdict:
        gap = t_interval(_col(rows, bound) - _col(rows, cul))
        outcome = Outcome.SUPPORTED if gap.defined and gap.hi <= GAP_MAX else Outcome.INCONCLUSIVE
        return Verdict(
            outcome,
            f"gap {gap.estimate:.3f} [{gap.lo:.3f}, {gap.hi:.3f}] (95% t; need upper <= {GAP_MAX})",
            gap.estimate,
            (gap.lo, gap.hi) if gap.defined else None,
            len(rows),
        )

    return fn


def _oracle_verdict(rows: PerSeed) -> Verdict:
    ivs = [bootstrap_interval(_col(rows, key)) for key in _REL]
    inside = all(-ORACLE_TOL <= iv.lo and iv.hi <= ORACLE_TOL for iv in ivs)
    outside = any(iv.lo > ORACLE_TOL or iv.hi < -ORACLE_TOL for iv in ivs)
    outcome = Outcome.SUPPORTED if inside else Outcome.NOT_SUPPORTED if outside else Outcome.INCONCLUSIVE
    text = ", ".join(
        f"{s} {iv.estimate:+.3f} [{iv.lo:+.3f}, {iv.hi:+.3f}]"
        for s, iv in zip(SCENARIOS_JUDGED, ivs, strict=True)
    )
    worst = max(ivs, key=lambda iv: abs(iv.estimate))
    return Verdict(
        outcome,
        f"relative gap to the oracle RHS (95% bootstrap; need inside +-{ORACLE_TOL}): {text}",
        worst.estimate,
        (worst.lo, worst.hi),
        len(rows),
    )


def _clear_oracle(rows: Rows) -> Rows:
    """Every relative gap within 1% of the oracle."""
    return [{**r, **{k: _jitter(i + j, 0.5) for j, k in enumerate(_REL)}} for i, r in enumerate(rows)]


def oracle_decider() -> Decider:
    """Part (c) alone; it can be not supported when an interval lies entirely outside the tolerance."""

    @decider(
        *_REL, description="closed-form Gibbs CuL within 10% of the oracle RHS", synthesize=_clear_oracle
    )
    def decide(rows: PerSeed) -> Verdict:
        return _oracle_verdict(rows)

    return decide


def certificate_decider() -> Decider:
    """The brief's combined rule (a) + (b) + (c); (b) and (c) can fail it, only (a) refutes it."""
    valid = certificate_holds("perm_vi_cul", "perm_vi_bound")
    tight = _gap_part("perm_vi_cul", "perm_vi_bound")
    oracle = oracle_decider()

    def fn(rows: PerSeed) -> Verdict:
        a, b, c = valid(rows), tight(rows), oracle(rows)
        soft_c = Outcome.INCONCLUSIVE if c.outcome is Outcome.NOT_SUPPORTED else c.outcome
        outcome = combine_outcomes([a.outcome, b.outcome, soft_c])
        text = f"(a) {a.outcome.value}: {a.explanation}; (b) {b.explanation}; (c) {c.explanation}"
        return Verdict(outcome, text, b.estimate, b.interval, len(rows))

    def synthesize(rows: Rows) -> Rows:
        return _clear_oracle(valid.synthesize(rows))  # the certificate's slack 0.2 also meets (b)

    return Decider(
        fn,
        [*valid.metrics, *_REL],
        "VI certificate valid, non-vacuous, tight; oracle",
        compares=valid.compares,
        synthesize=synthesize,
    )
