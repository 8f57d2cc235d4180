"""The brief's claim check for soft-label leakage (arXiv 2506.14457), as harness deciders.

- C1 (leakage exists): logistic student at tau = 20, |D_S| = 1.5 d: mean held-out accuracy >= 0.9; MLP student at
  its largest |D_S| (tau = 20): held-out accuracy >= 3/C (i.e. >= 3 in units of chance); both with paired 95%
  intervals above the hard-label student on the same split.
- C2 (sample-complexity transition): logistic held-out accuracy averaged over |D_S| >= 1.5 d exceeds the average
  over |D_S| <= 0.75 d (paired interval excludes 0), and the transition size (midpoint crossing) lies in [d/2, 2d].
- Headline: supported if C1 and C2 hold; not supported if the soft-label students never beat the hard-label
  baseline (mean paired gain <= 0 for both families); inconclusive otherwise. A guard turns the verdict
  inconclusive when some teacher did not memorise its labels.
- C3 (temperature dependence, reported): at |D_S| = 1.5 d the spread between the best and the worst tau is
  >= 0.10 (mean) with a 95% interval above 0.
"""

from __future__ import annotations

import numpy as np

from iclr26.harness.claims import (
    Decider,
    Outcome,
    PerSeed,
    Verdict,
    all_of,
    decider,
    difference_at_least,
    guarded,
    mean_at_least,
    mean_at_most,
)
from iclr26.harness.stats import interval

__all__ = ["c1_decider", "c2_decider", "headline_decider", "tau_spread_decider", "transition_size"]


def transition_size(sizes: np.ndarray, acc: np.ndarray) -> float:
    """The |D_S| where ``acc`` first reaches the midpoint of its first and last values (linear interpolation).

    Examples
    --------
    >>> transition_size(np.array([50, 100, 150]), np.array([0.1, 0.5, 1.0]))
    105.0
    """
    sizes, acc = np.asarray(sizes, dtype=float), np.asarray(acc, dtype=float)
    mid = 0.5 * (acc[0] + acc[-1])
    k = int(np.argmax(acc >= mid))
    if k == 0:
        return float(sizes[0])
    a0, a1 = acc[k - 1], acc[k]
    return float(sizes[k - 1] + (mid - a0) / (a1 - a0) * (sizes[k] - sizes[k - 1]))


def c1_decider() -> Decider:
    """C1: logistic >= 0.9 and MLP >= 3/C on held-out points, both above the hard-label student."""
    return all_of(
        mean_at_least("logreg_acc_probe", 0.9),
        mean_at_least("mlp_acc_chance_units", 3.0),
        difference_at_least("logreg_acc_probe", "logreg_hard_acc_probe", 0.0),
        difference_at_least("mlp_acc_largest", "mlp_hard_acc_largest", 0.0),
    )


def c2_decider() -> Decider:
    """C2: accuracy rises from |D_S| <= 0.75 d to |D_S| >= 1.5 d, with the transition in [d/2, 2d]."""
    return all_of(
        difference_at_least("logreg_acc_large", "logreg_acc_small", 0.0),
        mean_at_least("transition_over_d", 0.5),
        mean_at_most("transition_over_d", 2.0),
    )


def headline_decider() -> Decider:
    """Supported if C1 and C2; not supported if soft labels never beat hard labels; guarded by memorisation."""
    c1, c2 = c1_decider(), c2_decider()

    @decider(*c1.metrics, *c2.metrics, description="C1 and C2; refuted if soft never beats hard")
    def rule(rows: PerSeed) -> Verdict:
        v1, v2 = c1(rows), c2(rows)
        gains = {
            family: float(np.mean([r[f"{family}_acc_{cell}"] - r[f"{family}_hard_acc_{cell}"] for r in rows]))
            for family, cell in (("logreg", "probe"), ("mlp", "largest"))
        }
        if v1.outcome is Outcome.SUPPORTED and v2.outcome is Outcome.SUPPORTED:
            outcome = Outcome.SUPPORTED
        elif all(g <= 0 for g in gains.values()):
            outcome = Outcome.NOT_SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        text = (
            f"C1 {v1.outcome.value}: {v1.explanation} | C2 {v2.outcome.value}: {v2.explanation} | mean gain of "
            f"soft over hard labels: logistic {gains['logreg']:.3f}, MLP {gains['mlp']:.3f}"
        )
        return Verdict(outcome, text, v1.estimate, v1.interval, len(rows))

    return guarded(rule, "teacher_min_train_acc", ">=", 1.0, "every teacher must memorise its random labels")


def tau_spread_decider(min_spread: float = 0.10) -> Decider:
    """C3: the best-minus-worst-tau spread is >= `min_spread` on average with a 95% interval above 0."""

    @decider("logreg_tau_spread_probe", description=f"tau spread >= {min_spread} with interval above 0")
    def rule(rows: PerSeed) -> Verdict:
        iv = interval(np.array([r["logreg_tau_spread_probe"] for r in rows]), 0.95, "t")
        if not iv.defined:
            return Verdict(Outcome.INCONCLUSIVE, "interval undefined with fewer than 2 seeds", iv.estimate)
        if iv.estimate >= min_spread and iv.lo > 0:
            outcome = Outcome.SUPPORTED
        elif iv.hi < min_spread:
            outcome = Outcome.NOT_SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        return Verdict(
            outcome,
            f"best - worst tau held-out accuracy = {iv.estimate:.3g} [{iv.lo:.3g}, {iv.hi:.3g}] over {iv.n} "
            f"seeds; claimed >= {min_spread:g} with the interval above 0",
            iv.estimate,
            (iv.lo, iv.hi),
            iv.n,
        )

    return rule
