"""The brief's claim check for UniRoute (ICLR 2026, ka82fvJ5f1), judged over (split, pool) pairs.

Claim: on unseen LLMs, UniRoute with the learned cluster map has a larger area under the deferral curve (AUDC)
than ZeroRouter and than the K-NN router (same S_val labels; K-NN's k tuned on the training LLMs).

The pairs are not independent: the splits of one pool seed share its 60 models. Every interval is therefore
clustered by pool (:func:`pool_interval`): the paired differences are averaged within each pool first, and the
95% Student-t interval runs over the pool means (3 pools at the quick budget: 2 df).

* (a) gain over ZeroRouter: paired AUDC(map) - AUDC(zero), pool-clustered interval;
* (b) gain over K-NN: paired AUDC(map) - AUDC(knn), pool-clustered interval;
* (c) share of the ZeroRouter -> clairvoyant gap closed: (mean AUDC(map) - mean AUDC(zero)) /
  (mean AUDC(oracle) - mean AUDC(zero)) >= 0.5 (point estimate; a pool bootstrap interval is reported).

SUPPORTED when (a) and (b) lie above 0 and (c) >= 0.5; NOT SUPPORTED when the whole interval of (a) lies below 0
(the data exclude any gain over ZeroRouter); INCONCLUSIVE otherwise (an interval of (a) that merely reaches 0,
beating ZeroRouter but not K-NN, closing < 50% of the gap, or an undefined gap). K-means vs learned map is
reported in the explanation, not judged. That the clairvoyant router beats ZeroRouter in every pair (prompt-aware
routing can help in the pool at all) is a precondition of the claim (:data:`ROUTING_CAN_HELP`).
"""

from __future__ import annotations

import math

import numpy as np

from iclr26.harness.claims import Decider, Outcome, PerSeed, Precondition, Verdict, decider
from iclr26.harness.claims import column as _col
from iclr26.harness.stats import Interval, t_interval

__all__ = ["GAP_MIN", "ROUTING_CAN_HELP", "gap_closed", "pool_interval", "uniroute_claim"]

GAP_MIN = 0.5
AUDCS = ("uniroute_map", "uniroute_kmeans", "zero", "knn", "oracle")

ROUTING_CAN_HELP = Precondition(
    "gain_oracle_vs_zero",
    ">",
    0.0,
    "the clairvoyant router (trained with the unseen LLMs' labels) has a larger AUDC than prompt-independent "
    "ZeroRouter: prompt-aware routing can help in this pool",
)


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


def _groups(pools: np.ndarray) -> list[np.ndarray]:
    """Row indices of each pool, in order of first appearance."""
    keys = list(dict.fromkeys(pools.tolist()))
    return [np.flatnonzero(pools == k) for k in keys]


def pool_interval(values: np.ndarray, pools: np.ndarray, level: float = 0.95) -> Interval:
    """Student-t interval over the pool means of `values` (pairs of one pool averaged first).

    Examples
    --------
    >>> iv = pool_interval(np.array([1.0, 1.2, 2.0, 2.2, 3.0, 3.2]), np.array([0, 0, 1, 1, 2, 2]))
    >>> round(iv.estimate, 3), iv.n
    (2.1, 3)
    """
    means = np.array([values[g].mean() for g in _groups(np.asarray(pools))])
    return t_interval(means, level)


def _gap_bootstrap(
    ours: np.ndarray,
    zero: np.ndarray,
    oracle: np.ndarray,
    pools: np.ndarray,
    n_boot: int = 2000,
    seed: int = 0,
) -> tuple[float, float]:
    """95% percentile interval of :func:`gap_closed` over pools resampled with replacement (fixed seed)."""
    groups = _groups(pools)
    rng = np.random.default_rng(seed)
    boots = []
    for pick in rng.integers(0, len(groups), (n_boot, len(groups))):
        idx = np.concatenate([groups[k] for k in pick])
        boots.append(gap_closed(ours[idx], zero[idx], oracle[idx]))
    arr = np.array(boots)
    arr = arr[np.isfinite(arr)]
    if arr.size == 0:
        return float("nan"), float("nan")
    lo, hi = np.quantile(arr, [0.025, 0.975])
    return float(lo), float(hi)


def _diff_text(name: str, iv: Interval) -> str:
    if not iv.defined:
        return f"{name} = {iv.estimate:.4g} (interval undefined with {iv.n} pool{'s' if iv.n != 1 else ''})"
    return f"{name} = {iv.estimate:.4g} [{iv.lo:.4g}, {iv.hi:.4g}] (95% t over {iv.n} pool means)"


def _win(rows: list[dict[str, float]]) -> list[dict[str, float]]:
    """One pool per seed; UniRoute 0.18 above ZeroRouter, 0.05 above K-NN, the clairvoyant router 0.02 above it."""
    out = []
    for i, r in enumerate(rows):
        zero = float(r["audc_zero"]) if math.isfinite(float(r["audc_zero"])) else 0.6
        j = 1e-3 * ((i % 3) - 1)
        ours = zero + 0.18 + j
        out.append(
            {
                **r,
                "pool_seed": float(i),
                "audc_zero": zero,
                "audc_uniroute_map": ours,
                "audc_uniroute_kmeans": ours - 0.01,
                "audc_knn": ours - 0.05 + 2 * j,
                "audc_oracle": zero + 0.2,
            }
        )
    return out


def _judge(rows: PerSeed) -> Verdict:
    cols = {k: _col(rows, f"audc_{k}") for k in AUDCS}
    pools = _col(rows, "pool_seed")
    ours = cols["uniroute_map"]
    iv_a = pool_interval(ours - cols["zero"], pools)
    iv_b = pool_interval(ours - cols["knn"], pools)
    gap = gap_closed(ours, cols["zero"], cols["oracle"])
    gap_text = f"(c) gap to the clairvoyant router closed = {gap:.3g}"
    if iv_a.n >= 2 and np.isfinite(gap):
        lo, hi = _gap_bootstrap(ours, cols["zero"], cols["oracle"], pools)
        gap_text += f" (pool bootstrap 95% [{lo:.3g}, {hi:.3g}])"
    gap_text += f"; needed >= {GAP_MIN}"
    km_text = _diff_text("AUDC map - kmeans", pool_interval(ours - cols["uniroute_kmeans"], pools))
    km_zero = _diff_text("AUDC kmeans - zero", pool_interval(cols["uniroute_kmeans"] - cols["zero"], pools))
    km_knn = _diff_text("AUDC kmeans - knn", pool_interval(cols["uniroute_kmeans"] - cols["knn"], pools))
    if not (iv_a.defined and iv_b.defined):
        outcome = Outcome.INCONCLUSIVE
    elif iv_a.hi < 0:
        outcome = Outcome.NOT_SUPPORTED
    elif iv_a.lo > 0 and iv_b.lo > 0 and np.isfinite(gap) and gap >= GAP_MIN:
        outcome = Outcome.SUPPORTED
    else:
        outcome = Outcome.INCONCLUSIVE
    return Verdict(
        outcome,
        f"{_diff_text('(a) AUDC map - zero', iv_a)}; {_diff_text('(b) AUDC map - knn', iv_b)}; {gap_text}; "
        f"{len(rows)} pairs. Not judged: {km_text}; {km_zero}; {km_knn}",
        iv_a.estimate,
        (iv_a.lo, iv_a.hi) if iv_a.defined else None,
        len(rows),
    )


def uniroute_claim() -> Decider:
    """The brief's rule as one :class:`~iclr26.harness.claims.Decider` (see the module docstring)."""
    return decider(
        *(f"audc_{k}" for k in AUDCS),
        "pool_seed",
        description="UniRoute (map) AUDC > ZeroRouter and > K-NN (pool-clustered), closing >= 50% of the gap",
        compares=[("audc_uniroute_map", "audc_zero", True), ("audc_uniroute_map", "audc_knn", True)],
        synthesize=_win,
    )(_judge)
