"""Claim check of the Routing-Contribution reproduction (OpenReview BqyPLOkxFY), the brief's rule over seeds.

Per seed the experiment stores a token-averaged difference and its sequence-bootstrap standard error:

- ``influence_diff``: over receiver MoE layers l >= 3 (1-based), summed variance-across-experts influence of the
  earlier MoE outputs minus that of the earlier attention outputs;
- ``aarv_diff``: for receivers at least 3 layers above the sender MoE layer, AARV of zeroing the sender's
  highest-influence expert minus the mean AARV of its other experts (chosen on held-out tokens).

The seed-averaged difference gets the interval ``mean +- z * sqrt(sum se_i^2) / n`` (token bootstrap, seeds
independent). SUPPORTED if both intervals lie above 0; NOT SUPPORTED if the influence interval lies below 0
(attention outputs dominate); INCONCLUSIVE otherwise. Spearman agreements below 0.5 are flagged in the text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import scipy.stats as sps

from iclr26.harness.claims import Decider, Outcome, Verdict, decider

__all__ = ["RELIABILITY", "pooled_interval", "routing_contribution_decider"]

RELIABILITY = 0.5


def pooled_interval(est: np.ndarray, se: np.ndarray, level: float = 0.95) -> tuple[float, float, float]:
    """(mean, lo, hi) of the seed-averaged estimate from per-seed estimates and standard errors."""
    est, se = np.asarray(est, float), np.asarray(se, float)
    if est.shape != se.shape or est.ndim != 1 or est.size == 0:
        raise ValueError(f"est and se must be equal non-empty 1-D arrays, got {est.shape} and {se.shape}")
    if np.any(se < 0):
        raise ValueError("se must be non-negative")
    mean = float(est.mean())
    half = float(sps.norm.ppf(0.5 + level / 2) * np.sqrt((se**2).sum()) / est.size)
    return mean, mean - half, mean + half


def routing_contribution_decider() -> Decider:
    """The brief's rule on ``influence_diff`` / ``aarv_diff`` (with their ``_se``) and the reliability metrics."""
    keys = ("influence_diff", "influence_diff_se", "aarv_diff", "aarv_diff_se")
    rel = ("spearman_var_aarv", "spearman_linear_dense")

    @decider(*keys, *rel, description="MoE > attention influence and top-expert AARV > random, intervals > 0")
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        cols = {k: np.array([float(r[k]) for r in rows]) for k in (*keys, *rel)}
        if not all(np.all(np.isfinite(cols[k])) for k in keys):
            return Verdict(Outcome.INCONCLUSIVE, "non-finite metrics in some seeds", n_seeds=len(rows))
        a, a_lo, a_hi = pooled_interval(cols["influence_diff"], cols["influence_diff_se"])
        b, b_lo, b_hi = pooled_interval(cols["aarv_diff"], cols["aarv_diff_se"])
        if a_hi < 0:
            outcome = Outcome.NOT_SUPPORTED
        elif a_lo > 0 and b_lo > 0:
            outcome = Outcome.SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        text = (
            f"MoE - attention influence = {a:.3g} [{a_lo:.3g}, {a_hi:.3g}]; top - random expert AARV = {b:.3g} "
            f"[{b_lo:.3g}, {b_hi:.3g}] (95%, token bootstrap, {len(rows)} seeds)"
        )
        flags = [k for k in rel if np.nanmean(cols[k]) < RELIABILITY]
        if flags:
            text += (
                "; decomposition flagged unreliable ("
                + ", ".join(f"{k} = {np.nanmean(cols[k]):.2f}" for k in flags)
                + f" < {RELIABILITY})"
            )
        return Verdict(outcome, text, a, (a_lo, a_hi), len(rows))

    return decide
