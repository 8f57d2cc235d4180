"""Reconstruction metrics of the SiTok reproduction (arXiv 2602.06602): Fréchet distance of mel-frame statistics
and utterance-level bootstrap standard errors of paired differences.

Fréchet distance between Gaussians fitted to two sets of frames (rows):
FD = ||mu_a - mu_b||^2 + tr(S_a + S_b - 2 (S_a^{1/2} S_b S_a^{1/2})^{1/2}), the symmetric form computed from
eigendecompositions (no complex square roots).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from iclr26.checks import check_array, check_int

__all__ = ["bootstrap_se", "frechet_distance", "gaussian_stats"]


def gaussian_stats(frames: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and (unbiased) covariance of `frames` (n, d), n >= 2."""
    x = np.asarray(frames, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] < 2:
        raise ValueError(f"frames must be (n >= 2, d), got shape {x.shape}")
    return x.mean(0), np.atleast_2d(np.cov(x, rowvar=False))


def _sqrt_psd(s: np.ndarray) -> np.ndarray:
    w, v = np.linalg.eigh((s + s.T) / 2)
    return (v * np.sqrt(np.clip(w, 0, None))) @ v.T


def frechet_distance(a: np.ndarray, b: np.ndarray) -> float:
    """Fréchet distance between the Gaussian statistics of frame sets `a` (n, d) and `b` (m, d)."""
    a = check_array("a", a, ndim=2, finite=True)
    b = check_array("b", b, ndim=2, finite=True)
    mu_a, s_a = gaussian_stats(a)
    mu_b, s_b = gaussian_stats(b)
    if mu_a.shape != mu_b.shape:
        raise ValueError(
            f"a and b must have the same frame dimension, got {mu_a.shape[0]} and {mu_b.shape[0]}"
        )
    r = _sqrt_psd(s_a)
    cross = _sqrt_psd(r @ s_b @ r)
    return float(((mu_a - mu_b) ** 2).sum() + np.trace(s_a) + np.trace(s_b) - 2 * np.trace(cross))


def bootstrap_se(
    statistic: Callable[[np.ndarray], float], n_items: int, n_boot: int = 200, seed: int = 0
) -> float:
    """Standard deviation of `statistic(indices)` over `n_boot` resamples (with replacement) of `n_items` items."""
    n_items = check_int("n_items", n_items, low=1)
    n_boot = check_int("n_boot", n_boot, low=2)
    rng = np.random.default_rng(seed)
    vals = [statistic(rng.integers(0, n_items, n_items)) for _ in range(n_boot)]
    return float(np.std(vals, ddof=1))


def corpus_rate(edits: Sequence[float], lengths: Sequence[float]) -> Callable[[np.ndarray], float]:
    """The statistic idx -> sum(edits[idx]) / sum(lengths[idx]) (a corpus error rate of resampled utterances)."""
    e, n = np.asarray(edits, float), np.asarray(lengths, float)
    return lambda idx: float(e[idx].sum() / n[idx].sum())
