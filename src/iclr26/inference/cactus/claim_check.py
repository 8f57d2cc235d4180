"""The claim rules of the Cactus reproduction (the brief's parts (a), (b), (c)).

(a) *controlled divergence as the method enforces it*, a check true by construction (a violation is a bug,
not a verdict): the exact solver never exceeds the budget (``a_exact_kl_excess <= 1e-9`` in every seed), the mean
emitted ``KL(r || q)`` is non-decreasing in delta (``a_klr_monotone == 1`` in every seed) and small at
delta = 1e-4 (``a_klr_small_delta < 0.01`` in every seed). See :func:`divergence_check`.

(b) + (c), the claim (:func:`frontier_decider`). (b) *better frontier than TAS*: Cactus, with delta tuned on
held-out pairs to the acceptance of a permissive TAS (eps = 0.01, alpha = 0.05, which accepts more than SpS),
emits a law closer to the target: ``b2_cactus_kl - b2_tasloose_kl < 0`` in every seed and its 95% t-interval
lies below 0 (holds); the interval lies above 0 (refuted: Cactus's KL is higher); otherwise undecided. At
TAS's default point (eps = 0.09, alpha = 0.3) TAS accepts no more than SpS, the matched delta is ~0 and Cactus is
then the lossless sampler, so that comparison (``b_*``) holds by construction and is only reported.
(c) *end-to-end sanity*: the 95% t-interval of ``tau_cactus - tau_sps`` lies above 0 and the mean accuracy drop
``acc_sps - acc_cactus`` is <= 0.02. Supported if (b) and (c) hold; not supported if (b) is refuted;
inconclusive otherwise. That the matched acceptance really matches (``b2_acc_ratio >= 0.99``) is a
precondition of the claim, declared in the experiment.
"""

from __future__ import annotations

import numpy as np

from iclr26.harness.claims import (
    Comparison,
    Decider,
    Outcome,
    PerSeed,
    Rows,
    Verdict,
    all_of,
    decider,
    fraction_of_seeds,
    never_exceeds,
)
from iclr26.harness.stats import t_interval

__all__ = ["MAX_ACC_DROP", "divergence_check", "frontier_decider"]

MAX_ACC_DROP = 0.02
EXACT_TOL = 1e-9
SMALL_DELTA_KL = 0.01

METRICS = ("b2_cactus_kl", "b2_tasloose_kl", "tau_cactus", "tau_sps", "acc_sps", "acc_cactus")


def divergence_check() -> Decider:
    """Part (a): every seed keeps the exact solver within budget, KL(r||q) monotone and small at delta = 1e-4."""
    return all_of(
        never_exceeds("a_exact_kl_excess", EXACT_TOL),
        fraction_of_seeds("a_klr_monotone", "==", 1.0, support_at=1.0),
        fraction_of_seeds("a_klr_small_delta", "<", SMALL_DELTA_KL, support_at=1.0),
    )


def _col(rows: PerSeed, m: str) -> np.ndarray:
    return np.array([float(r[m]) for r in rows], dtype=float)


def _win(rows: Rows) -> Rows:
    """Cactus 0.02 nats closer to the target than the permissive TAS, one more token per target call than SpS,
    and SpS's accuracy."""
    out = []
    for i, r in enumerate(rows):
        j = 1e-4 * ((i % 3) - 1)
        out.append(
            {
                **r,
                "b2_cactus_kl": float(r["b2_tasloose_kl"]) - 0.02 + j,
                "tau_cactus": float(r["tau_sps"]) + 1.0 + j,
                "acc_cactus": float(r["acc_sps"]),
            }
        )
    return out


@decider(
    *METRICS,
    description="Cactus (b) beats the permissive TAS's frontier, (c) tau gain over SpS at no accuracy cost",
    compares=[("b2_cactus_kl", "b2_tasloose_kl", False), Comparison("tau_cactus", "tau_sps", True)],
    synthesize=_win,
)
def frontier_decider(rows: PerSeed) -> Verdict:
    """Judge parts (b) and (c) from per-seed metrics (see the module docstring)."""
    diff = _col(rows, "b2_cactus_kl") - _col(rows, "b2_tasloose_kl")
    gain = _col(rows, "tau_cactus") - _col(rows, "tau_sps")
    drop = _col(rows, "acc_sps") - _col(rows, "acc_cactus")
    iv, giv = t_interval(diff), t_interval(gain)
    b_holds = bool(np.all(diff < 0) and iv.hi < 0)
    b_refuted = bool(iv.lo > 0)
    c_holds = bool(giv.lo > 0 and float(np.mean(drop)) <= MAX_ACC_DROP)
    if b_refuted:
        outcome = Outcome.NOT_SUPPORTED
    elif b_holds and c_holds:
        outcome = Outcome.SUPPORTED
    else:
        outcome = Outcome.INCONCLUSIVE
    b_state = "refuted" if b_refuted else "holds" if b_holds else "undecided"
    text = (
        f"(b) {b_state}: Cactus - permissive TAS mean KL(r||q) at matched acceptance {iv.estimate:.4g} "
        f"[{iv.lo:.4g}, {iv.hi:.4g}] (95% t, {iv.n} seeds), < 0 in {int((diff < 0).sum())}/{diff.size} seeds; "
        f"(c) {'holds' if c_holds else 'fails'}: tau gain vs SpS {giv.estimate:.3g} [{giv.lo:.3g}, {giv.hi:.3g}], "
        f"accuracy drop {drop.mean():.3g} (need <= {MAX_ACC_DROP:g})"
    )
    return Verdict(outcome, text, iv.estimate, (iv.lo, iv.hi), len(rows))
