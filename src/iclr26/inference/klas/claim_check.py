"""The claim check of the KLAS reproduction (arXiv 2605.29259), the brief's rule over runs (seed x family).

(1) KLAS's area under the accuracy-FLOPs Pareto curve minus SN-Net's: 95% Student-t interval over the runs
    (3 seeds x 2 families = 6 runs, 5 df) above 0, and KLAS's area above random selection's in >= 5 of 6 runs
    (the same fraction, rounded up, for other run counts);
(2) premise: over every stitch fine-tuned in a run, Spearman correlation between pre-fine-tuning KL and the
    residual of fine-tuned accuracy after a linear fit on normalised FLOPs, pooled over runs, bootstrap 95% CI
    below 0.

Supported if (1) and (2) hold; not supported if the AUC gain's interval has its lower end <= 0 and the
correlation's CI is not below 0; inconclusive otherwise.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
from scipy.stats import rankdata

from iclr26.harness.claims import Decider, Outcome, Verdict, decider
from iclr26.harness.stats import t_interval

__all__ = ["FAMILIES", "MAX_STITCHES", "klas_decider", "spearman_bootstrap"]

FAMILIES = ("mixer", "cnn")
MAX_STITCHES = 48  # premise slots per run: prem_<family>_<k>_kl / _res, NaN when unused
RANDOM_FRACTION = 5 / 6


def _spearman(x: np.ndarray, y: np.ndarray) -> float:
    rx, ry = rankdata(x), rankdata(y)
    rx, ry = rx - rx.mean(), ry - ry.mean()
    den = math.sqrt(float((rx**2).sum() * (ry**2).sum()))
    return float((rx * ry).sum() / den) if den > 0 else 0.0


def spearman_bootstrap(
    x: np.ndarray, y: np.ndarray, n_boot: int = 2000, seed: int = 0
) -> tuple[float, float, float]:
    """Spearman rho of (x, y) and its percentile-bootstrap 95% CI over resampled pairs."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    rho = _spearman(x, y)
    rng = np.random.default_rng(seed)
    boots = [_spearman(x[idx], y[idx]) for idx in rng.integers(0, len(x), size=(n_boot, len(x)))]
    lo, hi = np.quantile(boots, [0.025, 0.975])
    return rho, float(lo), float(hi)


def _premise(rows: Sequence[Mapping[str, float]]) -> tuple[np.ndarray, np.ndarray]:
    kl, res = [], []
    for r in rows:
        for fam in FAMILIES:
            for k in range(MAX_STITCHES):
                a, b = r.get(f"prem_{fam}_{k}_kl", math.nan), r.get(f"prem_{fam}_{k}_res", math.nan)
                if math.isfinite(a) and math.isfinite(b):
                    kl.append(a)
                    res.append(b)
    return np.array(kl), np.array(res)


def klas_decider() -> Decider:
    """The brief's supported / not supported / inconclusive rule."""
    names = [f"auc_gain_{m}_{fam}" for m in ("snnet", "random") for fam in FAMILIES]

    @decider(
        *names, description="AUC gain over SN-Net (t-interval > 0), over random in >= 5/6 runs, KL premise"
    )
    def decide(rows: Sequence[Mapping[str, float]]) -> Verdict:
        gains = np.array([float(r[f"auc_gain_snnet_{f}"]) for r in rows for f in FAMILIES])
        vs_random = np.array([float(r[f"auc_gain_random_{f}"]) for r in rows for f in FAMILIES])
        if not (np.all(np.isfinite(gains)) and np.all(np.isfinite(vs_random))):
            return Verdict(Outcome.INCONCLUSIVE, "non-finite AUC gains", n_seeds=len(rows))
        iv = t_interval(gains)
        if not iv.defined:
            return Verdict(Outcome.INCONCLUSIVE, "the interval needs >= 2 runs", iv.estimate, None, len(rows))
        wins = int((vs_random > 0).sum())
        need = math.ceil(RANDOM_FRACTION * len(vs_random) - 1e-9)
        kl, res = _premise(rows)
        if len(kl) >= 4:
            rho, lo, hi = spearman_bootstrap(kl, res)
        else:
            rho, lo, hi = math.nan, math.nan, math.nan
        c1 = iv.lo > 0 and wins >= need
        c2 = bool(hi < 0)
        text = (
            f"AUC(KLAS) - AUC(SN-Net) = {iv.estimate:.4f} [{iv.lo:.4f}, {iv.hi:.4f}] over {iv.n} runs; "
            f"KLAS > random in {wins}/{len(vs_random)} runs (need {need}); premise Spearman(KL, FLOPs-adjusted "
            f"accuracy) = {rho:.3f} [{lo:.3f}, {hi:.3f}] over {len(kl)} stitches"
        )
        if c1 and c2:
            outcome = Outcome.SUPPORTED
        elif iv.lo <= 0 and not c2:
            outcome = Outcome.NOT_SUPPORTED
        else:
            outcome = Outcome.INCONCLUSIVE
        return Verdict(outcome, text, iv.estimate, (iv.lo, iv.hi), len(rows))

    return decide
