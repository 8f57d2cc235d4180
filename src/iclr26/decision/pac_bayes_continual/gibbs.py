"""Closed-form Gibbs posterior of linear regression (OpenReview hWw269fPov).

``Q_t(h) ~ exp(-lambda Lhat(h, S_t)) Q_(t-1)(h)`` with mean squared loss and a Gaussian prior stays Gaussian:
``A_t = A_(t-1) + (2 lambda / m) X^T X``, ``A_t mu_t = A_(t-1) mu_(t-1) + (2 lambda / m) X^T y``.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["GaussianGibbsLinReg", "kl_full_gauss"]


def kl_full_gauss(mu_q: np.ndarray, cov_q: np.ndarray, mu_p: np.ndarray, cov_p: np.ndarray) -> float:
    """KL(N(mu_q, cov_q) || N(mu_p, cov_p)) for full covariance matrices (nats)."""
    d = mu_q.shape[0]
    if cov_q.shape != (d, d) or cov_p.shape != (d, d) or mu_p.shape != (d,):
        raise ValueError(
            f"posterior/prior shape mismatch: {mu_q.shape}, {cov_q.shape}, {mu_p.shape}, {cov_p.shape}"
        )
    lq, lp = np.linalg.cholesky(cov_q), np.linalg.cholesky(cov_p)
    inv_p = np.linalg.inv(cov_p)
    diff = mu_p - mu_q
    logdet = 2 * (np.log(np.diag(lp)).sum() - np.log(np.diag(lq)).sum())
    return float(0.5 * (np.trace(inv_p @ cov_q) + diff @ inv_p @ diff - d + logdet))


class GaussianGibbsLinReg:
    """Closed-form Gibbs posterior of linear regression under squared loss and a Gaussian prior.

    Parameters
    ----------
    d : input dimension.
    lam : Gibbs temperature lambda on the mean squared loss; ``None`` uses ``m / (2 noise_sd^2)`` for a task of m
        samples (the exact Bayesian posterior for Gaussian noise of sd `noise_sd`).
    noise_sd : used only when ``lam is None``.
    prior_mean, prior_precision : Gaussian prior P (default N(0, I)).

    >>> g = GaussianGibbsLinReg(2, noise_sd=0.1)
    >>> g.update(np.eye(2), np.array([1.0, -1.0])).mean.round(3).tolist()
    [0.99, -0.99]
    """

    def __init__(
        self,
        d: int,
        lam: float | None = None,
        noise_sd: float = 0.1,
        prior_mean: np.ndarray | None = None,
        prior_precision: np.ndarray | None = None,
    ) -> None:
        if not (isinstance(d, int) and d >= 1):
            raise ValueError(f"d must be a positive integer, got {d!r}")
        if lam is not None and not (lam > 0 and math.isfinite(lam)):
            raise ValueError(f"lam (Gibbs temperature) must be positive, got {lam}")
        if not noise_sd > 0:
            raise ValueError(f"noise_sd must be positive, got {noise_sd}")
        self.d, self.lam, self.noise_sd = d, lam, noise_sd
        self.mean = np.zeros(d) if prior_mean is None else np.asarray(prior_mean, dtype=float).copy()
        self.precision = (
            np.eye(d) if prior_precision is None else np.asarray(prior_precision, dtype=float).copy()
        )
        if self.mean.shape != (d,) or self.precision.shape != (d, d):
            raise ValueError(
                f"prior_mean must have shape ({d},) and prior_precision ({d}, {d}), got "
                f"{self.mean.shape} and {self.precision.shape}"
            )

    @property
    def cov(self) -> np.ndarray:
        return np.linalg.inv(self.precision)

    def temperature(self, m: int) -> float:
        return self.lam if self.lam is not None else m / (2 * self.noise_sd**2)

    def update(self, X: np.ndarray, y: np.ndarray) -> GaussianGibbsLinReg:
        """Multiply by ``exp(-lambda Lhat(h, S))`` with Lhat the mean squared loss on (X, y); returns self."""
        X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
        if X.ndim != 2 or X.shape[1] != self.d or y.shape != (X.shape[0],):
            raise ValueError(f"X must have shape (m, {self.d}) and y shape (m,), got {X.shape} and {y.shape}")
        m = X.shape[0]
        c = 2 * self.temperature(m) / m
        new_prec = self.precision + c * X.T @ X
        self.mean = np.linalg.solve(new_prec, self.precision @ self.mean + c * X.T @ y)
        self.precision = new_prec
        return self

    def empirical_risk(self, X: np.ndarray, y: np.ndarray) -> float:
        """E_(h~Q) of the mean squared loss on (X, y), exactly."""
        r = y - X @ self.mean
        return float(np.mean(r**2) + np.trace(X.T @ X @ self.cov) / X.shape[0])

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        return rng.multivariate_normal(self.mean, self.cov, size=n)
