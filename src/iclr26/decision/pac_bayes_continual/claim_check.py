"""Claim checks of the cumulative-loss reproduction (OpenReview hWw269fPov): the brief's rule over seeds.

:func:`certificate_decider` (per seed: ``perm_vi_cul``, ``perm_vi_bound`` and the over-parameterised relative
gaps ``reg_overparam_<scenario>_relgap``):

(a) validity and non-vacuity: cul <= bound and bound < 1 in every seed;
(b) tightness: the 95% Student-t upper end of mean(bound - cul) is <= 0.25;
(c) oracle: for i.i.d., alternating and switch, the 95% bootstrap interval over seeds of the relative gap lies in
    [-0.1, 0.1].

Not supported if (a) fails in any seed; supported if (a), (b) and (c) hold; inconclusive otherwise.
:func:`oracle_decider` judges (c) alone: supported if every interval lies inside [-0.1, 0.1], not supported if
some interval lies entirely outside it, inconclusive otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Verdict, decider
from iclr26.harness.stats import bootstrap_interval, t_interval

__all__ = ["GAP_MAX", "ORACLE_TOL", "SCENARIOS_JUDGED", "certificate_decider", "oracle_decider"]

GAP_MAX = 0.25
ORACLE_TOL = 0.1
SCENARIOS_JUDGED = ("iid", "alternating", "switch")
_REL = [f"reg_overparam_{s}_relgap" for s in SCENARIOS_JUDGED]


def _oracle_part(
    rows: Sequence[Mapping[str, float]],
) -> tuple[Outcome, str, list[tuple[float, float, float]]]:
    ivs = []
    for key in _REL:
        iv = bootstrap_interval([float(r[key]) for r in rows])
        ivs.append((iv.estimate, iv.lo, iv.hi))
    if any(not np.isfinite(lo) for _, lo, _ in ivs):
        return Outcome.INCONCLUSIVE, "oracle intervals need >= 2 seeds", ivs
    inside = all(-ORACLE_TOL <= lo and hi <= ORACLE_TOL for _, lo, hi in ivs)
    outside = any(lo > ORACLE_TOL or hi < -ORACLE_TOL for _, lo, hi in ivs)
    outcome = Outcome.SUPPORTED if inside else Outcome.NOT_SUPPORTED if outside else Outcome.INCONCLUSIVE
    text = ", ".join(f"{s} {e:+.3f} [{lo:+.3f}, {hi:+.3f}]" for s, (e, lo, hi) in zip(SCENARIOS_JUDGED, ivs))
    return outcome, f"relative gap to the oracle RHS (95% bootstrap; need inside +-{ORACLE_TOL}): {text}", ivs


def certificate_decider() -> Decider:
    """The brief's combined rule (a) + (b) + (c)."""

    @decider(
        "perm_vi_cul", "perm_vi_bound", *_REL, description="VI certificate valid, non-vacuous, tight; oracle"
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        cul = np.array([float(r["perm_vi_cul"]) for r in rows])
        bound = np.array([float(r["perm_vi_bound"]) for r in rows])
        if not (np.all(np.isfinite(cul)) and np.all(np.isfinite(bound))):
            return Verdict(Outcome.INCONCLUSIVE, "non-finite certificate metrics", n_seeds=len(rows))
        violated, vacuous = int(np.sum(cul > bound)), int(np.sum(bound >= 1.0))
        gap = t_interval(bound - cul)
        text = (
            f"(a) violations {violated}/{len(rows)}, vacuous (bound >= 1) {vacuous}/{len(rows)}, bound "
            f"{bound.mean():.3f}, (1/T)CuL {cul.mean():.3f}; (b) gap {gap.estimate:.3f} [{gap.lo:.3f}, "
            f"{gap.hi:.3f}] (95% t; need upper <= {GAP_MAX})"
        )
        interval = (gap.lo, gap.hi) if gap.defined else None
        if violated or vacuous:
            return Verdict(Outcome.NOT_SUPPORTED, text, gap.estimate, interval, len(rows))
        oracle, otext, _ = _oracle_part(rows)
        text += f"; (c) {otext}"
        ok_b = gap.defined and gap.hi <= GAP_MAX
        outcome = Outcome.SUPPORTED if ok_b and oracle is Outcome.SUPPORTED else Outcome.INCONCLUSIVE
        return Verdict(outcome, text, gap.estimate, interval, len(rows))

    return decide


def oracle_decider() -> Decider:
    """Part (c) alone; it can be not supported when an interval lies entirely outside the tolerance."""

    @decider(*_REL, description="closed-form Gibbs CuL within 10% of the oracle RHS")
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        values = np.array([[float(r[k]) for k in _REL] for r in rows])
        if not np.all(np.isfinite(values)):
            return Verdict(Outcome.INCONCLUSIVE, "non-finite relative gaps", n_seeds=len(rows))
        outcome, text, ivs = _oracle_part(rows)
        worst = max(ivs, key=lambda v: abs(v[0]))
        return Verdict(
            outcome, text, worst[0], (worst[1], worst[2]) if np.isfinite(worst[1]) else None, len(rows)
        )

    return decide
