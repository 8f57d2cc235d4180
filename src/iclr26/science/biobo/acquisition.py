"""Acquisition functions on a discrete pool (UCB, EI, Thompson sampling) and the pi-BO prior-weighted wrapper."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import torch

from iclr26.checks import check_array, check_bool, check_float, check_int, check_tensor

__all__ = ["PiBO", "expected_improvement", "thompson_sample", "top_b", "upper_confidence_bound"]


def upper_confidence_bound(mean: torch.Tensor, var: torch.Tensor, beta_ucb: float = 2.0) -> torch.Tensor:
    """UCB = mean + sqrt(beta_ucb) * std (botorch's convention)."""
    _check_moments(mean, var)
    check_float("beta_ucb", beta_ucb, low=0.0)
    return mean + math.sqrt(beta_ucb) * var.clamp_min(0).sqrt()


def _check_moments(mean: torch.Tensor, var: torch.Tensor) -> None:
    check_tensor("mean", mean, floating=True, finite=True)
    check_tensor("var", var, floating=True, finite=True)
    if var.shape != mean.shape:
        raise ValueError(f"var must have the shape of mean {tuple(mean.shape)}, got {tuple(var.shape)}")


def expected_improvement(mean: torch.Tensor, var: torch.Tensor, best_f: float) -> torch.Tensor:
    """Analytic expected improvement over `best_f` for maximisation."""
    _check_moments(mean, var)
    check_float("best_f", best_f)
    sd = var.clamp_min(1e-18).sqrt()
    u = (mean - best_f) / sd
    normal = torch.distributions.Normal(torch.zeros((), dtype=mean.dtype), torch.ones((), dtype=mean.dtype))
    return sd * (u * normal.cdf(u) + torch.exp(normal.log_prob(u)))


def thompson_sample(mean: torch.Tensor, cov: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """One joint posterior sample over the pool (cov: full posterior covariance, jittered Cholesky)."""
    check_tensor("mean", mean, ndim=1, floating=True, finite=True)
    n = mean.shape[0]
    check_tensor("cov", cov, floating=True, finite=True, shape=(n, n))
    if not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator, got {type(generator).__name__}")
    eye = torch.eye(n, dtype=cov.dtype)
    jitter = 1e-8 * float(cov.diagonal().mean().clamp_min(1e-12))
    for _ in range(6):
        chol, info = torch.linalg.cholesky_ex(cov + jitter * eye)
        if int(info) == 0:
            break
        jitter *= 10.0
    else:
        raise ValueError("cov must be a positive semi-definite covariance (Cholesky failed even with jitter)")
    z = torch.randn(n, generator=generator, dtype=mean.dtype)
    return mean + chol @ z


def top_b(scores: torch.Tensor | np.ndarray, b: int) -> np.ndarray:
    """Indices of the b largest scores (ties broken by index; no repeats)."""
    s = check_array("scores", scores)
    if s.ndim != 1 or not np.all(np.isfinite(s)):
        raise ValueError(f"scores must be a finite 1-D array (one per candidate), got shape {s.shape}")
    check_int("batch_size (at most the pool size)", b, 1, s.size)
    return np.argsort(-s, kind="stable")[:b]


class PiBO:
    """pi-BO (Hvarfner et al., 2022) on a discrete candidate set: alpha_pi(x) = alpha'(x) * pi(x)^(beta / n).

    Parameters
    ----------
    acqf : callable mapping a candidate tensor (e.g. pool indices or features, first dim = candidates) to the
        base acquisition values, one per candidate.
    prior : callable mapping the same candidates to prior values pi in (0, 1], or a tensor of those values.
    beta : prior strength (>= 0); beta = 0 gives the base ranking exactly.
    n : the BO iteration (cycle) number, >= 1; the prior's weight beta / n decays with it.
    shift : subtract min(alpha) over the candidates so that alpha' >= 0 (needed for UCB/EI values that can be
        negative); disable for non-negative acquisitions.
    """

    def __init__(
        self,
        acqf: Callable[[torch.Tensor], torch.Tensor],
        prior: Callable[[torch.Tensor], torch.Tensor] | torch.Tensor | np.ndarray,
        beta: float,
        n: int,
        shift: bool = True,
    ) -> None:
        if not callable(acqf):
            raise TypeError(f"acqf must be callable, got {type(acqf).__name__}")
        check_float("beta (prior strength)", beta, low=0.0)
        check_int("n (iteration number)", n, low=1)
        shift = check_bool("shift", shift)
        self.acqf, self.prior, self.beta, self.n, self.shift = acqf, prior, float(beta), int(n), shift

    @property
    def exponent(self) -> float:
        """The prior exponent beta / n."""
        return self.beta / self.n

    def _prior_values(self, x: torch.Tensor) -> torch.Tensor:
        if not callable(self.prior):  # a tensor or array of prior values: real numbers
            pi = torch.as_tensor(check_array("prior", self.prior), dtype=torch.float64)
        else:
            pi = self.prior(x)
            try:
                pi = torch.as_tensor(pi, dtype=torch.float64)
            except (TypeError, ValueError, RuntimeError):
                raise ValueError(f"prior values must be numbers in (0, 1], got {pi!r}") from None
        if not torch.isfinite(pi).all() or (pi <= 0).any() or (pi > 1 + 1e-12).any():
            raise ValueError("prior values must lie in (0, 1]")
        return pi

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        """Prior-weighted acquisition values of the candidates `x`."""
        alpha = torch.as_tensor(self.acqf(x), dtype=torch.float64)
        if not torch.isfinite(alpha).all():
            raise ValueError("acquisition values contain NaN or inf")
        if self.shift:
            alpha = alpha - alpha.min()
        if self.beta == 0:
            return alpha
        pi = self._prior_values(x)
        if pi.shape != alpha.shape:
            raise ValueError(f"prior has shape {tuple(pi.shape)} but acquisition has {tuple(alpha.shape)}")
        return alpha * pi.pow(self.exponent)
