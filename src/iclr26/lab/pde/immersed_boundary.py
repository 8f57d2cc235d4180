"""Immersed-boundary (Peskin) coupling of Lagrangian spring bodies with periodic 2-D incompressible flow.

Built on the pseudo-spectral solver of :mod:`iclr26.lab.pde.navier_stokes` (its dealiased advection
:meth:`~iclr26.lab.pde.navier_stokes.NavierStokes2D.rhs_hat`), batched over trajectories:

* spreading: marker forces F_m become a body force on the grid, f(x) = sum_m F_m delta_h(x - X_m), with Peskin's
  4-point cosine kernel delta_h (separable, periodic); the fluid feels its curl;
* interpolation: markers move with the interpolated velocity, dX_m/dt = U0 + sum_x u(x) delta_h(x - X_m) h^2,
  the adjoint of spreading (tested), plus a uniform background flow (U0, 0) per trajectory;
* time: Crank-Nicolson for viscosity (one nu per trajectory) and Heun (RK2) for advection, forcing and coupling,
  fluid and markers in one step.

Bodies are given as marker positions ``X`` (B, M, 2), spring ``edges`` (E, 2) and rest lengths (E,); linear springs
with one stiffness per trajectory, so the internal forces sum to zero.
"""

from __future__ import annotations

import math

import torch

from iclr26.checks import check_int, check_tensor
from iclr26.lab.pde.navier_stokes import NavierStokes2D, wavenumbers

__all__ = ["IBSimulator", "enclosed_area", "peskin_delta", "spectral_divergence"]


def peskin_delta(r: torch.Tensor) -> torch.Tensor:
    """Peskin's 4-point cosine kernel phi(r) = (1 + cos(pi r / 2)) / 4 for |r| < 2, else 0 (r in grid units);
    it sums to 1 over any unit-spaced set of points."""
    check_tensor("r", r, floating=True)
    # |r| >= 2 -> 0, written so that a NaN r stays NaN (NaN >= 2 is False) instead of becoming a silent 0
    return torch.where(r.abs() >= 2, torch.zeros_like(r), 0.25 * (1 + torch.cos(0.5 * math.pi * r)))


def enclosed_area(ring: torch.Tensor) -> torch.Tensor:
    """Shoelace area of closed polygons ring (..., N, 2) (counter-clockwise positive)."""
    check_tensor("ring", ring, floating=True)
    if ring.ndim < 2 or ring.shape[-1] != 2 or ring.shape[-2] < 3:
        raise ValueError(f"ring must have shape (..., N >= 3, 2), got {tuple(ring.shape)}")
    x, y = ring[..., 0], ring[..., 1]
    return 0.5 * (x * torch.roll(y, -1, -1) - torch.roll(x, -1, -1) * y).sum(-1)


def spectral_divergence(u: torch.Tensor, v: torch.Tensor, length: float = 2 * math.pi) -> torch.Tensor:
    """max |du/dx + dv/dy| of periodic fields (..., n, n) [y, x] on [0, length)^2, by Fourier differentiation."""
    check_tensor("u", u, floating=True)
    if u.ndim < 2 or u.shape[-1] != u.shape[-2]:
        raise ValueError(f"u must be a periodic field (..., n, n), got shape {tuple(u.shape)}")
    check_tensor("v", v, floating=True)
    if v.shape != u.shape:
        raise ValueError(f"v must have the shape of u {tuple(u.shape)}, got {tuple(v.shape)}")
    n = u.shape[-1]
    kx, ky = wavenumbers(n, length, u.dtype, u.device)
    div = torch.fft.irfft2(1j * kx * torch.fft.rfft2(u) + 1j * ky * torch.fft.rfft2(v), s=(n, n))
    return div.abs().amax(dim=(-2, -1))


class IBSimulator:
    """Batched two-way IB coupling of elastic spring bodies and periodic incompressible flow (module docstring).

    Parameters
    ----------
    n : grid points per axis of the periodic box [0, length)^2.
    nu, flow, stiffness : (B,) tensors, one viscosity, background-flow speed U0 and spring stiffness per trajectory.
    forcing : None or an (n, n) steady vorticity forcing field [y, x].
    length : box side (default 2 pi).
    """

    def __init__(
        self,
        n: int,
        nu: torch.Tensor,
        flow: torch.Tensor,
        stiffness: torch.Tensor,
        forcing: torch.Tensor | None = None,
        length: float = 2 * math.pi,
    ):
        self.n = check_int("n", n, low=4)
        self.length = float(length)
        self.h = self.length / n
        self.solver = NavierStokes2D(n, nu=0.0, forcing=None, length=self.length)
        kx, ky = wavenumbers(n, self.length)
        k2 = kx**2 + ky**2
        inv_k2 = torch.where(
            k2 == 0, torch.zeros_like(k2), 1.0 / torch.where(k2 == 0, torch.ones_like(k2), k2)
        )
        kmax = n // 3
        mask = ((kx.abs() <= kmax) & (ky.abs() <= kmax)).double()
        self.grids = (kx, ky, k2, inv_k2, mask)
        self.kx, self.ky, self.k2 = kx, ky, k2
        self.nu = nu.double()[:, None, None]
        self.flow = flow.double()
        self.stiffness = stiffness.double()
        if forcing is not None and tuple(forcing.shape) != (n, n):
            raise ValueError(
                f"forcing must be an (n, n) = ({n}, {n}) field, got shape {tuple(forcing.shape)}"
            )
        self.f_hat = 0.0 if forcing is None else torch.fft.rfft2(forcing)
        self.grid_x = torch.arange(n, dtype=torch.float64) * self.h

    def _deltas(self, X: torch.Tensor):
        """Separable delta weights (B, M, n) along x and y of markers X (B, M, 2) (periodic)."""
        L = self.length

        def one(c):
            d = c[..., None] - self.grid_x  # (B, M, n)
            d = torch.remainder(d + L / 2, L) - L / 2
            return peskin_delta(d / self.h) / self.h

        return one(X[..., 0]), one(X[..., 1])

    def forces(self, X: torch.Tensor, edges: torch.Tensor, rest: torch.Tensor) -> torch.Tensor:
        """Linear-spring forces (B, M, 2) on the markers; they sum to zero (internal forces)."""
        d = X[:, edges[:, 1]] - X[:, edges[:, 0]]
        length = d.norm(dim=-1, keepdim=True).clamp_min(1e-12)
        t = self.stiffness[:, None, None] * (length - rest[None, :, None]) * d / length  # pulls 0 towards 1
        F = torch.zeros_like(X)
        F.index_add_(1, edges[:, 0], t)
        F.index_add_(1, edges[:, 1], -t)
        return F

    def velocity(self, w_hat: torch.Tensor):
        """Grid velocity (u, v) of the vorticity spectrum w_hat (streamfunction psi = w / |k|^2)."""
        psi = w_hat * self.grids[3]
        u = torch.fft.irfft2(1j * self.ky * psi, s=(self.n, self.n))
        v = torch.fft.irfft2(-1j * self.kx * psi, s=(self.n, self.n))
        return u, v

    def rates(self, w_hat, X, edges, rest):
        """(dw_hat/dt without viscosity, dX/dt, marker forces)."""
        F = self.forces(X, edges, rest)
        dx, dy = self._deltas(X)
        fx = torch.einsum("bm,bmy,bmx->byx", F[..., 0], dy, dx)
        fy = torch.einsum("bm,bmy,bmx->byx", F[..., 1], dy, dx)
        curl = 1j * self.kx * torch.fft.rfft2(fy) - 1j * self.ky * torch.fft.rfft2(fx)
        adv = self.solver.rhs_hat(w_hat, 0.0, self.grids)  # -(u . grad w), dealiased
        uniform = -1j * self.kx * self.flow[:, None, None] * w_hat  # -U0 dw/dx
        dw = adv + uniform * self.grids[4] + self.f_hat + curl * self.grids[4]
        u, v = self.velocity(w_hat)
        ux = torch.einsum("byx,bmy,bmx->bm", u, dy, dx) * self.h**2 + self.flow[:, None]
        vy = torch.einsum("byx,bmy,bmx->bm", v, dy, dx) * self.h**2
        return dw, torch.stack([ux, vy], -1), F

    def step(self, w_hat, X, edges, rest, dt):
        """One Heun step for advection, forcing and coupling with Crank-Nicolson viscosity."""
        a = 1 - 0.5 * self.nu * dt * self.k2
        b = 1 / (1 + 0.5 * self.nu * dt * self.k2)
        dw0, dX0, _ = self.rates(w_hat, X, edges, rest)
        w1 = (a * w_hat + dt * dw0) * b
        X1 = X + dt * dX0
        dw1, dX1, _ = self.rates(w1, X1, edges, rest)
        return (a * w_hat + 0.5 * dt * (dw0 + dw1)) * b, X + 0.5 * dt * (dX0 + dX1)
