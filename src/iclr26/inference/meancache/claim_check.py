"""Claim check of the MeanCache reproduction (arXiv 2601.19961), the brief's rule over harness seeds.

At budget B (<= 12 of 50, >= 4x), per seed: gain = PSNR(MeanCache) - max PSNR(instantaneous-velocity baselines),
each PSNR a mean over the noise-paired samples; fd_ratio = Frechet(MeanCache) / Frechet(best-PSNR baseline).
95% Student-t interval of the gain over seeds. Supported: mean gain >= 1 dB, interval above 0 and mean
fd_ratio <= 1.05. Not supported: interval lower end <= 0. Inconclusive otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Verdict, decider
from iclr26.harness.stats import t_interval

__all__ = ["FD_SLACK", "GAIN_DB", "meancache_decider"]

GAIN_DB = 1.0
FD_SLACK = 1.05


def meancache_decider(task: str, budget: int) -> Decider:
    """The brief's supported / not supported / inconclusive rule at `budget` for `task`."""
    g, f = f"{task}_b{budget}_psnr_gain", f"{task}_b{budget}_fd_ratio"

    @decider(
        g, f, description=f"{task} B={budget}: PSNR gain >= {GAIN_DB} dB (t-interval > 0), FD <= {FD_SLACK}x"
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        gains = np.array([float(r[g]) for r in rows])
        ratios = np.array([float(r[f]) for r in rows])
        if not (np.all(np.isfinite(gains)) and np.all(np.isfinite(ratios))):
            return Verdict(Outcome.INCONCLUSIVE, "non-finite metrics in some seeds", n_seeds=len(rows))
        iv = t_interval(gains)
        if not iv.defined:
            return Verdict(Outcome.INCONCLUSIVE, "intervals need >= 2 seeds", iv.estimate, None, iv.n)
        ratio = float(ratios.mean())
        if iv.lo <= 0:
            outcome = Outcome.NOT_SUPPORTED
        elif iv.estimate >= GAIN_DB and ratio <= FD_SLACK:
            outcome = Outcome.SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        text = (
            f"PSNR gain = {iv.estimate:.3g} dB [{iv.lo:.3g}, {iv.hi:.3g}] (95% t, {iv.n} seeds; need >= {GAIN_DB} "
            f"and lower end > 0); Frechet ratio = {ratio:.3g} (need <= {FD_SLACK})"
        )
        return Verdict(outcome, text, iv.estimate, (iv.lo, iv.hi), iv.n)

    return decide
