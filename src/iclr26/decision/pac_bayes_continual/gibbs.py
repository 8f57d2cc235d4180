"""Closed-form Gibbs posterior of linear regression (OpenReview hWw269fPov).

``Q_t(h) ~ exp(-lambda Lhat(h, S_t)) Q_(t-1)(h)`` with mean squared loss and a Gaussian prior stays Gaussian:
``A_t = A_(t-1) + (2 lambda / m) X^T X``, ``A_t mu_t = A_(t-1) mu_(t-1) + (2 lambda / m) X^T y``.
"""

from __future__ import annotations

import numpy as np

from iclr26.checks import check_float, check_int

__all__ = ["GaussianGibbsLinReg", "kl_full_gauss"]


def kl_full_gauss(mu_q: np.ndarray, cov_q: np.ndarray, mu_p: np.ndarray, cov_p: np.ndarray) -> float:
    """KL(N(mu_q, cov_q) || N(mu_p, cov_p)) for full covariance matrices (nats)."""
    mu_q, cov_q, mu_p, cov_p = (
        check_array(n, v) for n, v in (("mu_q", mu_q), ("cov_q", cov_q), ("mu_p", mu_p), ("cov_p", cov_p))
    )
    if mu_q.ndim != 1:
        raise ValueError(f"mu_q must be a mean vector (d,), got shape {mu_q.shape}")
    d = mu_q.shape[0]
    for name, arr, shape in (("cov_q", cov_q, (d, d)), ("mu_p", mu_p, (d,)), ("cov_p", cov_p, (d, d))):
        if arr.shape != shape:
            raise ValueError(f"{name} must have shape {shape} to match mu_q {mu_q.shape}, got {arr.shape}")
    lq, lp = cholesky("cov_q", cov_q), cholesky("cov_p", cov_p)
    inv_p = np.linalg.inv(cov_p)
    diff = mu_p - mu_q
    logdet = 2 * (np.log(np.diag(lp)).sum() - np.log(np.diag(lq)).sum())
    return float(0.5 * (np.trace(inv_p @ cov_q) + diff @ inv_p @ diff - d + logdet))


def check_array(name: str, x: object) -> np.ndarray:
    """`x` as a finite float array (ValueError naming `name` otherwise)."""
    if np.iscomplexobj(x):
        raise ValueError(f"{name} must be a real array, got a complex one")
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a numeric array, got {x!r}") from None
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    return arr


def cholesky(name: str, a: np.ndarray) -> np.ndarray:
    """The Cholesky factor of `a`; ValueError naming `name` when it is not symmetric positive definite."""
    try:
        return np.linalg.cholesky(a)
    except np.linalg.LinAlgError:
        raise ValueError(f"{name} must be a symmetric positive definite matrix") from None


def check_xy(X: np.ndarray, y: np.ndarray, d: int) -> tuple[np.ndarray, np.ndarray]:
    """(X, y) as finite float arrays of shapes (m, d) and (m,), m >= 1."""
    X, y = check_array("X", X), check_array("y", y)
    if X.ndim != 2 or X.shape[1] != d or y.shape != (X.shape[0],) or X.shape[0] < 1:
        raise ValueError(
            f"X must have shape (m, {d}) with m >= 1 and y shape (m,), got {X.shape} and {y.shape}"
        )
    return X, y


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
        check_int("d", d, low=1)
        if lam is not None:
            check_float("lam (the Gibbs temperature, positive)", lam, low=0.0, low_open=True)
        check_float("noise_sd (positive)", noise_sd, low=0.0, low_open=True)
        self.d, self.lam, self.noise_sd = d, lam, noise_sd
        self.mean = np.zeros(d) if prior_mean is None else check_array("prior_mean", prior_mean).copy()
        self.precision = (
            np.eye(d) if prior_precision is None else check_array("prior_precision", prior_precision).copy()
        )
        if self.mean.shape != (d,) or self.precision.shape != (d, d):
            raise ValueError(
                f"prior_mean must have shape ({d},) and prior_precision ({d}, {d}), got "
                f"{self.mean.shape} and {self.precision.shape}"
            )
        if prior_precision is not None:
            if not np.allclose(self.precision, self.precision.T):
                raise ValueError("prior_precision must be a symmetric positive definite matrix")
            cholesky("prior_precision", self.precision)

    @property
    def cov(self) -> np.ndarray:
        return np.linalg.inv(self.precision)

    def temperature(self, m: int) -> float:
        check_int("m (samples in the task)", m, low=1)
        return self.lam if self.lam is not None else m / (2 * self.noise_sd**2)

    def update(self, X: np.ndarray, y: np.ndarray) -> GaussianGibbsLinReg:
        """Multiply by ``exp(-lambda Lhat(h, S))`` with Lhat the mean squared loss on (X, y); returns self."""
        X, y = check_xy(X, y, self.d)
        m = X.shape[0]
        c = 2 * self.temperature(m) / m
        new_prec = self.precision + c * X.T @ X
        self.mean = np.linalg.solve(new_prec, self.precision @ self.mean + c * X.T @ y)
        self.precision = new_prec
        return self

    def empirical_risk(self, X: np.ndarray, y: np.ndarray) -> float:
        """E_(h~Q) of the mean squared loss on (X, y), exactly."""
        X, y = check_xy(X, y, self.d)
        r = y - X @ self.mean
        return float(np.mean(r**2) + np.trace(X.T @ X @ self.cov) / X.shape[0])

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        check_int("n", n, low=1)
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
        return rng.multivariate_normal(self.mean, self.cov, size=n)
