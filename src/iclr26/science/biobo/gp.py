"""A small exact GP in torch (float64, Cholesky) with an additive Matern-5/2 ARD kernel over feature blocks.

botorch/gpytorch are not dependencies of this project, so the surrogate is written here: constant mean,
k(x, x') = sum_m s_m^2 * Matern52(||(x_m - x'_m) / l_m||), Gaussian noise, y standardised internally (mean and
population std, like scikit-learn's ``normalize_y=True``), hyperparameters fitted by Adam on the exact marginal
likelihood.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import torch
from torch.nn.functional import softplus

from iclr26.checks import check_bool, check_float, check_int, check_tensor

__all__ = ["ExactGP", "matern52"]

_SQRT5 = math.sqrt(5.0)


def _inv_softplus(x: float) -> float:
    return float(x + math.log(-math.expm1(-x)))


def matern52(
    x1: torch.Tensor, x2: torch.Tensor, lengthscale: torch.Tensor, outputscale: torch.Tensor
) -> torch.Tensor:
    """ARD Matern-5/2 kernel matrix s^2 (1 + sqrt5 r + 5 r^2 / 3) exp(-sqrt5 r), r = ||(x1 - x2) / l||."""
    check_tensor("x1", x1, ndim=2, floating=True)
    check_tensor("x2", x2, floating=True, shape=(None, x1.shape[1]))
    check_tensor("lengthscale", lengthscale, floating=True, finite=True)
    check_tensor("outputscale", outputscale, ndim=0, floating=True, finite=True)
    if (
        lengthscale.ndim > 1
        or (lengthscale.numel() not in (1, x1.shape[1]))
        or not bool((lengthscale > 0).all())
    ):
        raise ValueError(
            f"lengthscale must hold 1 or {x1.shape[1]} positive values, got {lengthscale.tolist()}"
        )
    if bool((outputscale < 0).any()):
        raise ValueError(f"outputscale must be >= 0, got {outputscale.tolist()}")
    a, b = x1 / lengthscale, x2 / lengthscale
    d2 = (a * a).sum(-1, keepdim=True) + (b * b).sum(-1)[None, :] - 2.0 * a @ b.T
    r = torch.sqrt(d2.clamp_min(1e-30))
    return outputscale * (1.0 + _SQRT5 * r + 5.0 / 3.0 * r * r) * torch.exp(-_SQRT5 * r)


class ExactGP:
    """Exact GP regression with an additive block kernel.

    Parameters
    ----------
    blocks : sizes of the consecutive feature blocks (one Matern-5/2 ARD kernel each, summed); one block gives a
        single ARD kernel on all features.
    noise_floor : lower bound on the noise variance (in standardised-y units).
    """

    def __init__(self, blocks: Sequence[int], noise_floor: float = 1e-4) -> None:
        if isinstance(blocks, (str, bytes)) or not isinstance(blocks, Sequence) or not blocks:
            raise ValueError(f"blocks must be a non-empty list of positive sizes, got {blocks!r}")
        self.blocks = [check_int("blocks (each block size)", b, low=1) for b in blocks]
        self.noise_floor = check_float("noise_floor", noise_floor, low=0.0)
        self.reset()
        self._x: torch.Tensor | None = None

    @property
    def dim(self) -> int:
        """Total input dimension."""
        return sum(self.blocks)

    def reset(self) -> None:
        """Default hyperparameters: lengthscale sqrt(block dim), outputscale 1/M per block, noise 0.1, mean 0."""
        m = len(self.blocks)
        self.raw_ls = [
            torch.full((b,), _inv_softplus(math.sqrt(b)), dtype=torch.float64) for b in self.blocks
        ]
        self.raw_os = torch.full((m,), _inv_softplus(1.0 / m), dtype=torch.float64)
        self.raw_noise = torch.tensor(_inv_softplus(0.1), dtype=torch.float64)
        self.mean_const = torch.tensor(0.0, dtype=torch.float64)

    def set_hyperparameters(
        self,
        lengthscales: Sequence[Sequence[float]],
        outputscales: Sequence[float],
        noise: float,
        mean: float = 0.0,
    ) -> None:
        """Set the hyperparameters directly (lengthscale per block dim, outputscale per block, noise variance)."""
        if len(lengthscales) != len(self.blocks) or len(outputscales) != len(self.blocks):
            raise ValueError("lengthscales and outputscales need one entry per block")
        check_float(
            f"noise (must exceed noise_floor={self.noise_floor})", noise, low=self.noise_floor, low_open=True
        )
        check_float("mean", mean)
        for v in [*(v for ls in lengthscales for v in ls), *outputscales]:
            check_float("lengthscales and outputscales (each)", v, low=0.0, low_open=True)
        self.raw_ls = [
            torch.tensor([_inv_softplus(v) for v in ls], dtype=torch.float64) for ls in lengthscales
        ]
        for t, b in zip(self.raw_ls, self.blocks):
            if t.numel() != b:
                raise ValueError(f"a block of size {b} needs {b} lengthscales, got {t.numel()}")
        self.raw_os = torch.tensor([_inv_softplus(v) for v in outputscales], dtype=torch.float64)
        self.raw_noise = torch.tensor(_inv_softplus(noise - self.noise_floor), dtype=torch.float64)
        self.mean_const = torch.tensor(float(mean), dtype=torch.float64)

    def hyperparameters(self) -> dict:
        """Current (constrained) hyperparameters as plain Python numbers."""
        return {
            "lengthscales": [softplus(t).tolist() for t in self.raw_ls],
            "outputscales": softplus(self.raw_os).tolist(),
            "noise": float(softplus(self.raw_noise)) + self.noise_floor,
            "mean": float(self.mean_const),
        }

    def kernel(self, x1: torch.Tensor, x2: torch.Tensor) -> torch.Tensor:
        """Additive kernel matrix between rows of x1 and x2."""
        check_tensor("x1", x1, floating=True, shape=(None, self.dim))
        check_tensor("x2", x2, floating=True, shape=(None, self.dim))
        out = x1.new_zeros((x1.shape[0], x2.shape[0]))
        start = 0
        os_ = softplus(self.raw_os)
        for j, b in enumerate(self.blocks):
            sl = slice(start, start + b)
            out = out + matern52(x1[:, sl], x2[:, sl], softplus(self.raw_ls[j]), os_[j])
            start += b
        return out

    def _noise(self) -> torch.Tensor:
        return softplus(self.raw_noise) + self.noise_floor

    def _check_x(self, x: np.ndarray | torch.Tensor, name: str) -> torch.Tensor:
        try:
            t = torch.as_tensor(np.asarray(x, dtype=np.float64))
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be a numeric (n, {self.dim}) array, got {x!r}") from None
        if t.ndim != 2 or t.shape[1] != self.dim:
            raise ValueError(f"{name} must have shape (n, {self.dim}), got {tuple(t.shape)}")
        if not torch.isfinite(t).all():
            raise ValueError(f"{name} contains NaN or inf")
        return t

    def _nmll(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        k = self.kernel(x, x) + self._noise() * torch.eye(x.shape[0], dtype=x.dtype)
        chol = torch.linalg.cholesky(k)
        r = (y - self.mean_const).unsqueeze(-1)
        alpha = torch.cholesky_solve(r, chol)
        n = x.shape[0]
        return (
            0.5 * (r * alpha).sum() + torch.log(torch.diagonal(chol)).sum() + 0.5 * n * math.log(2 * math.pi)
        )

    def condition(self, x: np.ndarray | torch.Tensor, y: np.ndarray | torch.Tensor) -> ExactGP:
        """Store training data (y standardised by its mean and population std)."""
        xt = self._check_x(x, "x")
        if xt.shape[0] < 1:
            raise ValueError("x must hold at least one training row")
        try:
            yt = torch.as_tensor(np.asarray(y, dtype=np.float64)).reshape(-1)
        except (TypeError, ValueError):
            raise ValueError(f"y must hold numbers, got {y!r}") from None
        if yt.shape[0] != xt.shape[0]:
            raise ValueError(f"y must have one value per row of x, got {yt.shape[0]} and {xt.shape[0]}")
        if not torch.isfinite(yt).all():
            raise ValueError("y contains NaN or inf")
        self.y_mean = float(yt.mean())
        sd = float(yt.std(unbiased=False))
        self.y_std = sd if sd > 0 else 1.0
        self._x, self._y = xt, (yt - self.y_mean) / self.y_std
        return self

    def fit(self, x, y, iters: int = 50, lr: float = 0.1, reset: bool = True) -> ExactGP:
        """Condition on (x, y) and fit the hyperparameters by Adam on the negative marginal log likelihood."""
        check_int("iters", iters, low=0)
        check_float("lr", lr, low=0.0, low_open=True)
        reset = check_bool("reset", reset)
        self.condition(x, y)
        if reset:
            self.reset()
        params = [*self.raw_ls, self.raw_os, self.raw_noise, self.mean_const]
        for p in params:
            p.requires_grad_(True)
        opt = torch.optim.Adam(params, lr=lr)
        for _ in range(iters):
            opt.zero_grad()
            loss = self._nmll(self._x, self._y) / self._x.shape[0]
            loss.backward()
            opt.step()
        for p in params:
            p.requires_grad_(False)
        return self

    def neg_mll(self) -> float:
        """Negative marginal log likelihood (standardised y) of the stored data at the current hyperparameters."""
        if self._x is None:
            raise RuntimeError("call fit() or condition() first")
        with torch.no_grad():
            return float(self._nmll(self._x, self._y))

    def posterior(self, x_new, full_cov: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
        """Posterior mean and variance (or covariance if `full_cov`) of the latent f at x_new, in y units."""
        if self._x is None:
            raise RuntimeError("call fit() or condition() first")
        full_cov = check_bool("full_cov", full_cov)
        xs = self._check_x(x_new, "x_new")
        with torch.no_grad():
            k = self.kernel(self._x, self._x) + self._noise() * torch.eye(
                self._x.shape[0], dtype=torch.float64
            )
            chol = torch.linalg.cholesky(k)
            ks = self.kernel(self._x, xs)
            alpha = torch.cholesky_solve((self._y - self.mean_const).unsqueeze(-1), chol).squeeze(-1)
            mean = self.mean_const + ks.T @ alpha
            v = torch.linalg.solve_triangular(chol, ks, upper=False)
            if full_cov:
                cov = self.kernel(xs, xs) - v.T @ v
                return mean * self.y_std + self.y_mean, cov * self.y_std**2
            prior_var = softplus(self.raw_os).sum().expand(xs.shape[0])
            var = (prior_var - (v * v).sum(0)).clamp_min(1e-12)
            return mean * self.y_std + self.y_mean, var * self.y_std**2
