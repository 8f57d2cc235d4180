"""Claim check of the Smooth-Leaky reproduction (arXiv 2509.22562): the brief's rule over harness seeds.

Per seed, late accuracy ``late_acc_<act>`` = mean current-task test accuracy (%) over the last tasks. For each new
activation N in (smooth_leaky, randomized_smooth_leaky), paired 95% Student-t intervals over seeds of
N - relu and of N - best standard activation (the standard activation with the highest mean late accuracy).

- supported: for both N, mean(N - relu) >= 3 points with its interval above 0, and the interval of
  N - best lies above -1 point (not worse than the best standard activation by more than 1 point);
- not supported: for either N the interval of N - relu lies entirely at or below 0;
- inconclusive otherwise (or with fewer than 2 seeds).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Verdict, decider
from iclr26.harness.stats import t_interval

__all__ = ["GAIN_POINTS", "NEW", "SLACK_POINTS", "STANDARD", "plasticity_decider"]

NEW = ("smooth_leaky", "randomized_smooth_leaky")
STANDARD = ("relu", "leaky_relu", "rrelu", "elu", "gelu", "tanh")
GAIN_POINTS = 3.0
SLACK_POINTS = 1.0


def plasticity_decider(
    metric: str = "late_acc", new: Sequence[str] = NEW, standard: Sequence[str] = STANDARD
) -> Decider:
    """The brief's supported / not supported / inconclusive rule on ``<metric>_<activation>`` per seed."""
    if "relu" not in standard:
        raise ValueError(f"standard must include 'relu' (the reference of the claim), got {tuple(standard)}")
    names = [f"{metric}_{a}" for a in (*new, *standard)]

    @decider(
        *names,
        description=f"{'/'.join(new)} beat relu by >= {GAIN_POINTS} points and trail the best standard "
        f"activation by < {SLACK_POINTS}",
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        col = {a: np.array([float(r[f"{metric}_{a}"]) for r in rows]) for a in (*new, *standard)}
        if not all(np.all(np.isfinite(v)) for v in col.values()):
            return Verdict(Outcome.INCONCLUSIVE, "non-finite accuracies in some seeds", n_seeds=len(rows))
        if len(rows) < 2:
            return Verdict(Outcome.INCONCLUSIVE, "paired intervals need >= 2 seeds", n_seeds=len(rows))
        best = max(standard, key=lambda a: float(col[a].mean()))
        parts, refuted, ok = [], False, True
        first = None
        for a in new:
            vr = t_interval(col[a] - col["relu"])
            vb = t_interval(col[a] - col[best])
            first = first or vr
            refuted |= vr.hi <= 0
            ok &= vr.estimate >= GAIN_POINTS and vr.lo > 0 and vb.lo > -SLACK_POINTS
            parts.append(
                f"{a} - relu = {vr.estimate:.3g} [{vr.lo:.3g}, {vr.hi:.3g}], "
                f"{a} - {best} = {vb.estimate:.3g} [{vb.lo:.3g}, {vb.hi:.3g}]"
            )
        outcome = Outcome.NOT_SUPPORTED if refuted else Outcome.SUPPORTED if ok else Outcome.INCONCLUSIVE
        text = (
            "; ".join(parts)
            + f" (points, paired 95% t, {len(rows)} seeds; best standard = {best}; need gain >= {GAIN_POINTS} "
            f"with lower end > 0 and lower end vs best > -{SLACK_POINTS})"
        )
        assert first is not None
        return Verdict(outcome, text, first.estimate, (first.lo, first.hi), len(rows))

    return decide
