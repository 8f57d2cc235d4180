"""Wasserstein-2 tools: exact 1-D W2 to a target law, Gelbrich, sliced W2 (POT), and the sampling noise floor.

Paper: "Poisson Midpoint Method for Log Concave Sampling: Beyond the Strong Error Lower Bounds" (arXiv
2506.07614), whose guarantees are in W2. In one dimension W2 between the empirical law of n samples
x_(1) <= ... <= x_(n) and a law with quantile function Q is exact:

    W2^2 = int_0^1 (F_n^{-1}(q) - Q(q))^2 dq
         = (1/n) sum_i x_(i)^2 - 2 sum_i x_(i) [M1(i/n) - M1((i-1)/n)] + M2(1),

with the partial moments M_k(q) = int_0^q Q(s)^k ds = E[X^k; X <= Q(q)], taken from the target's CDF and
moments integrated numerically on a fine grid. Gelbrich: W2(N(m1, S1), N(m2, S2))^2 = |m1 - m2|^2 +
tr(S1 + S2 - 2 (S2^{1/2} S1 S2^{1/2})^{1/2}); exact between Gaussians, a lower bound for other laws with these
moments.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import ot
from scipy import linalg
from scipy.integrate import cumulative_trapezoid

from iclr26.checks import check_int

__all__ = [
    "TargetLaw1D",
    "gelbrich_w2",
    "marginal_w2_squared",
    "noise_floor",
    "sliced_w2",
    "w2_empirical_1d",
    "w2_exact_1d",
]


class TargetLaw1D:
    """A 1-D law from an unnormalised log-density, tabulated on a fine grid: CDF, quantiles, partial moments.

    Parameters
    ----------
    log_density : vectorised unnormalised log-density.
    lo, hi : the grid's ends; the law's mass outside [lo, hi] is neglected.
    n_grid : grid points (trapezoid rule).

    Examples
    --------
    >>> law = TargetLaw1D(lambda x: -0.5 * x**2, -12.0, 12.0)
    >>> round(float(law.quantile(0.975)), 4), round(law.mean, 6), round(law.second_moment, 6)
    (1.96, 0.0, 1.0)
    """

    def __init__(
        self, log_density: Callable[[np.ndarray], np.ndarray], lo: float, hi: float, n_grid: int = 200_001
    ) -> None:
        if not callable(log_density):
            raise TypeError(
                f"log_density must be callable on a grid of points, got {type(log_density).__name__}"
            )
        check_int("n_grid", n_grid, low=3)
        if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi):
            raise ValueError(f"lo and hi must be finite with lo < hi, got lo={lo!r}, hi={hi!r}")
        self.x = np.linspace(lo, hi, n_grid)
        logp = np.asarray(log_density(self.x), dtype=float)
        if logp.shape != self.x.shape or not np.all(np.isfinite(logp)):
            raise ValueError("log_density must return finite values of the grid's shape")
        p = np.exp(logp - logp.max())
        mass = cumulative_trapezoid(p, self.x, initial=0.0)
        self.pdf_grid = p / mass[-1]
        self.cdf_grid = mass / mass[-1]  # F(x)
        self.m1_grid = cumulative_trapezoid(self.x * self.pdf_grid, self.x, initial=0.0)  # E[X; X <= x]
        self.m2_grid = cumulative_trapezoid(self.x**2 * self.pdf_grid, self.x, initial=0.0)  # E[X^2; X <= x]
        self.mean = float(self.m1_grid[-1])
        self.second_moment = float(self.m2_grid[-1])

    def pdf(self, x: np.ndarray | float) -> np.ndarray:
        return np.interp(x, self.x, self.pdf_grid, left=0.0, right=0.0)

    def cdf(self, x: np.ndarray | float) -> np.ndarray:
        return np.interp(x, self.x, self.cdf_grid, left=0.0, right=1.0)

    def quantile(self, q: np.ndarray | float) -> np.ndarray:
        """Q(q) = F^{-1}(q) by interpolation of the tabulated CDF."""
        qa = np.asarray(q, dtype=float)
        if not np.all((qa >= 0.0) & (qa <= 1.0)):
            raise ValueError("q must hold probability levels in [0, 1] (no NaN)")
        return np.interp(q, self.cdf_grid, self.x)

    def partial_moments(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """M1(q) = E[X; X <= Q(q)] and M2(q) = E[X^2; X <= Q(q)] at levels `q`."""
        return np.interp(q, self.cdf_grid, self.m1_grid), np.interp(q, self.cdf_grid, self.m2_grid)

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """`n` exact draws (up to the grid's resolution) by inversion: Q(U), U ~ U(0, 1)."""
        check_draws(n, rng)
        return self.quantile(rng.random(n))


def check_draws(n: Any, rng: Any) -> None:
    check_int("n", n, low=1)
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")


def w2_exact_1d(samples: Any, law: TargetLaw1D) -> float:
    """Exact W2 between the empirical law of 1-D `samples` and `law` (quantile matching, see the module).

    Examples
    --------
    >>> law = TargetLaw1D(lambda x: -0.5 * x**2, -12.0, 12.0)
    >>> x = np.random.default_rng(0).standard_normal(200_000)
    >>> round(w2_exact_1d(x + 0.5, law), 2)
    0.5
    """
    if not isinstance(law, TargetLaw1D):
        raise TypeError(f"law must be a TargetLaw1D, got {type(law).__name__}")
    x = np.sort(np.asarray(samples, dtype=float).ravel())
    if x.size == 0 or not np.all(np.isfinite(x)):
        raise ValueError("samples must be a non-empty array of finite values")
    n = x.size
    m1, m2 = law.partial_moments(np.arange(n + 1) / n)
    w2_sq = float(np.dot(x, x) / n - 2.0 * np.dot(x, np.diff(m1)) + (m2[-1] - m2[0]))
    return float(np.sqrt(max(w2_sq, 0.0)))


def w2_empirical_1d(a: Any, b: Any) -> float:
    """W2 between two 1-D empirical laws of equal size: sqrt(mean((sort a - sort b)^2))."""
    a = np.sort(np.asarray(a, dtype=float).ravel())
    b = np.sort(np.asarray(b, dtype=float).ravel())
    if a.size != b.size or a.size == 0:
        raise ValueError(f"a and b must be non-empty and of equal size, got {a.size} and {b.size}")
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise ValueError("a and b must hold finite values (no NaN or infinity)")
    return float(np.sqrt(np.mean((a - b) ** 2)))


def marginal_w2_squared(samples: Any, law: TargetLaw1D) -> float:
    """Sum over coordinates of the exact marginal W2^2 of (n, d) `samples` against the same 1-D `law`.

    For a product target this lower-bounds the joint W2^2 of the samples' law.
    """
    x = np.asarray(samples, dtype=float)
    if x.ndim != 2:
        raise ValueError(f"samples must have shape (n, d), got {x.shape}")
    if not isinstance(law, TargetLaw1D):
        raise TypeError(f"law must be a TargetLaw1D, got {type(law).__name__}")
    return float(sum(w2_exact_1d(x[:, j], law) ** 2 for j in range(x.shape[1])))


def gelbrich_w2(samples: Any, mean: Any, cov: Any) -> float:
    """Gelbrich distance between the samples' Gaussian moment fit and N(mean, cov) (a lower bound on W2).

    Examples
    --------
    >>> x = np.random.default_rng(0).standard_normal((100_000, 2)) * 2.0
    >>> bool(abs(gelbrich_w2(x, np.zeros(2), np.eye(2)) - np.sqrt(2)) < 0.02)  # W2(N(0, 4I), N(0, I)) = sqrt(2)
    True
    """
    x = np.asarray(samples, dtype=float)
    mean, cov = np.asarray(mean, dtype=float), np.atleast_2d(np.asarray(cov, dtype=float))
    if x.ndim != 2 or x.shape[1] != mean.shape[0] or cov.shape != (mean.shape[0],) * 2:
        raise ValueError(
            f"samples (n, d), mean (d,) and cov (d, d) disagree: {x.shape}, {mean.shape}, {cov.shape}"
        )
    if x.shape[0] < 2:
        raise ValueError(f"samples must hold at least 2 rows for a covariance estimate, got {x.shape[0]}")
    if not np.all(np.isfinite(x)):
        raise ValueError(f"samples must be finite, got {int(np.sum(~np.isfinite(x)))} non-finite entries")
    if not (np.all(np.isfinite(mean)) and np.all(np.isfinite(cov))):
        raise ValueError("mean and cov must be finite")
    if not np.allclose(cov, cov.T) or np.linalg.eigvalsh(cov)[0] < -1e-12 * max(
        1.0, float(np.abs(cov).max())
    ):
        raise ValueError("cov must be a symmetric positive semi-definite matrix")
    m_x, s_x = x.mean(axis=0), np.atleast_2d(np.cov(x, rowvar=False))
    root = linalg.sqrtm(cov)
    cross = linalg.sqrtm(root @ s_x @ root)  # (S^{1/2} S_x S^{1/2})^{1/2}
    w2_sq = float(np.sum((m_x - mean) ** 2) + np.trace(s_x + cov - 2.0 * np.real(cross)))
    return float(np.sqrt(max(w2_sq, 0.0)))


def sliced_w2(samples: Any, reference: Any, n_projections: int = 200, seed: int = 0) -> float:
    """Sliced W2 between two sample sets, via POT's ``ot.sliced_wasserstein_distance`` (Monte Carlo directions)."""
    a, b = np.asarray(samples, dtype=float), np.asarray(reference, dtype=float)
    if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[1]:
        raise ValueError(f"samples and reference must be (n, d) with the same d, got {a.shape} and {b.shape}")
    if a.shape[0] == 0 or b.shape[0] == 0 or not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise ValueError("samples and reference must be non-empty and finite")
    check_int("n_projections", n_projections, low=1)
    check_int("seed", seed, 0, 2**32 - 1)
    return float(ot.sliced_wasserstein_distance(a, b, n_projections=n_projections, p=2, seed=seed))


def noise_floor(
    sample: Callable[[int, np.random.Generator], Any],
    n: int,
    rng: np.random.Generator,
    distance: Callable[[Any, Any], float] = w2_empirical_1d,
    n_pairs: int = 1,
) -> float:
    """The W2 that sampling noise alone produces: `distance` between two independent exact sets of size `n`.

    Averaged over `n_pairs` pairs. A sampler whose W2 is near this value is indistinguishable from exact at
    this sample size.

    Examples
    --------
    >>> law = TargetLaw1D(lambda x: -0.5 * x**2, -12.0, 12.0)
    >>> 0.001 < noise_floor(law.sample, 100_000, np.random.default_rng(0)) < 0.02
    True
    """
    if not callable(sample) or not callable(distance):
        raise TypeError("sample and distance must be callables: sample(n, rng), distance(a, b)")
    check_int("n", n, low=1)
    check_int("n_pairs", n_pairs, low=1)
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    return float(np.mean([distance(sample(n, rng), sample(n, rng)) for _ in range(n_pairs)]))
