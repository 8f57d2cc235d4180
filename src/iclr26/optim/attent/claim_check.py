"""Claim check of the AtteNT reproduction (arXiv 2602.20461): the brief's three-part rule over harness seeds.

Per seed and task, target = full-data final test accuracy - 0.5 points; a method's cost ratio is its cost (in
forward-pass units) to first reach the target divided by full-data's cost to reach it, capped at 2 for a run
that never reaches it. Per seed the log ratios are averaged over the tasks (a geometric mean).

1. geometric-mean AtteNT/full cost ratio <= 0.90 with bootstrap 95% upper end < 1.0;
2. AtteNT final accuracy - full-data final accuracy (mean over tasks, paired t-interval) lower end >= -0.5 pts;
3. log(AtteNT cost ratio) - log(random-subset cost ratio) paired t-interval upper end < 0.

Supported if all three hold. Not supported if the cost-ratio interval lies entirely >= 1.0 or the mean log cost
difference to random selection is >= 0 (AtteNT measured no cheaper than random subsets). Inconclusive else.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Verdict, decider
from iclr26.harness.stats import bootstrap_interval, t_interval

__all__ = ["ACC_SLACK", "COST_CAP", "RATIO_TARGET", "attent_decider", "cost_to_target"]

ACC_SLACK = 0.005  # 0.5 accuracy points
RATIO_TARGET = 0.90
COST_CAP = 2.0


def cost_to_target(costs: Sequence[float], accuracies: Sequence[float], target: float) -> float | None:
    """The cost at the first evaluation whose accuracy is >= `target` (None when never reached)."""
    if len(costs) != len(accuracies):
        raise ValueError(
            f"costs and accuracies must have equal length, got {len(costs)} and {len(accuracies)}"
        )
    for c, a in zip(costs, accuracies):
        if a >= target:
            return float(c)
    return None


def attent_decider(tasks: Sequence[str]) -> Decider:
    """The brief's rule over `tasks`, reading ``{task}_attent_cost_ratio``, ``{task}_random_cost_ratio`` and
    ``{task}_attent_acc_gain`` (fractions, not points) per seed."""
    tasks = tuple(tasks)
    if not tasks:
        raise ValueError("tasks must name at least one task")
    names = [f"{t}_{k}" for t in tasks for k in ("attent_cost_ratio", "random_cost_ratio", "attent_acc_gain")]

    @decider(
        *names,
        description=f"geo-mean cost-to-target ratio <= {RATIO_TARGET} (CI < 1), acc >= full - 0.5 pt, beats random",
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        n = len(rows)
        arr = {k: np.array([float(r[k]) for r in rows]) for k in names}
        if not all(np.all(np.isfinite(v)) for v in arr.values()):
            return Verdict(Outcome.INCONCLUSIVE, "non-finite metrics in some seeds", n_seeds=n)
        if any(np.any(arr[f"{t}_{m}_cost_ratio"] <= 0) for t in tasks for m in ("attent", "random")):
            return Verdict(Outcome.INCONCLUSIVE, "non-positive cost ratios", n_seeds=n)
        log_a = np.mean([np.log(arr[f"{t}_attent_cost_ratio"]) for t in tasks], axis=0)
        log_r = np.mean([np.log(arr[f"{t}_random_cost_ratio"]) for t in tasks], axis=0)
        gain = np.mean([arr[f"{t}_attent_acc_gain"] for t in tasks], axis=0)
        geo = float(np.exp(log_a.mean()))
        if n < 2:
            return Verdict(Outcome.INCONCLUSIVE, "intervals need >= 2 seeds", geo, None, n)
        boot = bootstrap_interval(log_a)
        lo, hi = float(np.exp(boot.lo)), float(np.exp(boot.hi))
        acc = t_interval(gain)
        vs_random = t_interval(log_a - log_r)
        ok_cost = geo <= RATIO_TARGET and hi < 1.0
        ok_acc = acc.lo >= -ACC_SLACK
        ok_random = vs_random.hi < 0.0
        if ok_cost and ok_acc and ok_random:
            outcome = Outcome.SUPPORTED
        elif lo >= 1.0 or vs_random.estimate >= 0.0:
            outcome = Outcome.NOT_SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        text = (
            f"AtteNT/full cost-to-target ratio (geo-mean over {n} seeds x {len(tasks)} tasks) = {geo:.3g} "
            f"[{lo:.3g}, {hi:.3g}] (bootstrap 95%; need <= {RATIO_TARGET}, upper < 1); accuracy change vs full = "
            f"{100 * acc.estimate:+.2f} pts [{100 * acc.lo:+.2f}, {100 * acc.hi:+.2f}] (need lower >= -0.5); "
            f"log cost ratio vs random subset = {vs_random.estimate:+.3f} [{vs_random.lo:+.3f}, {vs_random.hi:+.3f}] "
            "(need upper < 0)"
        )
        return Verdict(outcome, text, geo, (lo, hi), n)

    return decide
