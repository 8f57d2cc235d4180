"""Claim check of the DADO reproduction (arXiv 2511.03032): the brief's rule on paired per-run gaps.

Every harness seed runs ``n_instances`` fresh instances per problem size and stores, for each method, the
normalised final score per instance (``{size}_i{k}_{method}_score``) and its mean over the instances
(``{size}_{method}_score``). The gap of a run is DADO's score minus the baseline's on the same instance and
seed; the runs of all seeds are pooled (instances are drawn afresh from each seed, so runs are independent).
With a 95% percentile bootstrap interval of the mean gap at the large size:

- supported: mean >= 0.05, interval lower end > 0, and the mean gap at the large size exceeds the mean gap at
  the small size (growth with problem size; its two-sample interval is reported, the point estimates decide);
- not supported: interval upper end <= 0;
- inconclusive otherwise.

A run's gap is read as the seed's mean gap (from the seed's mean scores, the numbers the claim compares) plus
the run's deviation from it within the seed (from the per-instance scores). With consistent records this is
exactly the per-run difference; it makes the seed-level scores the ones that decide, so that replacing DADO's
mean score by the baseline's takes the gap to zero.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.checks import check_choice, check_int
from iclr26.harness.claims import Comparison, Decider, Outcome, Rows, Verdict, decider
from iclr26.harness.stats import bootstrap_interval

__all__ = ["BASELINES", "MIN_GAP", "gap_decider", "growth_interval", "pooled_gaps"]

MIN_GAP = 0.05
#: claim tag -> the baseline method whose score DADO's is compared with
BASELINES = {"ar": "eda_ar", "tree": "eda_tree"}


def _names(size: str, base: str, n_instances: int) -> tuple[list[str], list[str], str, str]:
    return (
        [f"{size}_i{k}_dado_score" for k in range(n_instances)],
        [f"{size}_i{k}_{base}_score" for k in range(n_instances)],
        f"{size}_dado_score",
        f"{size}_{base}_score",
    )


def pooled_gaps(rows: Sequence[Mapping[str, float]], size: str, base: str, n_instances: int) -> np.ndarray:
    """Per-run gaps DADO - `base` at `size`, all seeds pooled in seed then instance order (module docstring)."""
    dado_k, base_k, dado_mean, base_mean = _names(size, base, n_instances)
    out = []
    for row in rows:
        runs = np.array([float(row[a]) - float(row[b]) for a, b in zip(dado_k, base_k)])
        out.extend((float(row[dado_mean]) - float(row[base_mean])) + runs - runs.mean())
    return np.asarray(out, dtype=float)


def growth_interval(
    large: np.ndarray, small: np.ndarray, level: float = 0.95, n_boot: int = 10_000, seed: int = 0
) -> tuple[float, float]:
    """Percentile interval of mean(large) - mean(small), resampling the two groups independently."""
    rng = np.random.default_rng(seed)
    a = large[rng.integers(0, large.size, size=(n_boot, large.size))].mean(1)
    b = small[rng.integers(0, small.size, size=(n_boot, small.size))].mean(1)
    lo, hi = np.quantile(a - b, [0.5 - level / 2, 0.5 + level / 2])
    return float(lo), float(hi)


def _win(sizes: tuple[str, str], base: str, n_instances: int):
    """Synthetic clear win: DADO ahead by 0.3 at the large size and 0.1 at the small one, in every run."""

    def synth(rows: Rows) -> Rows:
        out = []
        for i, row in enumerate(rows):
            row = dict(row)
            for size, gap in zip(sizes, (0.1, 0.3)):
                dado_k, base_k, dado_mean, _ = _names(size, base, n_instances)
                for k, (a, b) in enumerate(zip(dado_k, base_k)):
                    row[a] = float(row[b]) + gap + 0.01 * (((i + k) % 3) - 1)
                row[dado_mean] = float(np.mean([row[a] for a in dado_k]))
            out.append(row)
        return out

    return synth


def gap_decider(method: str, sizes: tuple[str, str] = ("small", "large"), n_instances: int = 6) -> Decider:
    """The brief's rule for DADO minus EDA(`method`) ("ar" or "tree"); `sizes` = (small, large) setting names;
    `n_instances` = instances per seed and size (every judged budget must run exactly that many)."""
    check_choice("method", method, BASELINES)
    check_int("n_instances (the interval pools runs)", n_instances, low=2)
    small, large = sizes
    base = BASELINES[method]
    metrics = []
    for size in sizes:
        dado_k, base_k, dado_mean, base_mean = _names(size, base, n_instances)
        metrics += [*dado_k, *base_k, dado_mean, base_mean]

    @decider(
        *metrics,
        description=f"DADO - EDA({method}) at {large}: mean >= {MIN_GAP}, bootstrap CI > 0, gap grows from {small}",
        min_seeds=1,  # the interval pools n_instances >= 2 independent runs per seed
        compares=[Comparison(f"{large}_dado_score", f"{large}_{base}_score", True)],
        synthesize=_win(sizes, base, n_instances),
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        g_large = pooled_gaps(rows, large, base, n_instances)
        g_small = pooled_gaps(rows, small, base, n_instances)
        iv = bootstrap_interval(g_large)
        growth = float(g_large.mean() - g_small.mean())
        lo_g, hi_g = growth_interval(g_large, g_small)
        grow_text = f"growth {growth:.3g} [{lo_g:.3g}, {hi_g:.3g}] (two-sample bootstrap)"
        if iv.hi <= 0:
            outcome = Outcome.NOT_SUPPORTED
        elif iv.estimate >= MIN_GAP and iv.lo > 0 and growth > 0:
            outcome = Outcome.SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        text = (
            f"gap at {large} = {iv.estimate:.3g} [{iv.lo:.3g}, {iv.hi:.3g}] (95% bootstrap, {iv.n} runs over "
            f"{len(rows)} seeds; need >= {MIN_GAP} and lower end > 0); gap at {small} = {g_small.mean():.3g}; "
            f"{grow_text} (need > 0)"
        )
        return Verdict(outcome, text, iv.estimate, (iv.lo, iv.hi), len(rows))

    return decide
