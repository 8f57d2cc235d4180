"""Data and missingness for the T1 reproduction (arXiv 2602.21043): a synthetic factor-driven multivariate series, statsmodels'
bundled macrodata, windowing, and NumPy masking schemes (MCAR, sequence missing, block missing).

Masks follow the convention 1 = observed, 0 = missing. ``pygrinder`` is not installed in this project, so the three
schemes are written here with the same meaning (independent points; runs of `seq_len` steps in one variable;
blocks of `block_len` steps x `block_width` adjacent variables).
"""

from __future__ import annotations

import numpy as np

from iclr26.checks import check_array, check_float, check_int

__all__ = [
    "block_missing",
    "chronological_split",
    "macrodata_series",
    "mcar",
    "seq_missing",
    "sliding_windows",
    "synthetic_series",
]


def _check_shape(shape: tuple[int, ...]) -> tuple[int, int, int]:
    if len(shape) != 3:
        raise ValueError(f"shape must be (N, T, M) with positive sizes, got {shape}")
    n, t, m = (check_int("shape (N, T, M) entries", s, low=1) for s in shape)
    return n, t, m


def _check_rng(rng: object) -> None:
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")


def synthetic_series(
    n_steps: int = 6000,
    n_vars: int = 16,
    seed: int = 0,
    max_lag: int = 6,
    noise: float = 0.15,
    factors_per_var: int = 2,
) -> np.ndarray:
    """(n_steps, n_vars) series driven by 4 latent factors: sinusoids of period 24 and 48, an AR(1), a random walk.

    Each variable mixes `factors_per_var` of the factors (random loadings), is delayed by its own lag in
    [0, max_lag] and gets white noise; so variables share structure only in the factors (frequency bands) they
    have in common, and cross-variable transfer helps imputation.
    """
    check_int("n_steps", n_steps, low=10)
    check_int("n_vars", n_vars, low=1)
    check_int("seed", seed, low=0)
    check_int("max_lag", max_lag, low=0)
    check_float("noise", noise, low=0.0)
    check_int("factors_per_var (in 1..4)", factors_per_var, 1, 4)
    rng = np.random.default_rng(seed)
    n = n_steps + max_lag
    t = np.arange(n)
    ar = np.zeros(n)
    eps = rng.normal(size=n)
    for i in range(1, n):
        ar[i] = 0.95 * ar[i - 1] + eps[i]
    rw = np.cumsum(rng.normal(size=n))
    factors = np.stack(
        [
            np.sin(2 * np.pi * t / 24 + rng.uniform(0, 2 * np.pi)),
            np.sin(2 * np.pi * t / 48 + rng.uniform(0, 2 * np.pi)),
            ar,
            rw,
        ],
        axis=1,
    )
    factors = (factors - factors.mean(0)) / factors.std(0)
    out = np.empty((n_steps, n_vars))
    for j in range(n_vars):
        chosen = rng.choice(4, size=factors_per_var, replace=False)
        w = rng.uniform(0.5, 1.5, size=factors_per_var) * rng.choice([-1.0, 1.0], size=factors_per_var)
        lag = int(rng.integers(0, max_lag + 1))
        sig = factors[:, chosen] @ w
        out[:, j] = sig[max_lag - lag : max_lag - lag + n_steps] + noise * rng.normal(size=n_steps)
    return out


def macrodata_series() -> np.ndarray:
    """statsmodels' bundled US macro data: (203 quarters, 12 series), year/quarter columns dropped."""
    from statsmodels.datasets import macrodata

    df = macrodata.load_pandas().data
    return df.drop(columns=["year", "quarter"]).to_numpy(dtype=float)


def chronological_split(
    series: np.ndarray, fractions: tuple[float, float, float] = (0.7, 0.1, 0.2)
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Train/val/test blocks in time order, all standardised with the training block's mean and std."""
    series = check_array("series", series)
    if series.ndim != 2:
        raise ValueError(f"series must be (time, variables), got shape {series.shape}")
    if not np.all(np.isfinite(series)):
        raise ValueError("series must be finite (no NaN or inf)")
    if isinstance(fractions, (str, bytes)) or not hasattr(fractions, "__len__") or len(fractions) != 3:
        raise ValueError(f"fractions must be three non-negative numbers summing to 1, got {fractions!r}")
    for f in fractions:
        check_float("fractions (each)", f, low=0.0)
    if abs(sum(fractions) - 1.0) > 1e-9:
        raise ValueError(f"fractions must be three non-negative numbers summing to 1, got {fractions}")
    n = len(series)
    a, b = round(n * fractions[0]), round(n * (fractions[0] + fractions[1]))
    if a < 1:
        raise ValueError(f"the training block is empty: fractions[0] = {fractions[0]} of {n} steps")
    mu, sd = series[:a].mean(0), series[:a].std(0) + 1e-8
    z = (series - mu) / sd
    return z[:a], z[a:b], z[b:]


def sliding_windows(series: np.ndarray, seq_len: int, stride: int = 1) -> np.ndarray:
    """(N, seq_len, M) windows of a (time, M) series."""
    if np.iscomplexobj(series):
        raise ValueError("series must hold real numbers, got a complex array")
    series = np.asarray(series)
    if series.ndim != 2:
        raise ValueError(f"series must be (time, variables), got shape {series.shape}")
    check_int(f"seq_len (in [1, {len(series)}])", seq_len, 1, len(series))
    check_int("stride (a positive integer)", stride, low=1)
    starts = range(0, len(series) - seq_len + 1, stride)
    return np.stack([series[s : s + seq_len] for s in starts])


def mcar(shape: tuple[int, ...], rate: float, rng: np.random.Generator) -> np.ndarray:
    """Missing completely at random: each entry missing independently with probability `rate` (1 = observed)."""
    check_float("rate (a missing fraction)", rate, 0.0, 1.0, high_open=True)
    _check_shape(tuple(shape))
    _check_rng(rng)
    return (rng.random(shape) >= rate).astype(np.float32)


def _block_mask(
    shape: tuple[int, int, int], q: float, length: int, width: int, rng: np.random.Generator
) -> np.ndarray:
    """Mask (1 = observed) hiding a (length x width) block at every start drawn with probability q.

    Starts are drawn on a grid extended by length-1 steps and width-1 variables before the window, so blocks cut
    by the window edges appear too and every entry is missing with probability 1 - (1 - q)^(length * width).
    """
    n, t, m = shape
    starts = rng.random((n, t + length - 1, m + width - 1)) < q
    hit = np.zeros((n, t, m), dtype=bool)
    for dt in range(length):
        for dm in range(width):
            hit |= starts[:, dt : dt + t, dm : dm + m]
    return (~hit).astype(np.float32)


def seq_missing(shape: tuple[int, ...], rate: float, seq_len: int, rng: np.random.Generator) -> np.ndarray:
    """Runs of `seq_len` consecutive missing steps in single variables; about `rate` of entries missing."""
    check_float("rate (a missing fraction)", rate, 0.0, 1.0, high_open=True)
    _, t, _ = _check_shape(tuple(shape))
    check_int(f"seq_len (in [1, T={t}])", seq_len, 1, t)
    _check_rng(rng)
    q = 1.0 - (1.0 - rate) ** (1.0 / seq_len)
    return _block_mask(_check_shape(tuple(shape)), q, seq_len, 1, rng)


def block_missing(
    shape: tuple[int, ...], rate: float, block_len: int, block_width: int, rng: np.random.Generator
) -> np.ndarray:
    """Blocks of `block_len` steps x `block_width` adjacent variables missing; about `rate` of entries missing."""
    check_float("rate (a missing fraction)", rate, 0.0, 1.0, high_open=True)
    _, t, m = _check_shape(tuple(shape))
    check_int(f"block_len (in [1, T={t}])", block_len, 1, t)
    check_int(f"block_width (in [1, M={m}])", block_width, 1, m)
    _check_rng(rng)
    q = 1.0 - (1.0 - rate) ** (1.0 / (block_len * block_width))
    return _block_mask(_check_shape(tuple(shape)), q, block_len, block_width, rng)
