"""Claim check of the Hyper-SET reproduction (arXiv 2502.11646), the brief's rule over harness seeds.

Per seed: test accuracies (points) of Hyper-SET and the 6-layer vanilla Transformer (same split),
``param_ratio`` = Hyper-SET parameters / vanilla parameters, ``energy_descent_frac`` = fraction of test samples
whose total energy after the last iteration is below the energy after the first.

The rule is the conjunction (:func:`~iclr26.harness.claims.all_of`) of three parts:

* accuracy, :func:`~iclr26.harness.claims.effect_at_least` on the paired difference Hyper-SET - vanilla with a
  95% percentile bootstrap interval: holds when the mean is >= -1.5 points and the interval lies above -3.0;
  refuted when the whole interval lies below -1.5;
* size (:func:`size_decider`): Hyper-SET's parameter count is <= 1/3 of the vanilla model's in every seed (else
  refuted);
* energy descent (:func:`descent_decider`): holds when the mean descent fraction is >= 0.8, refuted below 0.5.

Supported when all three hold, not supported when any is refuted, inconclusive otherwise.

The accuracy part is a non-inferiority statement (Hyper-SET *equal* to the vanilla model is competitive), so it
declares no method-versus-baseline comparison; the size part does (Hyper-SET with the vanilla model's parameter
count fails it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Verdict, all_of, decider, effect_at_least

__all__ = [
    "CI_FLOOR",
    "DESCENT_REFUTE",
    "DESCENT_SUPPORT",
    "MARGIN",
    "MAX_PARAM_RATIO",
    "descent_decider",
    "hyperset_decider",
    "size_decider",
]

MARGIN = -1.5  # points
CI_FLOOR = -3.0
MAX_PARAM_RATIO = 1.0 / 3.0
DESCENT_SUPPORT = 0.8
DESCENT_REFUTE = 0.5


def descent_decider(metric: str = "energy_descent_frac") -> Decider:
    """Mean over seeds of the fraction of test samples whose energy descends: >= 0.8 holds, < 0.5 refutes."""

    def synthesize(rows: list[dict[str, float]]) -> list[dict[str, float]]:
        return [{**r, metric: 0.9 + 0.01 * ((i % 3) - 1)} for i, r in enumerate(rows)]

    @decider(
        metric,
        description=f"mean {metric} >= {DESCENT_SUPPORT} (refuted below {DESCENT_REFUTE})",
        synthesize=synthesize,
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        frac = float(np.mean([float(r[metric]) for r in rows]))
        outcome = (
            Outcome.SUPPORTED
            if frac >= DESCENT_SUPPORT
            else Outcome.NOT_SUPPORTED
            if frac < DESCENT_REFUTE
            else Outcome.INCONCLUSIVE
        )
        return Verdict(
            outcome,
            f"energy descends in {frac:.1%} of test samples (mean over {len(rows)} seeds; need >= "
            f"{DESCENT_SUPPORT:.0%}, refuted below {DESCENT_REFUTE:.0%})",
            frac,
            None,
            len(rows),
        )

    return decide


def size_decider(method: str = "params_hyperset", baseline: str = "params_vanilla") -> Decider:
    """Parameter count of `method` <= 1/3 of `baseline`'s in every seed: supported, else not supported."""

    def synthesize(rows: list[dict[str, float]]) -> list[dict[str, float]]:
        return [{**r, method: 0.1 * float(r[baseline])} for r in rows]

    @decider(
        method,
        baseline,
        description=f"{method} / {baseline} <= 1/3 in every seed",
        compares=[(method, baseline, False)],
        synthesize=synthesize,
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        q = np.array([float(r[method]) / float(r[baseline]) for r in rows])
        small = bool(np.all(q <= MAX_PARAM_RATIO))
        return Verdict(
            Outcome.SUPPORTED if small else Outcome.NOT_SUPPORTED,
            f"parameter ratio {method} / {baseline}: max {q.max():.3g} over {q.size} seeds (need <= 1/3)",
            float(q.max()),
            None,
            q.size,
        )

    return decide


def _non_inferiority(inner: Decider) -> Decider:
    """`inner` without its method-versus-baseline comparison (method equal to baseline may pass)."""
    return inner.derive(compares=())


def hyperset_decider(
    method: str = "acc_hyperset",
    baseline: str = "acc_vanilla",
    params: tuple[str, str] = ("params_hyperset", "params_vanilla"),
    descent: str = "energy_descent_frac",
) -> Decider:
    """The brief's supported / not supported / inconclusive rule (competitive, small, energy descends)."""
    accuracy = effect_at_least(
        method, baseline, support_at=MARGIN, null=CI_FLOOR, refute_below=MARGIN, method="bootstrap"
    )
    return all_of(_non_inferiority(accuracy), size_decider(*params), descent_decider(descent))
