"""Claim check of the COSMOS reproduction (arXiv 2502.17410): the brief's two-part rule over harness seeds.

Every part reads the raw per-seed metrics (final eval loss ``<name>_final`` in nats, optimizer-state floats
``<name>_state_floats``) and forms its differences itself, so the conformance suite can put a baseline's
numbers in COSMOS's place.

(a) COSMOS beats both AdamW and Muon: per seed ``d = loss(COSMOS) - min(loss(AdamW), loss(Muon))``. 95% Student-t
interval of d entirely below 0: supported; entirely above 0: not supported; otherwise inconclusive.

(b) COSMOS is non-inferior to SOAP at a fraction of its memory: per seed ``e = loss(COSMOS) - loss(SOAP)`` and the
ratio of optimizer-state floats. Loss part: supported when mean(e) <= 0.02 nats and the interval's upper end
< 0.05; not supported when the interval's lower end exceeds 0.02 (worse than SOAP beyond the margin); inconclusive
otherwise (:func:`~iclr26.harness.claims.effect_at_least` on SOAP - COSMOS with ``support_at=-0.02``,
``null=-0.05``, ``refute_below=-0.02``). State part: supported when the mean state ratio COSMOS/SOAP is < 0.5,
not supported otherwise.

The paper's verdict is (a) AND (b): not supported if any part is, supported if all are
(:func:`~iclr26.harness.claims.all_of`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Verdict, all_of, decider, effect_at_least
from iclr26.harness.claims import column as _column
from iclr26.harness.claims import seed_spread as _spread
from iclr26.harness.stats import t_interval

__all__ = [
    "MARGIN",
    "MARGIN_UPPER",
    "STATE_RATIO",
    "beats_adamw_muon",
    "cosmos_claim",
    "less_state_than_soap",
    "matches_soap",
    "soap_non_inferior",
]

MARGIN = 0.02  # nats: non-inferiority margin for the mean difference to SOAP
MARGIN_UPPER = 0.05  # nats: the interval's upper end must stay below this
STATE_RATIO = 0.5  # COSMOS state floats must be below this fraction of SOAP's

Rows = list[dict[str, float]]


def _win_over_adamw_muon(rows: Rows) -> Rows:
    return [
        {**r, "cosmos_final": min(float(r["adamw_final"]), float(r["muon_final"])) - 0.5 + _spread(i)}
        for i, r in enumerate(rows)
    ]


@decider(
    "cosmos_final",
    "adamw_final",
    "muon_final",
    description="COSMOS - min(AdamW, Muon) final eval loss < 0",
    compares=[("cosmos_final", "adamw_final", False), ("cosmos_final", "muon_final", False)],
    synthesize=_win_over_adamw_muon,
)
def beats_adamw_muon(rows: Sequence[Mapping[str, float]]) -> Verdict:
    """Part (a): the paired difference to the better of AdamW and Muon lies below 0."""
    d = _column(rows, "cosmos_final") - np.minimum(_column(rows, "adamw_final"), _column(rows, "muon_final"))
    iv = t_interval(d)
    outcome = Outcome.SUPPORTED if iv.hi < 0 else Outcome.NOT_SUPPORTED if iv.lo > 0 else Outcome.INCONCLUSIVE
    text = (
        f"COSMOS - min(AdamW, Muon) = {iv.estimate:.4g} [{iv.lo:.4g}, {iv.hi:.4g}] nats (95% t, {iv.n} seeds)"
    )
    return Verdict(outcome, text, iv.estimate, (iv.lo, iv.hi), iv.n)


def _non_inferior_to_soap() -> Decider:
    """Part (b), loss: within MARGIN of SOAP on average with the upper end below MARGIN_UPPER.

    A non-inferiority rule holds when COSMOS equals SOAP, so it declares no method-versus-baseline comparison
    (the wrapper drops the one :func:`effect_at_least` declares); the state part below carries that role.
    """
    inner = effect_at_least(
        "cosmos_final",
        "soap_final",
        support_at=-MARGIN,
        null=-MARGIN_UPPER,
        refute_below=-MARGIN,
        higher_is_better=False,
    )
    return inner.derive(
        description=f"COSMOS within {MARGIN} nats of SOAP (upper end < {MARGIN_UPPER})", compares=()
    )


soap_non_inferior = _non_inferior_to_soap()


def _less_state(rows: Rows) -> Rows:
    return [{**r, "cosmos_state_floats": 0.25 * float(r["soap_state_floats"])} for r in rows]


@decider(
    "cosmos_state_floats",
    "soap_state_floats",
    description=f"COSMOS state floats < {STATE_RATIO} x SOAP's",
    compares=[("cosmos_state_floats", "soap_state_floats", False)],
    synthesize=_less_state,
)
def less_state_than_soap(rows: Sequence[Mapping[str, float]]) -> Verdict:
    """Part (b), memory: mean over seeds of COSMOS/SOAP optimizer-state floats below STATE_RATIO."""
    ratio = float(np.mean(_column(rows, "cosmos_state_floats") / _column(rows, "soap_state_floats")))
    outcome = Outcome.SUPPORTED if ratio < STATE_RATIO else Outcome.NOT_SUPPORTED
    return Verdict(
        outcome, f"state floats COSMOS/SOAP = {ratio:.3g} (need < {STATE_RATIO})", ratio, None, len(rows)
    )


matches_soap = all_of(soap_non_inferior, less_state_than_soap)


def _clear_win(rows: Rows) -> Rows:
    """COSMOS 0.5 nats below AdamW, Muon and SOAP with a quarter of SOAP's state floats."""
    best = [min(float(r[k]) for k in ("adamw_final", "muon_final", "soap_final")) for r in rows]
    rows = [{**r, "cosmos_final": b - 0.5 + _spread(i)} for i, (r, b) in enumerate(zip(rows, best))]
    return _less_state(rows)


def _both_parts() -> Decider:
    whole = all_of(beats_adamw_muon, soap_non_inferior, less_state_than_soap)
    return Decider(
        whole,
        whole.metrics,
        "COSMOS below AdamW and Muon, non-inferior to SOAP at < 50% of its state",
        min_seeds=whole.min_seeds,
        compares=whole.compares,
        synthesize=_clear_win,
    )


cosmos_claim = _both_parts()
