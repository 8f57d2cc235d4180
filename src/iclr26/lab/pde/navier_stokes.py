"""A batched pseudo-spectral solver for 2-D incompressible Navier-Stokes in vorticity form (pure PyTorch).

The equation on the periodic box [0, L)^2, for the vorticity w = dv/dx - du/dy of the velocity (u, v):

    dw/dt + (u, v) . grad w = nu lap w + f(x, y, t),        -lap psi = w,   u = dpsi/dy,   v = -dpsi/dx.

Discretisation (the scheme of the FNO Navier-Stokes data, Li et al. 2021, on any box and forcing):

* space: Fourier collocation on an n x n grid; the streamfunction is psi_k = w_k / |k|^2 (psi_0 = 0), the
  products u w_x + v w_y are formed on the grid and dealiased by the 2/3 rule (modes with |k_i| > n/3 dropped);
* time: Crank-Nicolson for the viscous term and Heun (explicit trapezoid, RK2) for the advection and forcing,

      w* = [(1 - nu dt |k|^2 / 2) w^n + dt N(w^n, t_n)] / (1 + nu dt |k|^2 / 2),
      w^{n+1} = [(1 - nu dt |k|^2 / 2) w^n + dt/2 (N(w^n, t_n) + N(w*, t_{n+1}))] / (1 + nu dt |k|^2 / 2),

  with N(w, t) = -(u w_x + v w_y)_k + f_k(t): second order in dt, spectrally accurate in space.

The mean vorticity is conserved exactly (N has no k = 0 mode when f has none); without viscosity and forcing the
semi-discrete system conserves energy and enstrophy, so a step changes them only by the time error.

Example
-------
>>> import torch
>>> from iclr26.lab.pde.navier_stokes import NavierStokes2D, gaussian_random_field, kolmogorov_forcing
>>> solver = NavierStokes2D(32, nu=1e-3, forcing=kolmogorov_forcing(32, wavenumber=4, amplitude=0.1))
>>> w0 = gaussian_random_field(2, 32, generator=torch.Generator().manual_seed(0))
>>> solver.simulate(w0, dt=0.05, n_steps=10, save_every=5).shape
torch.Size([2, 3, 32, 32])
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

from iclr26.checks import check_float, check_int, check_tensor

__all__ = [
    "NavierStokes2D",
    "energy",
    "enstrophy",
    "gaussian_random_field",
    "kolmogorov_forcing",
    "taylor_green_vorticity",
    "velocity_from_vorticity",
    "wavenumbers",
]

Forcing = torch.Tensor | Callable[[float], torch.Tensor] | None


def wavenumbers(
    n: int, length: float = 2 * math.pi, dtype=torch.float64, device=None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Angular wavenumbers (kx, ky) of the rfft2 layout of an (n, n) field indexed [y, x]: shapes (1, n//2+1)
    and (n, 1)."""
    check_int("n", n, low=2)
    scale = 2 * math.pi / check_float("length", length, low=0.0, low_open=True)
    kx = torch.fft.rfftfreq(n, 1.0 / n, dtype=dtype, device=device) * scale
    ky = torch.fft.fftfreq(n, 1.0 / n, dtype=dtype, device=device) * scale
    return kx[None, :], ky[:, None]


def _check_field(name: str, w: torch.Tensor, n: int | None = None) -> torch.Tensor:
    check_tensor(name, w, floating=True)
    if w.ndim < 2 or w.shape[-1] != w.shape[-2] or (n is not None and w.shape[-1] != n):
        want = f"(..., {n}, {n})" if n is not None else "(..., n, n)"
        raise ValueError(f"{name} must have shape {want} (square, last two axes y, x), got {tuple(w.shape)}")
    return w


def velocity_from_vorticity(
    w: torch.Tensor, length: float = 2 * math.pi
) -> tuple[torch.Tensor, torch.Tensor]:
    """(u, v) = (dpsi/dy, -dpsi/dx) with -lap psi = w (its mean mode dropped); w of shape (..., n, n) [y, x]."""
    _check_field("w", w)
    n = w.shape[-1]
    kx, ky = wavenumbers(n, length, w.dtype, w.device)
    k2 = kx**2 + ky**2
    k2[0, 0] = 1.0
    psi = torch.fft.rfft2(w) / k2
    psi[..., 0, 0] = 0.0
    u = torch.fft.irfft2(1j * ky * psi, s=(n, n))
    v = torch.fft.irfft2(-1j * kx * psi, s=(n, n))
    return u, v


def energy(w: torch.Tensor, length: float = 2 * math.pi) -> torch.Tensor:
    """Kinetic energy per unit area, mean of (u^2 + v^2) / 2 over the grid, per field (shape w.shape[:-2])."""
    u, v = velocity_from_vorticity(w, length)
    return 0.5 * (u**2 + v**2).mean(dim=(-2, -1))


def enstrophy(w: torch.Tensor) -> torch.Tensor:
    """Enstrophy per unit area, mean of w^2 / 2 over the grid, per field."""
    _check_field("w", w)
    return 0.5 * (w**2).mean(dim=(-2, -1))


def kolmogorov_forcing(
    n: int, wavenumber: int = 4, amplitude: float = 0.1, length: float = 2 * math.pi, dtype=torch.float64
) -> torch.Tensor:
    """The (n, n) field amplitude * sin(wavenumber * 2 pi y / length) (rows are y)."""
    check_int("wavenumber", wavenumber, low=1)
    check_float("amplitude", amplitude)
    y = torch.arange(n, dtype=dtype) * (check_float("length", length, low=0.0, low_open=True) / n)
    return (amplitude * torch.sin(wavenumber * 2 * math.pi * y / length))[:, None].expand(n, n).clone()


def taylor_green_vorticity(
    n: int, t: float = 0.0, nu: float = 0.0, wavenumber: int = 1, dtype=torch.float64
) -> torch.Tensor:
    """The Taylor-Green vortex on [0, 2 pi)^2: w = 2 k cos(k x) cos(k y) exp(-2 nu k^2 t), an exact solution (its
    advection vanishes, so it decays by viscosity alone)."""
    k = check_int("wavenumber", wavenumber, low=1)
    x = torch.arange(n, dtype=dtype) * (2 * math.pi / n)
    decay = math.exp(-2.0 * check_float("nu", nu, low=0.0) * k**2 * float(t))
    return 2 * k * torch.cos(k * x)[None, :] * torch.cos(k * x)[:, None] * decay


def gaussian_random_field(
    batch: int,
    n: int,
    alpha: float = 2.5,
    tau: float = 7.0,
    sigma: float | None = None,
    *,
    generator: torch.Generator | None = None,
    dtype=torch.float64,
) -> torch.Tensor:
    """(batch, n, n) samples of the periodic Gaussian field N(0, sigma^2 (-lap + tau^2)^(-alpha)) with zero mean
    (the FNO initial condition; ``sigma`` defaults to tau^(alpha - 1), which gives unit-order vorticity)."""
    batch = check_int("batch", batch, low=1)
    n = check_int("n", n, low=2)
    alpha = check_float("alpha", alpha, low=0.0, low_open=True)
    tau = check_float("tau", tau, low=0.0)
    sigma = tau ** (alpha - 1.0) if sigma is None else check_float("sigma", sigma, low=0.0, low_open=True)
    ky = torch.fft.fftfreq(n, 1.0 / n, dtype=dtype)[:, None]
    kx_full = torch.fft.fftfreq(n, 1.0 / n, dtype=dtype)[None, :]
    k2 = kx_full**2 + ky**2  # integer wavenumbers (the FNO field on the unit box, mapped to any box)
    sqrt_eig = n * n * math.sqrt(2.0) * sigma * (4 * math.pi**2 * k2 + tau**2) ** (-alpha / 2.0)
    sqrt_eig = sqrt_eig.expand(n, n).clone()
    sqrt_eig[0, 0] = 0.0
    noise = torch.randn(batch, n, n, 2, generator=generator, dtype=dtype)
    coef = sqrt_eig * torch.complex(noise[..., 0], noise[..., 1])
    return torch.fft.ifft2(coef).real


class NavierStokes2D:
    """Pseudo-spectral Crank-Nicolson / Heun integrator of 2-D vorticity on a periodic n x n grid (batched).

    Parameters
    ----------
    n : grid points per axis (fields are (..., n, n), indexed [y, x]).
    nu : kinematic viscosity (>= 0).
    forcing : None, an (n, n) tensor (steady) or a callable t -> (n, n) or (..., n, n) tensor (unsteady).
    length : box side L (default 2 pi).
    dealias : apply the 2/3 rule to the advection term.

    Example
    -------
    >>> import torch
    >>> s = NavierStokes2D(16, nu=0.1)
    >>> w = taylor_green_vorticity(16)
    >>> bool(torch.allclose(s.simulate(w, dt=0.01, n_steps=100)[-1], taylor_green_vorticity(16, 1.0, 0.1),
    ...                     atol=1e-4))
    True
    """

    def __init__(
        self, n: int, nu: float, forcing: Forcing = None, length: float = 2 * math.pi, dealias: bool = True
    ) -> None:
        self.n = check_int("n", n, low=4)
        self.nu = check_float("nu", nu, low=0.0)
        self.length = check_float("length", length, low=0.0, low_open=True)
        if isinstance(forcing, torch.Tensor):
            _check_field("forcing", forcing, self.n)
            check_tensor("forcing", forcing, finite=True)
        elif forcing is not None and not callable(forcing):
            raise ValueError(
                f"forcing must be None, an ({n}, {n}) tensor or a callable t -> tensor, got {forcing!r}"
            )
        self.forcing = forcing
        self.dealias = bool(dealias)

    # --------------------------------------------------------------- spectral pieces

    def _grids(self, dtype, device):
        kx, ky = wavenumbers(self.n, self.length, dtype, device)
        k2 = kx**2 + ky**2
        inv_k2 = 1.0 / torch.where(k2 == 0, torch.ones_like(k2), k2)
        inv_k2[0, 0] = 0.0
        kmax = self.n // 3 * (2 * math.pi / self.length)
        if self.dealias:
            mask = ((kx.abs() <= kmax) & (ky.abs() <= kmax)).to(dtype)
        else:
            mask = torch.ones_like(k2)
        return kx, ky, k2, inv_k2, mask

    def _forcing_hat(self, t: float, dtype, device) -> torch.Tensor | None:
        if self.forcing is None:
            return None
        f = self.forcing(t) if callable(self.forcing) else self.forcing
        return torch.fft.rfft2(f.to(dtype=dtype, device=device))

    def rhs_hat(self, w_hat: torch.Tensor, t: float, grids) -> torch.Tensor:
        """N(w, t) in Fourier space: -(u w_x + v w_y) (dealiased) plus the forcing."""
        kx, ky, _, inv_k2, mask = grids
        n = self.n
        psi = w_hat * inv_k2
        u = torch.fft.irfft2(1j * ky * psi, s=(n, n))
        v = torch.fft.irfft2(-1j * kx * psi, s=(n, n))
        wx = torch.fft.irfft2(1j * kx * w_hat, s=(n, n))
        wy = torch.fft.irfft2(1j * ky * w_hat, s=(n, n))
        out = -torch.fft.rfft2(u * wx + v * wy) * mask
        f = self._forcing_hat(t, u.dtype, u.device)
        return out if f is None else out + f

    def step_hat(self, w_hat: torch.Tensor, t: float, dt: float, grids) -> torch.Tensor:
        """One Crank-Nicolson / Heun step of the Fourier coefficients."""
        k2 = grids[2]
        a = 1.0 - 0.5 * self.nu * dt * k2
        b = 1.0 / (1.0 + 0.5 * self.nu * dt * k2)
        n0 = self.rhs_hat(w_hat, t, grids)
        w_star = (a * w_hat + dt * n0) * b
        n1 = self.rhs_hat(w_star, t + dt, grids)
        return (a * w_hat + 0.5 * dt * (n0 + n1)) * b

    def step(self, w: torch.Tensor, dt: float, t: float = 0.0) -> torch.Tensor:
        """w(t + dt) from w(t), w of shape (..., n, n)."""
        _check_field("w", w, self.n)
        dt = check_float("dt", dt, low=0.0, low_open=True)
        grids = self._grids(w.dtype, w.device)
        return torch.fft.irfft2(self.step_hat(torch.fft.rfft2(w), float(t), dt, grids), s=(self.n, self.n))

    def simulate(
        self, w0: torch.Tensor, dt: float, n_steps: int, save_every: int | None = None, t0: float = 0.0
    ) -> torch.Tensor:
        """March ``n_steps`` steps of ``dt`` from w0 (..., n, n); returns the frames every ``save_every`` steps
        (default: only the last), including w0, as (..., n_saved, n, n) with n_saved = n_steps // save_every + 1."""
        _check_field("w0", w0, self.n)
        check_tensor("w0", w0, finite=True)
        dt = check_float("dt", dt, low=0.0, low_open=True)
        n_steps = check_int("n_steps", n_steps, low=0)
        save_every = n_steps if save_every is None else check_int("save_every", save_every, low=1)
        if n_steps and n_steps % max(save_every, 1):
            raise ValueError(f"n_steps ({n_steps}) must be a multiple of save_every ({save_every})")
        grids = self._grids(w0.dtype, w0.device)
        w_hat = torch.fft.rfft2(w0)
        frames = [w0]
        for i in range(n_steps):
            w_hat = self.step_hat(w_hat, t0 + i * dt, dt, grids)
            if (i + 1) % save_every == 0:
                frames.append(torch.fft.irfft2(w_hat, s=(self.n, self.n)))
        out = torch.stack(frames, dim=-3)
        if not bool(torch.isfinite(out[..., -1, :, :]).all()):
            raise FloatingPointError(f"the solution blew up (non-finite values); lower dt (got {dt:g})")
        return out
