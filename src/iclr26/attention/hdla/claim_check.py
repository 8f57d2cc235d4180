"""Claim check of the HDLA reproduction: the brief's paired rule on MQAR accuracy, HDLA vs Gated DeltaNet.

Per seed, ``d = 100 * (acc_hdla - acc_gdn)`` (points). Over seeds, with the paired 95% Student-t interval of d:

* inconclusive when both mixers sit at the ceiling (mean accuracy >= 99%) or both at the floor
  (mean accuracy <= chance + 5 points): the setting cannot separate them;
* not supported when the mean difference is <= 0;
* supported when the mean difference is >= 3 points and the interval lies above 0;
* inconclusive otherwise (a positive but small or noisy gain).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Verdict, decider
from iclr26.harness.stats import t_interval

__all__ = ["CEILING", "CHANCE_MARGIN", "MIN_GAIN_POINTS", "hdla_mqar_decider"]

MIN_GAIN_POINTS = 3.0
CEILING = 0.99
CHANCE_MARGIN = 0.05


def hdla_mqar_decider(ours: str, baseline: str, chance: str) -> Decider:
    """The brief's rule on the accuracies `ours` and `baseline` (fractions), with the chance level `chance`."""

    @decider(
        ours, baseline, chance, description=f"{ours} - {baseline} >= {MIN_GAIN_POINTS} points, paired t > 0"
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        a = np.array([float(r[ours]) for r in rows])
        b = np.array([float(r[baseline]) for r in rows])
        floor = float(np.mean([float(r[chance]) for r in rows])) + CHANCE_MARGIN
        if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
            return Verdict(Outcome.INCONCLUSIVE, "non-finite accuracies in some seeds", n_seeds=len(rows))
        diff = 100.0 * (a - b)
        iv = t_interval(diff)
        interval = (iv.lo, iv.hi) if iv.defined else None
        means = f"{ours} = {a.mean():.3f}, {baseline} = {b.mean():.3f}"
        text = f"difference = {iv.estimate:.3g} points"
        if iv.defined:
            text += f" [{iv.lo:.3g}, {iv.hi:.3g}] (paired 95% t, {iv.n} seeds)"
        if a.mean() >= CEILING and b.mean() >= CEILING:
            return Verdict(
                Outcome.INCONCLUSIVE,
                f"both at the ceiling (>= {CEILING:.0%}): {means}",
                iv.estimate,
                interval,
                iv.n,
            )
        if a.mean() <= floor and b.mean() <= floor:
            return Verdict(
                Outcome.INCONCLUSIVE,
                f"both at the floor (<= chance + 5 points = {floor:.3f}): {means}",
                iv.estimate,
                interval,
                iv.n,
            )
        if not iv.defined:
            return Verdict(
                Outcome.INCONCLUSIVE, f"{text}; intervals need >= 2 seeds; {means}", iv.estimate, None, iv.n
            )
        if iv.estimate <= 0:
            outcome = Outcome.NOT_SUPPORTED
        elif iv.estimate >= MIN_GAIN_POINTS and iv.lo > 0:
            outcome = Outcome.SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        return Verdict(
            outcome,
            f"{text}; need >= {MIN_GAIN_POINTS:g} with the interval above 0; {means}",
            iv.estimate,
            interval,
            iv.n,
        )

    return decide
