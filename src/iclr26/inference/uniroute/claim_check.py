"""The brief's claim check for UniRoute (ICLR 2026, ka82fvJ5f1), judged over (split, seed) pairs.

Claim: on unseen LLMs, UniRoute with the learned cluster map has a larger area under the deferral curve (AUDC)
than ZeroRouter and than the K-NN router (same S_val labels; K-NN's k tuned on the training LLMs).

* (a) gain over ZeroRouter: mean paired AUDC(map) - AUDC(zero), 95% Student-t interval;
* (b) gain over K-NN: mean paired AUDC(map) - AUDC(knn), 95% Student-t interval;
* (c) share of the ZeroRouter -> clairvoyant gap closed: (mean AUDC(map) - mean AUDC(zero)) /
  (mean AUDC(oracle) - mean AUDC(zero)) >= 0.5 (point estimate; a bootstrap interval over pairs is reported).

SUPPORTED when (a) and (b) lie above 0 and (c) >= 0.5; NOT SUPPORTED when the lower end of (a) is <= 0 (the
brief's rule); INCONCLUSIVE otherwise (beats ZeroRouter but not K-NN, or closes < 50% of the gap, or the gap is
undefined because the clairvoyant router is no better than ZeroRouter). K-means vs learned map is reported in
the explanation, not judged.
"""

from __future__ import annotations

import numpy as np

from iclr26.harness.claims import Decider, Outcome, PerSeed, Verdict
from iclr26.harness.stats import t_interval

__all__ = ["GAP_MIN", "gap_closed", "uniroute_claim"]

GAP_MIN = 0.5


def gap_closed(ours: np.ndarray, zero: np.ndarray, oracle: np.ndarray) -> float:
    """(mean ours - mean zero) / (mean oracle - mean zero); NaN when the oracle is no better than zero.

    Examples
    --------
    >>> gap_closed(np.array([0.75]), np.array([0.5]), np.array([1.0]))
    0.5
    """
    denom = float(np.mean(oracle) - np.mean(zero))
    if denom <= 0:
        return float("nan")
    return float(np.mean(ours) - np.mean(zero)) / denom


def _gap_bootstrap(
    ours: np.ndarray, zero: np.ndarray, oracle: np.ndarray, n_boot: int = 2000, seed: int = 0
) -> tuple[float, float]:
    """95% percentile interval of :func:`gap_closed` over pairs resampled with replacement (fixed seed)."""
    rng = np.random.default_rng(seed)
    n = ours.size
    boots = np.array([gap_closed(ours[i], zero[i], oracle[i]) for i in rng.integers(0, n, (n_boot, n))])
    boots = boots[np.isfinite(boots)]
    if boots.size == 0:
        return float("nan"), float("nan")
    lo, hi = np.quantile(boots, [0.025, 0.975])
    return float(lo), float(hi)


def _col(rows: PerSeed, name: str) -> np.ndarray:
    return np.array([float(r[name]) for r in rows])


def _diff_text(name: str, diff: np.ndarray) -> tuple[str, tuple[float, float] | None, float]:
    iv = t_interval(diff)
    if not iv.defined:
        return f"{name} = {iv.estimate:.4g} (interval undefined, {iv.n} pair)", None, iv.estimate
    return (
        f"{name} = {iv.estimate:.4g} [{iv.lo:.4g}, {iv.hi:.4g}] (95% t, {iv.n} pairs)",
        (iv.lo, iv.hi),
        iv.estimate,
    )


def _judge(rows: PerSeed) -> Verdict:
    cols = {k: _col(rows, f"audc_{k}") for k in ("uniroute_map", "uniroute_kmeans", "zero", "knn", "oracle")}
    if not all(np.all(np.isfinite(v)) for v in cols.values()):
        return Verdict(Outcome.INCONCLUSIVE, "some AUDC is not finite", n_seeds=len(rows))
    ours = cols["uniroute_map"]
    text_a, iv_a, est_a = _diff_text("(a) AUDC map - zero", ours - cols["zero"])
    text_b, iv_b, _ = _diff_text("(b) AUDC map - knn", ours - cols["knn"])
    gap = gap_closed(ours, cols["zero"], cols["oracle"])
    gap_text = f"(c) gap to the clairvoyant router closed = {gap:.3g}"
    if len(rows) >= 2 and np.isfinite(gap):
        lo, hi = _gap_bootstrap(ours, cols["zero"], cols["oracle"])
        gap_text += f" (pair bootstrap 95% [{lo:.3g}, {hi:.3g}])"
    gap_text += f"; needed >= {GAP_MIN}"
    km_text, _, _ = _diff_text("AUDC map - kmeans", ours - cols["uniroute_kmeans"])
    km_zero, _, _ = _diff_text("AUDC kmeans - zero", cols["uniroute_kmeans"] - cols["zero"])
    km_knn, _, _ = _diff_text("AUDC kmeans - knn", cols["uniroute_kmeans"] - cols["knn"])
    if iv_a is None or iv_b is None:
        outcome = Outcome.INCONCLUSIVE
    elif iv_a[0] <= 0:
        outcome = Outcome.NOT_SUPPORTED
    elif iv_b[0] > 0 and np.isfinite(gap) and gap >= GAP_MIN:
        outcome = Outcome.SUPPORTED
    else:
        outcome = Outcome.INCONCLUSIVE
    return Verdict(
        outcome,
        f"{text_a}; {text_b}; {gap_text}. Not judged: {km_text}; {km_zero}; {km_knn}",
        est_a,
        iv_a,
        len(rows),
    )


def uniroute_claim() -> Decider:
    """The brief's rule as one :class:`~iclr26.harness.claims.Decider` (see the module docstring)."""
    metrics = ["audc_uniroute_map", "audc_uniroute_kmeans", "audc_zero", "audc_knn", "audc_oracle"]
    return Decider(_judge, metrics, "UniRoute (map) AUDC > ZeroRouter and > K-NN, closing >= 50% of the gap")
