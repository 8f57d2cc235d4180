"""Claim check of the DADO reproduction (arXiv 2511.03032): the brief's rule on paired per-run gaps.

Every harness seed runs several instances per problem size; the per-run metric ``{size}_i{k}_gap_{method}``
is DADO's normalised final score minus the baseline's on instance ``k`` (same instance, same seed). All runs
of all seeds are pooled. With a 95% percentile bootstrap interval of the mean gap at the large size:

- supported: mean >= 0.05, interval lower end > 0, and the mean gap at the large size exceeds the mean gap at
  the small size (growth with problem size; its interval is reported, the point estimates decide);
- not supported: interval upper end <= 0;
- inconclusive otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Verdict, decider
from iclr26.harness.stats import bootstrap_interval

__all__ = ["MIN_GAP", "gap_decider", "growth_interval", "pooled_gaps"]

MIN_GAP = 0.05


def pooled_gaps(rows: Sequence[Mapping[str, float]], size: str, method: str) -> np.ndarray:
    """All per-run gaps ``{size}_i{k}_gap_{method}`` of all seeds, in seed then instance order."""
    prefix, suffix = f"{size}_i", f"_gap_{method}"
    out = []
    for row in rows:
        keys = [k for k in row if k.startswith(prefix) and k.endswith(suffix)]
        keys.sort(key=lambda k: int(k[len(prefix) : -len(suffix)]))
        out.extend(float(row[k]) for k in keys)
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


def gap_decider(method: str, sizes: tuple[str, str] = ("small", "large")) -> Decider:
    """The brief's rule for DADO minus `method` ("ar" or "tree"); `sizes` = (small, large) setting names."""
    small, large = sizes

    @decider(
        f"{large}_gap_{method}",
        f"{small}_gap_{method}",
        description=f"DADO - EDA({method}) at {large}: mean >= {MIN_GAP}, bootstrap CI > 0, gap grows from {small}",
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        g_large, g_small = pooled_gaps(rows, large, method), pooled_gaps(rows, small, method)
        if g_large.size < 2 or g_small.size < 1:
            return Verdict(Outcome.INCONCLUSIVE, "need >= 2 paired runs at the large size", n_seeds=len(rows))
        if not (np.all(np.isfinite(g_large)) and np.all(np.isfinite(g_small))):
            return Verdict(Outcome.INCONCLUSIVE, "non-finite gaps in some runs", n_seeds=len(rows))
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
