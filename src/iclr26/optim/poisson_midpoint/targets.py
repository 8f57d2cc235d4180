"""Strongly log-concave targets pi ∝ exp(-F) with known alpha (strong convexity) and L (smoothness).

Paper: "Poisson Midpoint Method for Log Concave Sampling: Beyond the Strong Error Lower Bounds" (arXiv
2506.07614), whose setting is F alpha-strongly convex and L-smooth. Targets:

* ``GaussianTarget(Sigma)``:      F(x) = (x - m)^T Sigma^{-1} (x - m) / 2, alpha = 1/lmax(Sigma), L = 1/lmin(Sigma);
* ``SeparableLogCosh(d, c)``:     F(x) = sum_i [x_i^2/2 + log cosh(c x_i)], alpha = 1, L = 1 + c^2;
* ``BayesLogReg(X, y, prior_var)``: F(t) = sum_j log(1 + exp(-y_j x_j^T t)) + |t|^2 / (2 prior_var),
  alpha = 1/prior_var, L = 1/prior_var + lmax(X^T X)/4.

``grad`` takes positions of shape (m, d) as a NumPy array or a torch tensor and returns the same type.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch
from scipy.special import expit

from iclr26.checks import check_float, check_int
from iclr26.optim.poisson_midpoint.wasserstein import TargetLaw1D, check_draws

__all__ = ["BayesLogReg", "GaussianTarget", "SeparableLogCosh"]


def _like(a: np.ndarray, x: Any) -> Any:
    """The constant `a` on `x`'s array type, dtype and device."""
    return torch.as_tensor(a, dtype=x.dtype, device=x.device) if isinstance(x, torch.Tensor) else a


def _check_positions(x: Any, d: int) -> None:
    if x.ndim != 2 or x.shape[1] != d:
        raise ValueError(f"positions must have shape (m, {d}), got {tuple(x.shape)}")


class GaussianTarget:
    """N(mean, Sigma): F(x) = (x - mean)^T Sigma^{-1} (x - mean) / 2.

    Examples
    --------
    >>> t = GaussianTarget(np.diag([1.0, 0.1]))
    >>> t.alpha, t.L, t.grad(np.ones((1, 2))).tolist()
    (1.0, 10.0, [[1.0, 10.0]])
    """

    def __init__(self, Sigma: Any, mean: Any = None) -> None:
        cov = np.atleast_2d(np.asarray(Sigma, dtype=float))
        if not np.all(np.isfinite(cov)):
            raise ValueError("Sigma must be finite (no NaN or infinity)")
        if cov.ndim != 2 or cov.shape[0] != cov.shape[1] or not np.allclose(cov, cov.T):
            raise ValueError(f"Sigma must be a symmetric (d, d) matrix, got shape {cov.shape}")
        eig = np.linalg.eigvalsh(cov)
        if eig[0] <= 0:
            raise ValueError(f"Sigma must be positive definite, smallest eigenvalue {eig[0]:.3g}")
        self.d = cov.shape[0]
        self.cov = cov
        if mean is not None:
            m = np.asarray(mean, dtype=float)
            if m.size != self.d or not np.all(np.isfinite(m)):
                raise ValueError(f"mean must hold {self.d} finite values, got shape {m.shape}")
        self.mean = np.zeros(self.d) if mean is None else np.asarray(mean, dtype=float).reshape(self.d)
        self.precision = np.linalg.inv(cov)
        self.alpha = float(1.0 / eig[-1])
        self.L = float(1.0 / eig[0])
        self._chol = np.linalg.cholesky(cov)

    @classmethod
    def with_condition_number(cls, d: int, kappa: float, rng: np.random.Generator) -> GaussianTarget:
        """A random rotation of diag(1, ..., 1/kappa) as Sigma: alpha = 1, L = kappa."""
        check_int("d", d, low=1)
        check_float("kappa (a condition number)", kappa, low=1.0)
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
        q, _ = np.linalg.qr(rng.standard_normal((d, d)))
        return cls(q @ np.diag(np.geomspace(1.0, 1.0 / kappa, d)) @ q.T)

    def potential(self, x: Any) -> Any:
        _check_positions(x, self.d)
        r = x - _like(self.mean, x)
        return 0.5 * ((r @ _like(self.precision, x)) * r).sum(1)

    def grad(self, x: Any) -> Any:
        _check_positions(x, self.d)
        return (x - _like(self.mean, x)) @ _like(self.precision, x)  # Sigma^{-1} (x - m)

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        check_draws(n, rng)
        return self.mean + rng.standard_normal((n, self.d)) @ self._chol.T


class SeparableLogCosh:
    """F(x) = sum_i [x_i^2/2 + log cosh(c x_i)]: a non-Gaussian product target with alpha = 1, L = 1 + c^2.

    Examples
    --------
    >>> t = SeparableLogCosh(1, 2.0)
    >>> t.L, round(float(t.grad(np.array([[1.0]]))[0, 0]), 4)  # 1 + 2 tanh(2)
    (5.0, 2.9281)
    """

    def __init__(self, d: int, c: float) -> None:
        check_int("d", d, low=1)
        check_float("c", c, low=0.0)
        self.d, self.c = d, float(c)
        self.alpha, self.L = 1.0, 1.0 + self.c**2
        self._law: TargetLaw1D | None = None

    def potential(self, x: Any) -> Any:
        _check_positions(x, self.d)
        z = abs(self.c * x)
        xp = torch if isinstance(x, torch.Tensor) else np
        return (0.5 * x**2 + z + xp.log1p(xp.exp(-2.0 * z)) - math.log(2.0)).sum(1)  # log cosh z, stably

    def grad(self, x: Any) -> Any:
        _check_positions(x, self.d)
        xp = torch if isinstance(x, torch.Tensor) else np
        return x + self.c * xp.tanh(self.c * x)  # dF/dx_i = x_i + c tanh(c x_i)

    def marginal(self) -> TargetLaw1D:
        """The 1-D marginal law p(x) ∝ exp(-x^2/2) / cosh(c x), tabulated once."""
        if self._law is None:
            c = self.c
            self._law = TargetLaw1D(lambda x: -0.5 * x**2 - np.logaddexp(c * x, -c * x), -12.0, 12.0)
        return self._law

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """Exact i.i.d. draws, shape (n, d), by inversion of the tabulated marginal CDF."""
        check_draws(n, rng)
        return self.marginal().sample(n * self.d, rng).reshape(n, self.d)


class BayesLogReg:
    """Posterior of Bayesian logistic regression with labels y in {-1, +1} and a N(0, prior_var I) prior.

    Examples
    --------
    >>> t = BayesLogReg.synthetic(200, 5, np.random.default_rng(0))
    >>> t.grad(np.zeros((3, 5))).shape, t.alpha
    ((3, 5), 1.0)
    """

    def __init__(self, X: Any, y: Any, prior_var: float = 1.0) -> None:
        X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float).ravel()
        if X.ndim != 2 or y.shape[0] != X.shape[0]:
            raise ValueError(f"X must be (n_data, d) and y (n_data,), got {X.shape} and {y.shape}")
        if X.shape[0] < 1 or X.shape[1] < 1 or not np.all(np.isfinite(X)):
            raise ValueError(f"X must be a finite non-empty (n_data, d) matrix, got shape {X.shape}")
        if not np.all(np.isin(y, (-1.0, 1.0))):
            raise ValueError("y must hold labels in {-1, +1}")
        check_float("prior_var", prior_var, low=0.0, low_open=True)
        self.X, self.y, self.prior_var = X, y, float(prior_var)
        self.d = X.shape[1]
        self.alpha = 1.0 / self.prior_var
        self.L = self.alpha + float(np.linalg.eigvalsh(X.T @ X)[-1]) / 4.0

    @classmethod
    def synthetic(cls, n_data: int, d: int, rng: np.random.Generator, prior_var: float = 1.0) -> BayesLogReg:
        """Data from the model: rows x_j ~ N(0, I/d), true t ~ N(0, I), P(y_j = 1) = sigmoid(x_j^T t)."""
        check_int("d", d, low=1)
        check_draws(n_data, rng)
        X = rng.standard_normal((n_data, d)) / np.sqrt(d)
        theta = rng.standard_normal(d)
        y = np.where(rng.random(n_data) < expit(X @ theta), 1.0, -1.0)
        return cls(X, y, prior_var)

    def potential(self, t: Any) -> Any:
        _check_positions(t, self.d)
        margins = (t @ _like(self.X, t).T) * _like(self.y, t)
        xp = torch if isinstance(t, torch.Tensor) else np
        return xp.logaddexp(0.0 * margins, -margins).sum(1) + (t**2).sum(1) / (2.0 * self.prior_var)

    def grad(self, t: Any) -> Any:
        _check_positions(t, self.d)
        X, y = _like(self.X, t), _like(self.y, t)
        margins = (t @ X.T) * y  # y_j x_j^T t
        weights = torch.sigmoid(-margins) if isinstance(t, torch.Tensor) else expit(-margins)
        return -(weights * y) @ X + t / self.prior_var  # -sum_j y_j x_j sigma(-y_j x_j^T t) + t / prior_var
