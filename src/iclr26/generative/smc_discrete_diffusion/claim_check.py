"""Claim check of the SMC-DDM reproduction: relative improvement with a paired, two-level bootstrap.

Per seed the experiment stores each method's TV (between the reward histogram of its 512 returned samples and
the exact target's) and the histogram counts themselves. The paired difference ``worse - better`` is resampled
over seeds and, within each resampled seed, over the 512 samples of each method (a multinomial redraw of its
histogram). Supported when the relative improvement of the means is >= 20 % and the 95 % interval of the
difference lies above 0 (the brief's rule); not supported when the whole interval lies below the claimed effect,
20 % of the worse method's mean (the data exclude a 20 % improvement); inconclusive otherwise. (The brief also
refuted an interval merely covering 0 when the improvement was < 5 %; that says nothing against a 20 % effect
the interval still contains, so it is inconclusive here.) Metrics without histograms (e.g. Var(log w)) are
resampled over seeds only.

Whether the setting is the one the claims are about (the base model learned p_data, the amortised proposal
did not collapse) is declared as preconditions on the claims, see :func:`model_fit_precondition` and
:func:`coverage_precondition`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from iclr26.harness.claims import Comparison, Decider, Outcome, Precondition, Rows, Verdict, decider

__all__ = [
    "MAX_FIT_RATIO",
    "MIN_OFF_MODE",
    "MIN_REL",
    "N_BINS",
    "coverage_precondition",
    "hist_names",
    "model_fit_precondition",
    "relative_improvement",
]

MIN_REL = 0.20
N_BINS = 7
N_BOOT = 4000
#: the trained base model's reward histogram must be at least twice as close (TV) to p_data's as that of a model
#: predicting every token uniformly
MAX_FIT_RATIO = 0.5
#: a proposal "covers" the target when its returned samples put at least half as much mass off the target's
#: modal reward bin as the target does (exact sampling: 1; collapse onto the mode: 0)
MIN_OFF_MODE = 0.5


def model_fit_precondition() -> Precondition:
    """The base MDLM learned the data: TV(model, p_data) / TV(uniform model, p_data) <= 0.5."""
    return Precondition(
        "model_fit_ratio",
        "<=",
        MAX_FIT_RATIO,
        "the trained MDLM's reward histogram is at least twice as close (TV) to p_data's as a uniform "
        "model's (the untrained trivial predictor)",
    )


def coverage_precondition(key: str) -> Precondition:
    """The method behind ``key`` (e.g. ``a05_n8_smc_amortised``) did not collapse onto the target's mode."""
    return Precondition(
        f"{key}_off_mode",
        ">=",
        MIN_OFF_MODE,
        "the returned samples put at least half as much mass off the target's modal reward bin as the exact "
        "target does (exact sampling gives 1, a proposal collapsed onto the mode 0)",
    )


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

    def win(rows: Rows) -> Rows:
        """A clear win: `better` at a third of a (positive) `worse`; with histograms, `better`'s follows the
        target and `worse`'s sits in the target's least likely bin, and the TVs are recomputed from them."""
        out = []
        for i, row in enumerate(rows):
            row = dict(row)
            if two_level:
                tg = np.array([float(row[k]) for k in hist_names(target)])
                total = 512
                good = np.round(np.clip(tg, 0, None) / max(float(np.clip(tg, 0, None).sum()), 1e-12) * total)
                bad = np.zeros(N_BINS)
                bad[int(np.argmin(tg))] = total
                for k, c in zip(hist_names(hist_better), good):
                    row[k] = float(c)
                for k, c in zip(hist_names(hist_worse), bad):
                    row[k] = float(c)
                row[better] = float(_tv(good, tg))
                row[worse] = float(_tv(bad, tg))
            else:
                row[worse] = abs(float(row[worse])) + 1.0 + 0.01 * (i % 3)
                row[better] = row[worse] / 3.0
            out.append(row)
        return out

    @decider(
        *names,
        description=f"{better} <= (1 - {MIN_REL}) * {worse}, bootstrap interval of difference > 0",
        compares=[Comparison(better, worse, higher_is_better=False)],
        synthesize=win,
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        a = np.array([float(r[better]) for r in rows])
        b = np.array([float(r[worse]) for r in rows])
        n = len(rows)
        diff = b - a
        est = float(diff.mean())
        rel = est / float(b.mean()) if b.mean() > 0 else float("nan")
        claimed = MIN_REL * float(b.mean())  # the claimed effect as a difference
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
        elif hi < claimed:
            outcome = Outcome.NOT_SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        text = (
            f"{worse} - {better} = {est:.4g} [{lo:.4g}, {hi:.4g}] (95% paired bootstrap, "
            f"{'seeds and samples' if two_level else 'seeds'}, {n} seeds); relative improvement {rel:.1%} "
            f"(supported needs >= {MIN_REL:.0%} and lower end > 0; refuted when the interval lies below the "
            f"claimed {MIN_REL:.0%} = {claimed:.4g})"
        )
        return Verdict(outcome, text, est, (lo, hi), n)

    return decide
