"""Simulators of the NPE-LBF reproduction, each with a box prior (or box support) and a projection z = P(theta).

Every task is a :class:`Task`: ``prior(n, generator) -> theta``, ``simulate(theta, generator) -> x``,
``project(theta) -> z`` (the low-dimensional latent of interest) and the support box of z. Where the posterior of
z is cheap to compute exactly on a grid (two moons, bimodal square, hierarchical nuisance model, conjugate
Gaussian), ``reference_log_posterior(z, x_o)`` returns it up to a constant.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from iclr26.checks import check_float, check_int, check_tensor
from iclr26.lab.sampling import standard_gamma

__all__ = [
    "TASKS",
    "Task",
    "bimodal_square",
    "conjugate_gaussian",
    "hierarchical_nuisance",
    "make_task",
    "slcp",
    "two_moons",
]


@dataclass(frozen=True)
class Task:
    """A simulation-based inference problem with a low-dimensional latent of interest z = project(theta)."""

    name: str
    d_theta: int
    d_z: int
    x_dim: int
    low: tuple[float, ...]
    high: tuple[float, ...]
    prior: Callable[[int, torch.Generator], Tensor]
    simulate: Callable[[Tensor, torch.Generator], Tensor]
    reference_log_posterior: Callable[[Tensor, Tensor], Tensor] | None = None

    def project(self, theta: Tensor) -> Tensor:
        """The latent of interest: the first d_z coordinates of theta (the rest are nuisance)."""
        check_tensor("theta", theta, shape=None)
        if theta.dim() < 1 or theta.shape[-1] != self.d_theta:
            raise ValueError(
                f"theta must end with d_theta = {self.d_theta} coordinates, got {tuple(theta.shape)}"
            )
        return theta[..., : self.d_z]

    def pairs(self, n: int, generator: torch.Generator) -> tuple[Tensor, Tensor]:
        """n fresh (z, x) pairs (nuisance coordinates discarded)."""
        check_int("n", n, low=1)
        if not isinstance(generator, torch.Generator):
            raise TypeError(f"generator must be a torch.Generator, got {type(generator).__name__}")
        theta = self.prior(n, generator)
        return self.project(theta), self.simulate(theta, generator)


def _uniform(low: float, high: float, d: int) -> Callable[[int, torch.Generator], Tensor]:
    def prior(n: int, generator: torch.Generator) -> Tensor:
        return low + (high - low) * torch.rand(n, d, generator=generator)

    return prior


def two_moons(noise: float = 0.01) -> Task:
    """sbi's two-moons benchmark (theta ~ U[-1, 1]^2, x in R^2) with radial noise std `noise` (standard: 0.01)."""
    check_float("noise", noise, low=0.0, low_open=True)

    def simulate(theta: Tensor, generator: torch.Generator) -> Tensor:
        n = theta.shape[0]
        a = math.pi * (torch.rand(n, generator=generator) - 0.5)
        r = 0.1 + noise * torch.randn(n, generator=generator)
        p = torch.stack([r * torch.cos(a) + 0.25, r * torch.sin(a)], dim=-1)
        shift = torch.stack(
            [-(theta[:, 0] + theta[:, 1]).abs() / math.sqrt(2), (-theta[:, 0] + theta[:, 1]) / math.sqrt(2)],
            -1,
        )
        return p + shift

    def ref(z: Tensor, x_o: Tensor) -> Tensor:
        z = z.to(torch.float64)
        x_o = x_o.reshape(-1).to(torch.float64)
        shift = torch.stack(
            [-(z[:, 0] + z[:, 1]).abs() / math.sqrt(2), (-z[:, 0] + z[:, 1]) / math.sqrt(2)], -1
        )
        q = x_o - shift - torch.tensor([0.25, 0.0], dtype=torch.float64)
        r = q.norm(dim=-1).clamp_min(1e-12)
        lp = (
            -0.5 * ((r - 0.1) / noise) ** 2
            - math.log(noise * math.sqrt(2 * math.pi))
            - torch.log(math.pi * r)
        )
        return torch.where(q[:, 0] > 0, lp, torch.full_like(lp, -math.inf))

    return Task("two_moons", 2, 2, 2, (-1.0, -1.0), (1.0, 1.0), _uniform(-1.0, 1.0, 2), simulate, ref)


def bimodal_square(sigma: float = 0.3) -> Task:
    """z ~ U[-2, 2], x ~ N(z^2, sigma^2): a 1-D posterior with two modes at +-sqrt(x)."""
    check_float("sigma", sigma, low=0.0, low_open=True)

    def simulate(theta: Tensor, generator: torch.Generator) -> Tensor:
        return theta[:, :1] ** 2 + sigma * torch.randn(theta.shape[0], 1, generator=generator)

    def ref(z: Tensor, x_o: Tensor) -> Tensor:
        return -0.5 * ((x_o.reshape(-1)[0].double() - z[:, 0].double() ** 2) / sigma) ** 2

    return Task("bimodal_square", 1, 1, 1, (-2.0,), (2.0,), _uniform(-2.0, 2.0, 1), simulate, ref)


def slcp(n_obs: int = 4) -> Task:
    """SLCP: theta ~ U[-3, 3]^5, x = n_obs draws of a 2-D Gaussian with mean (theta_1, theta_2), scales theta_3^2,
    theta_4^2 and correlation tanh(theta_5); the latent of interest is (theta_1, theta_2)."""
    check_int("n_obs", n_obs, low=1)

    def simulate(theta: Tensor, generator: torch.Generator) -> Tensor:
        n = theta.shape[0]
        m = theta[:, :2]
        s1, s2, rho = theta[:, 2] ** 2, theta[:, 3] ** 2, torch.tanh(theta[:, 4])
        e = torch.randn(n, n_obs, 2, generator=generator)
        x1 = m[:, None, 0] + s1[:, None] * e[..., 0]
        x2 = m[:, None, 1] + s2[:, None] * (
            rho[:, None] * e[..., 0] + torch.sqrt(1 - rho[:, None] ** 2) * e[..., 1]
        )
        return torch.stack([x1, x2], dim=-1).reshape(n, 2 * n_obs)

    return Task("slcp", 5, 2, 2 * n_obs, (-3.0, -3.0), (3.0, 3.0), _uniform(-3.0, 3.0, 5), simulate)


def hierarchical_nuisance(d_xi: int = 20, tau: float = 0.5, df: float = 3.0, sigma: float = 0.5) -> Task:
    """z ~ U[-3, 3]; nuisance effects xi_i = z + tau * t_df (i <= d_xi, Student-t); x_i = xi_i + sigma * N(0, 1).

    theta = (z, xi) has 1 + d_xi coordinates; the exact marginal p(z | x) is prod_i f(x_i - z) with f the density
    of tau * t_df + sigma * N(0, 1), computed by quadrature.
    """
    check_int("d_xi", d_xi, low=1)
    for name, v in (("tau", tau), ("df", df), ("sigma", sigma)):
        check_float(name, v, low=0.0, low_open=True)

    def prior(n: int, generator: torch.Generator) -> Tensor:
        z = -3.0 + 6.0 * torch.rand(n, 1, generator=generator)
        g = torch.randn(n, d_xi, generator=generator)
        chi2 = 2.0 * standard_gamma(torch.full((n, d_xi), df / 2.0), generator=generator)
        return torch.cat([z, z + tau * g / torch.sqrt(chi2 / df)], dim=-1)

    def simulate(theta: Tensor, generator: torch.Generator) -> Tensor:
        xi = theta[:, 1:]
        return xi + sigma * torch.randn(xi.shape, generator=generator)

    from scipy import stats

    s = np.linspace(-40.0, 40.0, 8001)
    ds = s[1] - s[0]
    t_pdf = stats.t.pdf(s / tau, df) / tau

    def log_f(u: np.ndarray) -> np.ndarray:
        """log density of tau * t + sigma * N at u (any shape), by quadrature over the t variable."""
        flat = u.reshape(-1)
        out = np.empty_like(flat)
        for i in range(0, flat.size, 256):
            chunk = flat[i : i + 256, None]
            dens = (
                (t_pdf * np.exp(-0.5 * ((chunk - s) / sigma) ** 2)).sum(-1)
                * ds
                / (sigma * math.sqrt(2 * math.pi))
            )
            out[i : i + 256] = np.log(np.maximum(dens, 1e-300))
        return out.reshape(u.shape)

    def ref(z: Tensor, x_o: Tensor) -> Tensor:
        u = x_o.reshape(-1).double().numpy()[None, :] - z[:, 0].double().numpy()[:, None]
        return torch.from_numpy(log_f(u).sum(-1))

    return Task("hierarchical", 1 + d_xi, 1, d_xi, (-3.0,), (3.0,), prior, simulate, ref)


def conjugate_gaussian(n_obs: int = 5, sigma: float = 1.0) -> Task:
    """z ~ N(0, 1) (support [-5, 5]); x_i ~ N(z, sigma^2), i <= n_obs: Gaussian posterior in closed form."""
    check_int("n_obs", n_obs, low=1)
    check_float("sigma", sigma, low=0.0, low_open=True)

    def prior(n: int, generator: torch.Generator) -> Tensor:
        return torch.randn(n, 1, generator=generator).clamp(-5.0, 5.0)

    def simulate(theta: Tensor, generator: torch.Generator) -> Tensor:
        return theta[:, :1] + sigma * torch.randn(theta.shape[0], n_obs, generator=generator)

    def ref(z: Tensor, x_o: Tensor) -> Tensor:
        prec = 1.0 + n_obs / sigma**2
        mean = x_o.reshape(-1).double().sum() / sigma**2 / prec
        return -0.5 * prec * (z[:, 0].double() - mean) ** 2

    return Task("conjugate_gaussian", 1, 1, n_obs, (-5.0,), (5.0,), prior, simulate, ref)


TASKS: dict[str, Callable[..., Task]] = {
    "two_moons": two_moons,
    "bimodal_square": bimodal_square,
    "slcp": slcp,
    "hierarchical": hierarchical_nuisance,
    "conjugate_gaussian": conjugate_gaussian,
}


def make_task(name: str, **kwargs: float) -> Task:
    """Build a task by name (see :data:`TASKS`) with its keyword arguments."""
    if name not in TASKS:
        raise ValueError(f"unknown task {name!r}; choose one of {sorted(TASKS)}")
    return TASKS[name](**kwargs)
