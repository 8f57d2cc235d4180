"""Claim check of the Smooth-Leaky reproduction (arXiv 2509.22562): the brief's rule over harness seeds.

Per seed, late accuracy ``late_acc_<act>`` = mean current-task test accuracy (%) over the last tasks. For each new
activation N in (smooth_leaky, randomized_smooth_leaky), paired 95% Student-t intervals over seeds of
N - relu and of N - best standard activation (the standard activation with the highest mean late accuracy).

- supported: for both N, mean(N - relu) >= 3 points with its interval above 0
  (:func:`~iclr26.harness.claims.effect_at_least`), and the interval of N - best lies above -1 point (not worse
  than the best standard activation by more than 1 point; this part never refutes);
- not supported: for either N the interval of N - relu lies entirely below 0;
- inconclusive otherwise (or with fewer than 2 seeds).

The parts are combined with :func:`~iclr26.harness.claims.all_of`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Verdict, all_of, decider, effect_at_least
from iclr26.harness.stats import t_interval

__all__ = ["GAIN_POINTS", "NEW", "SLACK_POINTS", "STANDARD", "plasticity_decider"]

NEW = ("smooth_leaky", "randomized_smooth_leaky")
STANDARD = ("relu", "leaky_relu", "rrelu", "elu", "gelu", "tanh")
GAIN_POINTS = 3.0
SLACK_POINTS = 1.0


def _within_best(metric: str, new: str, standard: Sequence[str]) -> Decider:
    """`new` trails the standard activation with the highest mean by less than SLACK_POINTS (paired t)."""
    names = [f"{metric}_{a}" for a in (new, *standard)]

    def best_of(rows: Sequence[Mapping[str, float]]) -> str:
        return max(standard, key=lambda a: float(np.mean([float(r[f"{metric}_{a}"]) for r in rows])))

    def win(rows: list[dict[str, float]]) -> list[dict[str, float]]:
        best = best_of(rows)
        key = f"{metric}_{new}"
        return [
            {**r, key: max(float(r[key]), float(r[f"{metric}_{best}"])) + 1e-3 * (i % 3)}
            for i, r in enumerate(rows)
        ]

    @decider(
        *names,
        description=f"{new} within {SLACK_POINTS} points of the best standard activation",
        synthesize=win,
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        best = best_of(rows)
        vb = t_interval(np.array([float(r[f"{metric}_{new}"]) - float(r[f"{metric}_{best}"]) for r in rows]))
        ok = vb.lo > -SLACK_POINTS
        return Verdict(
            Outcome.SUPPORTED if ok else Outcome.INCONCLUSIVE,
            f"{new} - {best} (best standard) = {vb.estimate:.3g} [{vb.lo:.3g}, {vb.hi:.3g}] points "
            f"(need lower end > -{SLACK_POINTS})",
            vb.estimate,
            (vb.lo, vb.hi),
            vb.n,
        )

    return decide


def plasticity_decider(
    metric: str = "late_acc", new: Sequence[str] = NEW, standard: Sequence[str] = STANDARD
) -> Decider:
    """The brief's supported / not supported / inconclusive rule on ``<metric>_<activation>`` per seed."""
    if "relu" not in standard:
        raise ValueError(f"standard must include 'relu' (the reference of the claim), got {tuple(standard)}")
    gains = [
        effect_at_least(f"{metric}_{a}", f"{metric}_relu", support_at=GAIN_POINTS, null=0.0, refute_below=0.0)
        for a in new
    ]
    return all_of(*gains, *(_within_best(metric, a, standard) for a in new))
