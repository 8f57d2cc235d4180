"""Intervals over seeds: Student-t and bootstrap, for one sample and for paired differences.

The claims of `iclr26.harness.claims` judge a paper's statement from a handful of per-seed numbers. These
functions turn such numbers into an estimate and a two-sided interval. Everything here is deterministic:
the bootstrap draws from a fixed-seed generator so that a report recomputed from stored seeds gives the
same interval every time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["Interval", "bootstrap_interval", "interval", "paired_difference", "t_interval"]


@dataclass(frozen=True)
class Interval:
    """A point estimate with a two-sided interval at `level`; `lo`/`hi` are NaN when n < 2."""

    estimate: float
    lo: float
    hi: float
    level: float
    n: int
    method: str

    @property
    def defined(self) -> bool:
        return bool(np.isfinite(self.lo) and np.isfinite(self.hi))


def _as_sample(x: Sequence[float] | np.ndarray, name: str = "x") -> np.ndarray:
    arr = np.asarray(x, dtype=float).ravel()
    if arr.size == 0:
        raise ValueError(f"{name} is empty: need at least one value")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains non-finite values: {arr.tolist()}")
    return arr


def _check_level(level: float) -> None:
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must lie in (0, 1), got {level}")


def t_interval(x: Sequence[float] | np.ndarray, level: float = 0.95) -> Interval:
    """Student-t interval for the mean: mean +- t_{(1+level)/2, n-1} * s / sqrt(n).

    Examples
    --------
    >>> iv = t_interval([1.0, 2.0, 3.0])
    >>> round(iv.estimate, 3), iv.lo < 2.0 < iv.hi
    (2.0, True)
    """
    _check_level(level)
    arr = _as_sample(x)
    mean = float(arr.mean())
    n = arr.size
    if n < 2:
        return Interval(mean, float("nan"), float("nan"), level, n, "t")
    se = float(arr.std(ddof=1) / np.sqrt(n))
    from scipy import stats as sps  # imported here: scipy.stats costs half a second at start-up

    half = float(sps.t.ppf(0.5 + level / 2.0, df=n - 1)) * se
    return Interval(mean, mean - half, mean + half, level, n, "t")


def bootstrap_interval(
    x: Sequence[float] | np.ndarray,
    level: float = 0.95,
    statistic: Callable[[np.ndarray], np.ndarray] | None = None,
    n_boot: int = 10_000,
    seed: int = 0,
) -> Interval:
    """Percentile bootstrap interval of `statistic` (default: the mean) over resampled seeds.

    `statistic` maps an array of shape (n_boot, n) to (n_boot,). With n < 2 the interval is undefined (NaN).
    """
    _check_level(level)
    if n_boot < 100:
        raise ValueError(f"n_boot must be >= 100, got {n_boot}")
    arr = _as_sample(x)
    stat = statistic or (lambda a: a.mean(axis=-1))
    est = float(stat(arr[None, :])[0])
    n = arr.size
    if n < 2:
        return Interval(est, float("nan"), float("nan"), level, n, "bootstrap")
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(n_boot, n))
    boots = stat(arr[idx])
    lo, hi = np.quantile(boots, [0.5 - level / 2.0, 0.5 + level / 2.0])
    return Interval(est, float(lo), float(hi), level, n, "bootstrap")


def interval(x: Sequence[float] | np.ndarray, level: float = 0.95, method: str = "t") -> Interval:
    """Dispatch to :func:`t_interval` (``method="t"``) or :func:`bootstrap_interval` (``"bootstrap"``)."""
    if method == "t":
        return t_interval(x, level)
    if method == "bootstrap":
        return bootstrap_interval(x, level)
    raise ValueError(f"method must be 't' or 'bootstrap', got {method!r}")


def paired_difference(
    a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray, level: float = 0.95, method: str = "t"
) -> Interval:
    """Interval for the mean of a_i - b_i over paired seeds (same seed, two methods)."""
    arr_a, arr_b = _as_sample(a, "a"), _as_sample(b, "b")
    if arr_a.shape != arr_b.shape:
        raise ValueError(f"a and b must pair up seed by seed, got {arr_a.size} and {arr_b.size} values")
    return interval(arr_a - arr_b, level, method)
