"""Claim check of the entity-binding reproduction (arXiv 2510.06182): the brief's rule over harness seeds.

Per seed the experiment reports: ``acc_gate`` (clean accuracy at the largest evaluated n), ``agree_full`` (held-out
mean ``1 - JS_2`` of the three-mechanism model), ``adv_full_pos`` (its advantage over the positional-only model)
with a 95% bootstrap interval over held-out cells (``adv_full_pos_lo``), ``pos_mass_gap_lo`` (lower end of the
bootstrap interval of the LM's positional-target mass at first/last minus middle query positions, n >= 9) and
``sigma_gap`` (fitted sigma in the middle minus at the ends, n >= 9).

* Inconclusive ("binding not learned") if some seed has ``acc_gate < 0.8``.
* Supported if mean ``agree_full >= 0.85``, mean ``adv_full_pos >= 0.05``, and in every seed
  ``adv_full_pos_lo > 0``, ``pos_mass_gap_lo > 0`` and ``sigma_gap > 0``.
* Not supported if ``adv_full_pos < 0.02`` in every seed (no mixing). Inconclusive otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Verdict, decider
from iclr26.harness.stats import t_interval

__all__ = ["ACC_GATE", "MIN_ADVANTAGE", "MIN_AGREEMENT", "NO_MIX", "binding_decider"]

ACC_GATE = 0.8
MIN_AGREEMENT = 0.85
MIN_ADVANTAGE = 0.05
NO_MIX = 0.02
METRICS = ("acc_gate", "agree_full", "adv_full_pos", "adv_full_pos_lo", "pos_mass_gap_lo", "sigma_gap")


def binding_decider() -> Decider:
    """The brief's supported / not supported / inconclusive rule for the mixing claim."""

    @decider(
        *METRICS, description="3-mechanism agreement >= 0.85, beats positional-only by >= 0.05, middle weaker"
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        cols = {m: np.array([float(r[m]) for r in rows]) for m in METRICS}
        n = len(rows)
        if not all(np.all(np.isfinite(v)) for v in cols.values()):
            return Verdict(Outcome.INCONCLUSIVE, "non-finite metrics in some seeds", n_seeds=n)
        adv = cols["adv_full_pos"]
        iv = t_interval(adv) if n >= 2 else None
        est = float(adv.mean())
        interval = (iv.lo, iv.hi) if iv is not None and iv.defined else None
        if cols["acc_gate"].min() < ACC_GATE:
            text = (
                f"inconclusive: binding not learned (clean accuracy at the largest n = {cols['acc_gate'].min():.3g} "
                f"< {ACC_GATE} in some seed)"
            )
            return Verdict(Outcome.INCONCLUSIVE, text, est, interval, n)
        text = (
            f"agreement = {cols['agree_full'].mean():.3g} (need >= {MIN_AGREEMENT}); advantage over positional-only "
            f"= {est:.3g} (need >= {MIN_ADVANTAGE}, bootstrap lower ends {np.round(cols['adv_full_pos_lo'], 4).tolist()}"
            f" > 0); middle positional-mass gap lower ends {np.round(cols['pos_mass_gap_lo'], 4).tolist()} > 0; "
            f"sigma gap {np.round(cols['sigma_gap'], 3).tolist()} > 0"
        )
        if np.all(adv < NO_MIX):
            return Verdict(
                Outcome.NOT_SUPPORTED,
                f"no mixing (advantage < {NO_MIX} in every seed): " + text,
                est,
                interval,
                n,
            )
        ok = (
            cols["agree_full"].mean() >= MIN_AGREEMENT
            and est >= MIN_ADVANTAGE
            and np.all(cols["adv_full_pos_lo"] > 0)
            and np.all(cols["pos_mass_gap_lo"] > 0)
            and np.all(cols["sigma_gap"] > 0)
        )
        return Verdict(Outcome.SUPPORTED if ok else Outcome.INCONCLUSIVE, text, est, interval, n)

    return decide
