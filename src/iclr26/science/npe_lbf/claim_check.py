"""Claim checks of the NPE-LBF reproduction (OpenReview jsPQFNmnln): the brief's rules over harness seeds.

Main rule, per task, Delta = NLL(LBF) - min(NLL(MDN), NLL(NSF)) paired by seed (metric ``<task>_delta``):
supported when on every task the mean Delta <= -0.02 nats and its 95% paired t-interval lies below 0; not
supported when on every task the mean Delta >= 0; inconclusive otherwise (mixed or small effects).

Stability rule: the across-seed standard deviation of LBF's NLL against the smallest one of the baselines, per
task: supported when LBF's is smaller on every task, not supported when larger on every task, else inconclusive.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Verdict, decider
from iclr26.harness.stats import t_interval

__all__ = ["MARGIN", "beats_baselines_decider", "stability_decider"]

MARGIN = 0.02  # nats


def beats_baselines_decider(tasks: Sequence[str]) -> Decider:
    """The brief's supported / not supported / inconclusive rule on ``<task>_delta`` over `tasks`."""
    metrics = [f"{t}_delta" for t in tasks]

    @decider(
        *metrics, description=f"NLL(LBF) - best baseline <= -{MARGIN} nats with t-interval < 0 on {tasks}"
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        parts, means, his = [], [], []
        for t, m in zip(tasks, metrics):
            d = np.array([float(r[m]) for r in rows])
            if not np.all(np.isfinite(d)):
                return Verdict(
                    Outcome.INCONCLUSIVE, f"{m} is not finite in some seeds: {d.tolist()}", n_seeds=len(rows)
                )
            iv = t_interval(d)
            if not iv.defined:
                return Verdict(
                    Outcome.INCONCLUSIVE, "the paired interval needs >= 2 seeds", iv.estimate, None, iv.n
                )
            means.append(iv.estimate)
            his.append(iv.hi)
            parts.append(f"{t}: {iv.estimate:.4g} [{iv.lo:.4g}, {iv.hi:.4g}]")
        if all(m <= -MARGIN and h < 0 for m, h in zip(means, his)):
            outcome = Outcome.SUPPORTED
        elif all(m >= 0 for m in means):
            outcome = Outcome.NOT_SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        text = (
            "Delta = NLL(LBF) - min(NLL(MDN), NLL(NSF)) in nats, mean [95% paired t]: "
            + "; ".join(parts)
            + f". Supported needs mean <= -{MARGIN} and upper end < 0 on every task; refuted when every mean >= 0"
        )
        worst = int(np.argmax(means))
        return Verdict(outcome, text, means[worst], None, len(rows))

    return decide


def stability_decider(tasks: Sequence[str], baselines: Sequence[str] = ("mdn", "nsf")) -> Decider:
    """Across-seed std of LBF's NLL vs the smallest baseline std, per task (needs >= 2 seeds)."""
    metrics = [f"{t}_{f}_nll" for t in tasks for f in ("lbf", *baselines)]

    @decider(*metrics, description=f"across-seed NLL std of LBF below every baseline's on {tasks}")
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        if len(rows) < 2:
            return Verdict(Outcome.INCONCLUSIVE, "a standard deviation needs >= 2 seeds", n_seeds=len(rows))
        ratios, parts = [], []
        for t in tasks:
            sd = {
                f: float(np.std([float(r[f"{t}_{f}_nll"]) for r in rows], ddof=1))
                for f in ("lbf", *baselines)
            }
            if not all(np.isfinite(v) for v in sd.values()):
                return Verdict(Outcome.INCONCLUSIVE, f"non-finite NLL on {t}", n_seeds=len(rows))
            best = min(sd[f] for f in baselines)
            ratio = sd["lbf"] / best if best > 0 else (1.0 if sd["lbf"] == 0 else float("inf"))
            ratios.append(ratio)
            parts.append(f"{t}: sd(LBF) = {sd['lbf']:.3g}, min sd(baselines) = {best:.3g}")
        if all(r < 1 for r in ratios):
            outcome = Outcome.SUPPORTED
        elif all(r > 1 for r in ratios):
            outcome = Outcome.NOT_SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        return Verdict(outcome, "; ".join(parts), float(max(ratios)), None, len(rows))

    return decide
