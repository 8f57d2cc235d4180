"""The brief's claim check for soft-label leakage (arXiv 2506.14457), as harness deciders.

- C1 (leakage exists): logistic student at tau = 20, |D_S| = 1.5 d: mean held-out accuracy >= 0.9; MLP student at
  its largest |D_S| (tau = 20): held-out accuracy >= 3/C (i.e. >= 3 in units of chance); both with paired 95%
  intervals above the hard-label student on the same split.
- C2 (sample-complexity transition): logistic held-out accuracy averaged over |D_S| >= 1.5 d exceeds the average
  over |D_S| <= 0.75 d (paired interval excludes 0), and the transition size (midpoint crossing) lies in [d/2, 2d].
- Headline: supported if C1 and C2 hold; not supported if the data exclude any gain of soft over hard labels for
  both families (the upper end of the paired 95% t interval of soft - hard is <= 0 for logistic and for MLP
  students); inconclusive otherwise. A mean gain <= 0 whose interval still reaches above 0 is inconclusive.
- C3 (temperature dependence, reported): at |D_S| = 1.5 d the spread between the best and the worst tau is
  >= 0.10 (mean) with a 95% interval above 0; not supported if the interval lies below 0.10.
- Both claims are judged only when every teacher memorised its random labels (:data:`MEMORISED`).
"""

from __future__ import annotations

import numpy as np

from iclr26.harness.claims import (
    Decider,
    Outcome,
    PerSeed,
    Precondition,
    Verdict,
    all_of,
    decider,
    difference_at_least,
    effect_at_least,
    mean_at_least,
    mean_at_most,
)
from iclr26.harness.stats import t_interval

__all__ = [
    "MEMORISED",
    "c1_decider",
    "c2_decider",
    "headline_decider",
    "tau_spread_decider",
    "transition_size",
]

MEMORISED = Precondition(
    "teacher_min_train_acc",
    ">=",
    1.0,
    "every teacher memorised its random labels (100% training accuracy, the paper's memorising teacher)",
)

FAMILIES = (
    ("logreg", "logreg_acc_probe", "logreg_hard_acc_probe"),
    ("mlp", "mlp_acc_largest", "mlp_hard_acc_largest"),
)


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


def _headline_win(rows: list[dict[str, float]]) -> list[dict[str, float]]:
    """Logistic recovery ~0.98 and MLP ~5x chance, both far above hard labels, transition at ~d."""
    out = []
    for i, r in enumerate(rows):
        j = 1e-3 * ((i % 3) - 1)
        out.append(
            {
                **r,
                "logreg_acc_probe": 0.98 + j,
                "logreg_hard_acc_probe": 0.1 - j,
                "mlp_acc_largest": 0.5 + j,
                "mlp_hard_acc_largest": 0.1 - j,
                "mlp_acc_chance_units": 5.0 + 10 * j,
                "logreg_acc_large": 0.97 + j,
                "logreg_acc_small": 0.2 - j,
                "transition_over_d": 1.0 + 10 * j,
            }
        )
    return out


def headline_decider() -> Decider:
    """Supported if C1 and C2; not supported if the data exclude any soft-over-hard gain for both families."""
    c1, c2 = c1_decider(), c2_decider()

    @decider(
        *c1.metrics,
        *c2.metrics,
        description="C1 and C2; refuted if soft labels are measurably no better than hard labels for both families",
        compares=[*c1.compares, *c2.compares],
        synthesize=_headline_win,
    )
    def rule(rows: PerSeed) -> Verdict:
        v1, v2 = c1(rows), c2(rows)
        gains = {
            family: t_interval([float(r[soft]) - float(r[hard]) for r in rows])
            for family, soft, hard in FAMILIES
        }
        if v1.outcome is Outcome.SUPPORTED and v2.outcome is Outcome.SUPPORTED:
            outcome = Outcome.SUPPORTED
        elif all(iv.defined and iv.hi <= 0 for iv in gains.values()):
            outcome = Outcome.NOT_SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        text = (
            f"C1 {v1.outcome.value}: {v1.explanation} | C2 {v2.outcome.value}: {v2.explanation} | gain of soft "
            "over hard labels (paired 95% t; refuted when both upper ends are <= 0): "
            + ", ".join(
                f"{'logistic' if f == 'logreg' else 'MLP'} {iv.estimate:.3f} [{iv.lo:.3f}, {iv.hi:.3f}]"
                for f, iv in gains.items()
            )
        )
        return Verdict(outcome, text, v1.estimate, v1.interval, len(rows))

    return rule


def tau_spread_decider(min_spread: float = 0.10) -> Decider:
    """C3: the best-minus-worst-tau spread is >= `min_spread` on average with a 95% interval above 0; not
    supported when the interval lies below `min_spread`."""
    return effect_at_least(
        "logreg_tau_spread_probe", support_at=min_spread, null=0.0, refute_below=min_spread
    )
