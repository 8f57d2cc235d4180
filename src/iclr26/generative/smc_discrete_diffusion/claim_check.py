"""Claim check of the SMC-DDM reproduction: relative improvement with a paired, two-level bootstrap.

Per seed the experiment stores each method's TV (between the reward histogram of its 512 returned samples and
the exact target's) and the histogram counts themselves. The paired difference ``worse - better`` is resampled
over seeds and, within each resampled seed, over the 512 samples of each method (a multinomial redraw of its
histogram). Rule of the brief: supported when the relative improvement of the means is >= 20 % and the 95 %
interval of the difference lies above 0; not supported when the interval lies below 0, or covers 0 with a
relative improvement < 5 %; inconclusive otherwise. Metrics without histograms (e.g. Var(log w)) are resampled
over seeds only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Decider, Outcome, Verdict, decider

__all__ = ["MIN_REL", "N_BINS", "NULL_REL", "hist_names", "relative_improvement"]

MIN_REL = 0.20
NULL_REL = 0.05
N_BINS = 7
N_BOOT = 4000


def hist_names(prefix: str) -> list[str]:
    """Metric names of a stored reward histogram (counts per bin)."""
    return [f"{prefix}_hist{b}" for b in range(N_BINS)]


def _tv(counts: np.ndarray, target: np.ndarray) -> np.ndarray:
    p = counts / np.maximum(counts.sum(-1, keepdims=True), 1)
    return 0.5 * np.abs(p - target).sum(-1)


def relative_improvement(
    better: str,
    worse: str,
    hist_better: str | None = None,
    hist_worse: str | None = None,
    target: str | None = None,
) -> Decider:
    """``better`` (a lower-is-better metric) improves on ``worse`` by >= 20 % with a bootstrap interval above 0.

    With ``hist_*`` prefixes and ``target`` (the exact histogram's prefix) the samples within seeds are
    resampled too and ``better``/``worse`` must be TVs of those histograms.
    """
    two_level = hist_better is not None and hist_worse is not None and target is not None
    names = [better, worse]
    if two_level:
        names += hist_names(hist_better) + hist_names(hist_worse) + hist_names(target)

    @decider(
        *names, description=f"{better} <= (1 - {MIN_REL}) * {worse}, bootstrap interval of difference > 0"
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        a = np.array([float(r[better]) for r in rows])
        b = np.array([float(r[worse]) for r in rows])
        if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
            return Verdict(Outcome.INCONCLUSIVE, "non-finite metrics in some seeds", n_seeds=len(rows))
        n = len(rows)
        diff = b - a
        est = float(diff.mean())
        rel = est / float(b.mean()) if b.mean() > 0 else float("nan")
        if n < 2:
            return Verdict(Outcome.INCONCLUSIVE, "intervals need >= 2 seeds", est, None, n)
        rng = np.random.default_rng(0)
        idx = rng.integers(0, n, size=(N_BOOT, n))
        if two_level:
            hb = np.array([[float(r[k]) for k in hist_names(hist_better)] for r in rows])
            hw = np.array([[float(r[k]) for k in hist_names(hist_worse)] for r in rows])
            tg = np.array([[float(r[k]) for k in hist_names(target)] for r in rows])
            cb = rng.multinomial(hb.sum(-1).astype(int)[idx], (hb / hb.sum(-1, keepdims=True))[idx])
            cw = rng.multinomial(hw.sum(-1).astype(int)[idx], (hw / hw.sum(-1, keepdims=True))[idx])
            boots = (_tv(cw, tg[idx]) - _tv(cb, tg[idx])).mean(-1)
        else:
            boots = diff[idx].mean(-1)
        lo, hi = (float(v) for v in np.quantile(boots, [0.025, 0.975]))
        if rel >= MIN_REL and lo > 0:
            outcome = Outcome.SUPPORTED
        elif hi < 0 or (lo <= 0 and not rel >= NULL_REL):
            outcome = Outcome.NOT_SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        text = (
            f"{worse} - {better} = {est:.4g} [{lo:.4g}, {hi:.4g}] (95% paired bootstrap, "
            f"{'seeds and samples' if two_level else 'seeds'}, {n} seeds); relative improvement {rel:.1%} "
            f"(supported needs >= {MIN_REL:.0%} and lower end > 0)"
        )
        return Verdict(outcome, text, est, (lo, hi), n)

    return decide
