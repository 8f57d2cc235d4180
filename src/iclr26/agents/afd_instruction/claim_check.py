"""The brief's claim rule for AFD-Instruction, judged over seeds.

Paper: "AFD-Instruction" (ICLR 2026, arXiv 2602.04916): instruction tuning on the dataset improves antibody
classification by about +20 points mean accuracy over the untuned models (papernotes summary).

Per seed: Delta = tuned - few-shot mean accuracy over the classification tasks; gap = tuned - k-mer logistic
regression; design gain = tuned rule satisfaction - nearest-neighbour copy (paired on the same requests).
Interval (95%, normal) of each mean over seeds: variance = between-seed variance / n + sum of the within-seed
item-bootstrap variances (stored per seed as ``var_*``) / n^2 -- a two-stage (seed, test item) bootstrap in
closed form.

SUPPORTED: mean Delta >= 20 points with its interval above +10, AND the mean gap >= -5 points (the LM learned the
sequence -> function map, not a label prior), AND the design gain's interval lies above 0.
NOT SUPPORTED: Delta's interval lies below +10, or the mean gap < -10 points. Else INCONCLUSIVE.
"""

from __future__ import annotations

import math

import numpy as np

from iclr26.harness.claims import Comparison, Outcome, PerSeed, Rows, Verdict, column, decider, seed_spread

__all__ = ["DELTA_FLOOR", "DELTA_SUPPORT", "GAP_FAIL", "GAP_SLACK", "mean_interval", "tuning_helps"]

DELTA_SUPPORT = 0.20
DELTA_FLOOR = 0.10
GAP_SLACK = 0.05
GAP_FAIL = 0.10


def mean_interval(per_seed: np.ndarray, within_var: np.ndarray) -> tuple[float, float, float]:
    """(mean, low, high): mean over seeds with a 95% normal interval whose variance adds the between-seed
    variance of the mean and the within-seed bootstrap variances (see the module docstring)."""
    n = len(per_seed)
    between = float(np.var(per_seed, ddof=1)) / n if n > 1 else 0.0
    half = 1.96 * math.sqrt(between + float(np.sum(within_var)) / n**2)
    m = float(np.mean(per_seed))
    return m, m - half, m + half


_METRICS = (
    "tuned_acc",
    "fewshot_acc",
    "kmer_acc",
    "var_delta_fewshot",
    "tuned_design_sat",
    "nn_design_sat",
    "var_design_gain",
)


def _win(rows: Rows) -> Rows:
    return [
        {
            **r,
            "tuned_acc": 0.95 + seed_spread(i, 1e-3),
            "fewshot_acc": 0.40,
            "kmer_acc": 0.95,
            "var_delta_fewshot": 1e-4,
            "tuned_design_sat": 0.95 + seed_spread(i, 1e-3),
            "nn_design_sat": 0.80,
            "var_design_gain": 1e-4,
        }
        for i, r in enumerate(rows)
    ]


@decider(
    *_METRICS,
    description="tuned - few-shot accuracy >= 20 points (interval > 10), tuned within 5 points of k-mer LR, "
    "design rule satisfaction above the nearest-neighbour copy",
    compares=[Comparison("tuned_acc", "fewshot_acc"), Comparison("tuned_design_sat", "nn_design_sat")],
    synthesize=_win,
)
def tuning_helps(rows: PerSeed) -> Verdict:
    """The brief's three-clause rule; see the module docstring."""
    tuned, few, kmer = column(rows, "tuned_acc"), column(rows, "fewshot_acc"), column(rows, "kmer_acc")
    d, d_lo, d_hi = mean_interval(tuned - few, column(rows, "var_delta_fewshot"))
    gap = float(np.mean(tuned - kmer))
    g, g_lo, g_hi = mean_interval(
        column(rows, "tuned_design_sat") - column(rows, "nn_design_sat"), column(rows, "var_design_gain")
    )
    if d_hi < DELTA_FLOOR or gap < -GAP_FAIL:
        outcome = Outcome.NOT_SUPPORTED
    elif d >= DELTA_SUPPORT and d_lo > DELTA_FLOOR and gap >= -GAP_SLACK and g_lo > 0:
        outcome = Outcome.SUPPORTED
    else:
        outcome = Outcome.INCONCLUSIVE
    text = (
        f"Delta (tuned - few-shot accuracy) = {d:.3f} [{d_lo:.3f}, {d_hi:.3f}] (95%, seeds x items; needs >= "
        f"{DELTA_SUPPORT} with the interval above {DELTA_FLOOR}); tuned {tuned.mean():.3f} vs k-mer LR "
        f"{kmer.mean():.3f}: gap {gap:+.3f} (needs >= -{GAP_SLACK}; < -{GAP_FAIL} refutes); design rule "
        f"satisfaction tuned - NN copy = {g:+.3f} [{g_lo:.3f}, {g_hi:.3f}] (needs > 0)"
    )
    return Verdict(outcome, text, d, (d_lo, d_hi), len(rows))
