"""Claim check of zero-/few-shot evolution (arXiv 2502.10862): diversity collapse vs preservation.

Per seed (all modes start from the same initial population, so ``div_init`` is shared): ``ratio = div_ss_final /
div_init`` (simultaneous co-design), ``gap = div_fs_final - div_ss_final``, ``keep = div_fs_final / div_init``
(few-shot) and ``loss_gap = loss_fs_final - loss_ss_final``. Intervals: the brief's 95% bootstrap that resamples
population members (recomputing the mean pairwise Hamming distance or the mean loss), pooled over seeds. ``run``
computes each seed's bootstrap standard error (``se_*``, 1,000 member resamples); the pooled statistic is the mean
over seeds, its standard error ``sqrt(sum se_i^2) / n`` (seeds are independent), and the interval its normal
form ``mean +- 1.96 se`` (the harness hands a decider per-seed scalars, not the populations; see the README).

* SUPPORTED when (a) ``ratio < 0.5`` in every seed and the interval of the ratio lies below 0.5, (b) ``gap >=
  0.05`` in every seed with its interval above 0 and ``keep >= 0.9`` in every seed, and (c) the interval of
  ``loss_gap`` is not above 0;
* NOT SUPPORTED when (a) fails in every seed (no collapse anywhere) or (b) reverses in every seed (``gap < 0``
  everywhere, interval below 0);
* INCONCLUSIVE otherwise.
"""

from __future__ import annotations

import numpy as np

from iclr26.harness.claims import Comparison, Outcome, PerSeed, Rows, Verdict, column, decider, seed_spread

__all__ = ["COLLAPSE_RATIO", "DIVERSITY_GAP", "KEEP_RATIO", "Z95", "diversity_decider", "pooled_interval"]

COLLAPSE_RATIO = 0.5
DIVERSITY_GAP = 0.05
KEEP_RATIO = 0.9
Z95 = 1.959963984540054


def pooled_interval(estimates: np.ndarray, ses: np.ndarray, z: float = Z95) -> tuple[float, float, float]:
    """Mean of per-seed estimates and its normal interval from independent per-seed standard errors."""
    est = float(np.mean(estimates))
    se = float(np.sqrt(np.sum(np.asarray(ses, dtype=float) ** 2)) / len(estimates))
    return est, est - z * se, est + z * se


def _clear_win(rows: Rows) -> Rows:
    out = []
    for i, r in enumerate(rows):
        init = max(float(r["div_init"]), 0.3)
        ss = 0.3 * init
        out.append(
            {
                **r,
                "div_init": init,
                "div_ss_final": ss + seed_spread(i),
                "div_fs_final": max(init, ss + 0.1) + seed_spread(i),
                "loss_fs_final": float(r["loss_ss_final"]) - 0.05 + seed_spread(i),
                "se_ss_ratio": 1e-3,
                "se_div_gap": 1e-3,
                "se_loss_gap": 1e-3,
            }
        )
    return out


@decider(
    "div_init",
    "div_ss_final",
    "div_fs_final",
    "loss_ss_final",
    "loss_fs_final",
    "se_ss_ratio",
    "se_div_gap",
    "se_loss_gap",
    description=(
        f"simultaneous diversity falls below {COLLAPSE_RATIO} x initial (every seed, interval); few-shot ends "
        f">= {DIVERSITY_GAP} more diverse (every seed, interval > 0) and keeps >= {KEEP_RATIO} x its initial "
        "diversity; few-shot's final loss not above simultaneous's (interval)"
    ),
    compares=[Comparison("div_fs_final", "div_ss_final", True)],
    synthesize=_clear_win,
)
def diversity_decider(rows: PerSeed) -> Verdict:
    """The brief's rule (a)-(c); see the module docstring."""
    init = column(rows, "div_init")
    ss, fs = column(rows, "div_ss_final"), column(rows, "div_fs_final")
    ratio, gap, keep = ss / init, fs - ss, fs / init
    lgap = column(rows, "loss_fs_final") - column(rows, "loss_ss_final")
    r_est, r_lo, r_hi = pooled_interval(ratio, column(rows, "se_ss_ratio"))
    g_est, g_lo, g_hi = pooled_interval(gap, column(rows, "se_div_gap"))
    l_est, l_lo, l_hi = pooled_interval(lgap, column(rows, "se_loss_gap"))
    a = bool((ratio < COLLAPSE_RATIO).all()) and r_hi < COLLAPSE_RATIO
    b = bool((gap >= DIVERSITY_GAP).all()) and g_lo > 0 and bool((keep >= KEEP_RATIO).all())
    c = l_lo <= 0
    text = (
        f"(a) simultaneous final/initial diversity = {r_est:.3f} [{r_lo:.3f}, {r_hi:.3f}] (per seed "
        f"{', '.join(f'{v:.2f}' for v in ratio)}; need < {COLLAPSE_RATIO}): {'ok' if a else 'fails'}; "
        f"(b) few-shot - simultaneous final diversity = {g_est:.3f} [{g_lo:.3f}, {g_hi:.3f}] (per seed "
        f"{', '.join(f'{v:.3f}' for v in gap)}; need >= {DIVERSITY_GAP}), few-shot final/initial "
        f"{', '.join(f'{v:.2f}' for v in keep)} (need >= {KEEP_RATIO}): {'ok' if b else 'fails'}; "
        f"(c) few-shot - simultaneous final loss = {l_est:.4f} [{l_lo:.4f}, {l_hi:.4f}] (need interval not "
        f"above 0): {'ok' if c else 'fails'}"
    )
    if a and b and c:
        outcome = Outcome.SUPPORTED
    elif bool((ratio >= COLLAPSE_RATIO).all()) or (bool((gap < 0).all()) and g_hi < 0):
        outcome = Outcome.NOT_SUPPORTED
    else:
        outcome = Outcome.INCONCLUSIVE
    return Verdict(outcome, text, g_est, (g_lo, g_hi), len(rows))
