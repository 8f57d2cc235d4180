"""Claim check of the hybrid ZO/FO reproduction (arXiv 2604.09940), the brief's rule over harness seeds.

Per seed: final test accuracies ``acc_hybrid`` and ``acc_lora_fo`` (fractions), and the steps Hybrid needs to
reach LoRA-FO's final accuracy (``hybrid_steps_to_lora_final``; a Hybrid run that never reaches it is censored
at one evaluation past the budget, a lower bound on its true value) and the steps LoRA-FO needs to first reach
it (``lora_steps_to_final``).

* C1: paired 95% Student-t interval of ``acc_hybrid - acc_lora_fo``: mean >= 2 points and lower end > 0
  (supported); the whole interval below 0: not supported (:func:`~iclr26.harness.claims.effect_at_least`).
* C2: median over seeds of the step ratio Hybrid/LoRA-FO <= 0.75 with the upper end of a 95% percentile
  bootstrap interval of the median < 1 (supported); otherwise inconclusive (C2 never refutes on its own).

Supported if C1 and C2 hold; not supported if C1 is refuted; inconclusive otherwise
(:func:`~iclr26.harness.claims.all_of`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Verdict, all_of, decider, effect_at_least
from iclr26.harness.stats import bootstrap_interval

__all__ = ["GAIN_POINTS", "RATIO_MAX", "fewer_steps", "hybrid_decider"]

GAIN_POINTS = 2.0
RATIO_MAX = 0.75
HYB, LORA = "hybrid_steps_to_lora_final", "lora_steps_to_final"


def _median(a: np.ndarray) -> np.ndarray:
    return np.median(a, axis=-1)


def _half_the_steps(rows: list[dict[str, float]]) -> list[dict[str, float]]:
    return [{**r, HYB: 0.5 * float(r[LORA]) * (1.0 + 1e-3 * (i % 3))} for i, r in enumerate(rows)]


@decider(
    HYB,
    LORA,
    description=f"C2: median step ratio Hybrid/LoRA-FO <= {RATIO_MAX} (bootstrap upper < 1)",
    compares=[(HYB, LORA, False)],
    synthesize=_half_the_steps,
)
def fewer_steps(rows: Sequence[Mapping[str, float]]) -> Verdict:
    """C2: supported or inconclusive, never not supported."""
    q = np.array([float(r[HYB]) / float(r[LORA]) for r in rows])
    bq = bootstrap_interval(q, statistic=_median)
    ok = bq.estimate <= RATIO_MAX and bq.hi < 1.0
    return Verdict(
        Outcome.SUPPORTED if ok else Outcome.INCONCLUSIVE,
        f"C2 median step ratio = {bq.estimate:.3g} [{bq.lo:.3g}, {bq.hi:.3g}] (bootstrap; need <= {RATIO_MAX}, "
        f"upper < 1: {'met' if ok else 'not met'})",
        bq.estimate,
        (bq.lo, bq.hi),
        len(rows),
    )


def hybrid_decider() -> Decider:
    """The brief's combined C1 (accuracy gain) and C2 (fewer steps) rule."""
    gain = effect_at_least(
        "acc_hybrid", "acc_lora_fo", support_at=GAIN_POINTS / 100.0, null=0.0, refute_below=0.0
    )
    return all_of(gain, fewer_steps)
