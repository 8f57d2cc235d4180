"""Claim check of the RG-VFM reproduction (arXiv 2502.12981): the brief's paired rule over harness seeds.

Per seed (same data, initialisation and batches for both methods): gain = in-cell rate(RG-VFM intrinsic) -
in-cell rate(RFM), mmd_diff = MMD^2(RG-VFM) - MMD^2(RFM). 95% Student-t interval of the gain over seeds.
Supported: mean gain >= 0.02 (2 points), interval lower end > 0 and mean mmd_diff <= 0. Not supported: interval
upper end <= 0. Inconclusive otherwise. Seeds where the task did not run (``<task>_ran == 0``, e.g. H^2 on
fewer seeds) are skipped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Verdict, decider
from iclr26.harness.stats import t_interval

__all__ = ["MIN_GAIN", "incell_gain_decider"]

MIN_GAIN = 0.02


def incell_gain_decider(task: str, min_gain: float = MIN_GAIN, prefix: str = "") -> Decider:
    """The brief's supported / not supported / inconclusive rule for `task` ("s2" or "h2").

    `prefix` selects another RG-VFM variant's metrics, e.g. ``"proj_"`` -> ``s2_proj_incell_gain``.
    """
    g, m, ran = f"{task}_{prefix}incell_gain", f"{task}_{prefix}mmd_diff", f"{task}_ran"

    @decider(
        g,
        m,
        ran,
        description=f"{task}: RG-VFM - RFM in-cell gain >= {min_gain} (t-interval > 0), MMD not worse",
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        rows = [r for r in rows if float(r[ran]) == 1.0]
        gains = np.array([float(r[g]) for r in rows])
        mmds = np.array([float(r[m]) for r in rows])
        if not (np.all(np.isfinite(gains)) and np.all(np.isfinite(mmds))):
            return Verdict(Outcome.INCONCLUSIVE, "non-finite metrics in some seeds", n_seeds=len(rows))
        if len(rows) < 2:
            est = float(gains.mean()) if len(rows) else None
            return Verdict(Outcome.INCONCLUSIVE, "intervals need >= 2 seeds", est, None, len(rows))
        iv = t_interval(gains)
        mmd = float(mmds.mean())
        if iv.hi <= 0:
            outcome = Outcome.NOT_SUPPORTED
        elif iv.lo > 0 and iv.estimate >= min_gain and mmd <= 0:
            outcome = Outcome.SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        text = (
            f"in-cell gain = {iv.estimate:.3g} [{iv.lo:.3g}, {iv.hi:.3g}] (95% t, {iv.n} seeds; need >= {min_gain} "
            f"and lower end > 0); MMD^2 diff = {mmd:.3g} (need <= 0)"
        )
        return Verdict(outcome, text, iv.estimate, (iv.lo, iv.hi), iv.n)

    return decide
