"""Claim check of the COSMOS reproduction (arXiv 2502.17410): the brief's two-part rule over harness seeds.

(a) COSMOS beats both AdamW and Muon: per seed ``d = loss(COSMOS) - min(loss(AdamW), loss(Muon))`` (final eval
loss, nats). 95% Student-t interval of d entirely below 0: supported; entirely above 0: not supported; otherwise
inconclusive.

(b) COSMOS is non-inferior to SOAP at a fraction of its memory: per seed ``e = loss(COSMOS) - loss(SOAP)`` and the
ratio of optimizer-state floats. Supported when mean(e) <= 0.02 nats, the interval's upper end < 0.05 and the mean
state ratio < 0.5; not supported when the interval's lower end exceeds 0.02 (worse than SOAP beyond the margin)
or the state ratio is >= 0.5; inconclusive otherwise.

The paper's verdict is (a) AND (b): not supported if either part is, supported if both are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Outcome, Verdict, all_of, decider
from iclr26.harness.stats import t_interval

__all__ = ["MARGIN", "MARGIN_UPPER", "STATE_RATIO", "beats_adamw_muon", "cosmos_claim", "matches_soap"]

MARGIN = 0.02  # nats: non-inferiority margin for the mean difference to SOAP
MARGIN_UPPER = 0.05  # nats: the interval's upper end must stay below this
STATE_RATIO = 0.5  # COSMOS state floats must be below this fraction of SOAP's


def _column(rows: Sequence[Mapping[str, float]], name: str) -> np.ndarray:
    return np.array([float(r[name]) for r in rows])


@decider("cosmos_minus_best_adamw_muon", description="COSMOS - min(AdamW, Muon) final eval loss < 0")
def beats_adamw_muon(rows: Sequence[Mapping[str, float]]) -> Verdict:
    """Part (a): the paired difference to the better of AdamW and Muon lies below 0."""
    d = _column(rows, "cosmos_minus_best_adamw_muon")
    if not np.all(np.isfinite(d)):
        return Verdict(
            Outcome.INCONCLUSIVE, f"non-finite differences (a diverged run?): {d.tolist()}", n_seeds=d.size
        )
    iv = t_interval(d)
    if not iv.defined:
        return Verdict(Outcome.INCONCLUSIVE, "intervals need >= 2 seeds", iv.estimate, None, iv.n)
    outcome = Outcome.SUPPORTED if iv.hi < 0 else Outcome.NOT_SUPPORTED if iv.lo > 0 else Outcome.INCONCLUSIVE
    text = (
        f"COSMOS - min(AdamW, Muon) = {iv.estimate:.4g} [{iv.lo:.4g}, {iv.hi:.4g}] nats (95% t, {iv.n} seeds)"
    )
    return Verdict(outcome, text, iv.estimate, (iv.lo, iv.hi), iv.n)


@decider(
    "cosmos_minus_soap", "cosmos_state_over_soap", description="COSMOS non-inferior to SOAP, < 50% state"
)
def matches_soap(rows: Sequence[Mapping[str, float]]) -> Verdict:
    """Part (b): within 0.02 nats of SOAP (upper end < 0.05) with less than half its optimizer-state floats."""
    e = _column(rows, "cosmos_minus_soap")
    ratio = _column(rows, "cosmos_state_over_soap")
    if not (np.all(np.isfinite(e)) and np.all(np.isfinite(ratio))):
        return Verdict(
            Outcome.INCONCLUSIVE, f"non-finite differences (a diverged run?): {e.tolist()}", n_seeds=e.size
        )
    iv = t_interval(e)
    if not iv.defined:
        return Verdict(Outcome.INCONCLUSIVE, "intervals need >= 2 seeds", iv.estimate, None, iv.n)
    r = float(ratio.mean())
    if iv.lo > MARGIN or r >= STATE_RATIO:
        outcome = Outcome.NOT_SUPPORTED
    elif iv.estimate <= MARGIN and iv.hi < MARGIN_UPPER:
        outcome = Outcome.SUPPORTED
    else:
        outcome = Outcome.INCONCLUSIVE
    text = (
        f"COSMOS - SOAP = {iv.estimate:.4g} [{iv.lo:.4g}, {iv.hi:.4g}] nats (95% t, {iv.n} seeds; need mean <= "
        f"{MARGIN}, upper < {MARGIN_UPPER}); state floats COSMOS/SOAP = {r:.3g} (need < {STATE_RATIO})"
    )
    return Verdict(outcome, text, iv.estimate, (iv.lo, iv.hi), iv.n)


cosmos_claim = all_of(beats_adamw_muon, matches_soap)
