"""Two-way fluid-solid interaction data: an immersed-boundary (IB) elastic body in forced periodic 2-D flow.

Paper: "Fisale: Neural Latent Arbitrary Lagrangian-Eulerian Grids for Fluid-Solid Interaction" (ICLR 2026, arXiv
2603.00792). The paper's datasets (TF-FSI2, venous valve, flexible wing) are external FEM/ALE downloads; this is the
brief's CPU-scale surrogate with genuine two-way coupling.

* Fluid: vorticity w on a periodic n x n grid of [0, 2 pi)^2, advanced with the advection of the lab's
  pseudo-spectral solver (:meth:`iclr26.lab.pde.navier_stokes.NavierStokes2D.rhs_hat`, 2/3 dealiased), a uniform
  background flow (U0, 0), a Kolmogorov forcing a sin(4 y), and the curl of the spread body force; Crank-Nicolson
  viscosity with a per-trajectory nu, Heun (RK2) for everything else (fluid and markers in one step).
* Solid: a closed elastic body of Lagrangian markers, a boundary ring of ``n_interface`` markers (the interface) and
  interior rings plus a centre marker (the solid), joined by linear springs (ring, radial and rim-to-ring). Rest
  lengths come from a circle; the body starts as an ellipse of the same area, so it oscillates while it drifts.
* Coupling (Peskin): marker forces F_m are spread with the 4-point cosine delta, f(x) = sum_m F_m delta_h(x - X_m),
  and the markers move with the interpolated velocity, dX_m/dt = U0 + sum_x u(x) delta_h(x - X_m) h^2.

Per trajectory: stiffness, initial aspect ratio, background-flow strength and viscosity (Reynolds number) vary.
Frames: solid = interior marker positions (N_s x 2); interface = ring positions, velocities and forces (N_i x 6);
fluid = a fixed random subset of Eulerian nodes outside the initial body, coordinates and (u, v, w) (N_f x 5).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import torch

from iclr26.checks import check_float, check_int, check_tensor
from iclr26.lab.pde.navier_stokes import NavierStokes2D, velocity_from_vorticity, wavenumbers

__all__ = [
    "FSIDataConfig",
    "IBSimulator",
    "enclosed_area",
    "make_fsi_dataset",
    "peskin_delta",
    "spectral_divergence",
]

L = 2 * math.pi


def peskin_delta(r: torch.Tensor) -> torch.Tensor:
    """Peskin's 4-point cosine kernel phi(r) = (1 + cos(pi r / 2)) / 4 for |r| < 2, else 0 (r in grid units);
    it sums to 1 over any unit-spaced set of points."""
    check_tensor("r", r, floating=True)
    return torch.where(r.abs() < 2, 0.25 * (1 + torch.cos(0.5 * math.pi * r)), torch.zeros_like(r))


def enclosed_area(ring: torch.Tensor) -> torch.Tensor:
    """Shoelace area of closed polygons ring (..., N, 2) (counter-clockwise positive)."""
    check_tensor("ring", ring, floating=True)
    if ring.ndim < 2 or ring.shape[-1] != 2 or ring.shape[-2] < 3:
        raise ValueError(f"ring must have shape (..., N >= 3, 2), got {tuple(ring.shape)}")
    x, y = ring[..., 0], ring[..., 1]
    return 0.5 * (x * torch.roll(y, -1, -1) - torch.roll(x, -1, -1) * y).sum(-1)


def spectral_divergence(u: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """max |du/dx + dv/dy| of periodic fields (..., n, n) [y, x] on [0, 2 pi)^2, by Fourier differentiation."""
    n = u.shape[-1]
    kx, ky = wavenumbers(n, L, u.dtype, u.device)
    div = torch.fft.irfft2(1j * kx * torch.fft.rfft2(u) + 1j * ky * torch.fft.rfft2(v), s=(n, n))
    return div.abs().amax(dim=(-2, -1))


@dataclass(frozen=True)
class FSIDataConfig:
    """The IB generator's settings (defaults: the brief's quick budget)."""

    n: int = 48
    n_traj: int = 24
    n_frames: int = 60
    substeps: int = 8
    dt: float = 0.02
    n_interface: int = 32
    n_fluid: int = 1024
    radius: float = 0.7
    stiffness: tuple[float, float] = (20.0, 60.0)
    aspect: tuple[float, float] = (1.2, 1.6)
    flow: tuple[float, float] = (0.1, 0.3)
    nu: tuple[float, float] = (0.01, 0.03)
    forcing: float = 0.5
    seed: int = 0

    def __post_init__(self) -> None:
        check_int("n", self.n, low=8)
        check_int("n_traj", self.n_traj, low=1)
        check_int("n_frames", self.n_frames, low=2)
        check_int("substeps", self.substeps, low=1)
        check_float("dt", self.dt, low=0.0, low_open=True)
        check_int("n_interface", self.n_interface, low=8)
        if not 1 <= self.n_fluid <= self.n * self.n // 2:
            raise ValueError(f"n_fluid must be in [1, n^2 / 2 = {self.n * self.n // 2}], got {self.n_fluid}")


def _body(cfg: FSIDataConfig, aspect: torch.Tensor, centre: torch.Tensor):
    """Initial markers (B, N, 2) [interface ring first, then interior rings, centre last], the spring list
    (E, 2) and rest lengths (E,) of the circular rest shape."""
    ni = cfg.n_interface
    rings = [(1.0, ni), (2 / 3, ni // 2), (1 / 3, ni // 4)]
    ang, rad, ring_id = [], [], []
    for r_id, (frac, m) in enumerate(rings):
        ang.append(torch.arange(m, dtype=torch.float64) * (2 * math.pi / m))
        rad.append(torch.full((m,), frac))
        ring_id.append(torch.full((m,), r_id))
    ang.append(torch.zeros(1, dtype=torch.float64))
    rad.append(torch.zeros(1, dtype=torch.float64))
    ang_t, rad_t = torch.cat(ang), torch.cat(rad).double()
    rest = cfg.radius * rad_t[:, None] * torch.stack([torch.cos(ang_t), torch.sin(ang_t)], -1)  # (N, 2)
    edges = []
    start = [0]
    for _, m in rings:
        start.append(start[-1] + m)
    for r_id, (_, m) in enumerate(rings):  # ring springs
        s = start[r_id]
        edges += [(s + j, s + (j + 1) % m) for j in range(m)]
    for r_id in range(len(rings) - 1):  # each outer marker to its two nearest inner ones
        so, mo = start[r_id], rings[r_id][1]
        si, mi = start[r_id + 1], rings[r_id + 1][1]
        for j in range(mo):
            a = j * mi / mo
            edges += [(so + j, si + int(math.floor(a)) % mi), (so + j, si + int(math.ceil(a)) % mi)]
    centre_id = start[-1]
    edges += [(centre_id, start[-2] + j) for j in range(rings[-1][1])]
    e = torch.tensor(sorted({tuple(sorted(p)) for p in edges if p[0] != p[1]}))
    rest_len = (rest[e[:, 0]] - rest[e[:, 1]]).norm(dim=-1)
    # initial shape: the same body stretched to an ellipse of equal area (semi-axes r a, r / a)
    x0 = rest[None].clone().expand(aspect.shape[0], -1, -1).clone()
    x0[..., 0] *= aspect[:, None]
    x0[..., 1] /= aspect[:, None]
    return x0 + centre[:, None], e, rest_len


class IBSimulator:
    """Batched two-way IB coupling of an elastic spring body and periodic incompressible flow (see the module
    docstring). ``nu``, ``flow``, ``stiffness``: (B,) tensors, one value per trajectory."""

    def __init__(self, cfg: FSIDataConfig, nu: torch.Tensor, flow: torch.Tensor, stiffness: torch.Tensor):
        self.cfg = cfg
        self.n = cfg.n
        self.h = L / cfg.n
        self.solver = NavierStokes2D(cfg.n, nu=0.0, forcing=None, length=L)
        kx, ky = wavenumbers(cfg.n, L)
        k2 = kx**2 + ky**2
        inv_k2 = torch.where(
            k2 == 0, torch.zeros_like(k2), 1.0 / torch.where(k2 == 0, torch.ones_like(k2), k2)
        )
        kmax = cfg.n // 3
        mask = ((kx.abs() <= kmax) & (ky.abs() <= kmax)).double()
        self.grids = (kx, ky, k2, inv_k2, mask)
        self.kx, self.ky, self.k2 = kx, ky, k2
        self.nu = nu.double()[:, None, None]
        self.flow = flow.double()
        self.stiffness = stiffness.double()
        y = torch.arange(cfg.n, dtype=torch.float64) * self.h
        self.f_hat = torch.fft.rfft2((cfg.forcing * torch.sin(4 * y))[:, None].expand(cfg.n, cfg.n))
        self.grid_x = torch.arange(cfg.n, dtype=torch.float64) * self.h

    def _deltas(self, X: torch.Tensor):
        """Separable delta weights (B, M, n) along x and y of markers X (B, M, 2) (periodic)."""

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


@functools.lru_cache(maxsize=4)
def make_fsi_dataset(cfg: FSIDataConfig) -> dict[str, torch.Tensor]:
    """Generate ``cfg.n_traj`` trajectories of ``cfg.n_frames`` frames (float32 tensors, cached in memory).

    Returns solid (T, F, N_s, 2), interface (T, F, N_i, 6: x, y, u, v, Fx, Fy), fluid (T, F, N_f, 5: x, y, u, v,
    w), vorticity (T, F, n, n), area (T, F) of the interface ring, divergence (T, F) of the fluid velocity, and the
    per-trajectory parameters params (T, 4: stiffness, aspect, flow, nu)."""
    g = torch.Generator().manual_seed(cfg.seed)
    T = cfg.n_traj

    def uni(lo_hi):
        lo, hi = lo_hi
        return lo + (hi - lo) * torch.rand(T, generator=g, dtype=torch.float64)

    stiff, aspect, flow, nu = uni(cfg.stiffness), uni(cfg.aspect), uni(cfg.flow), uni(cfg.nu)
    centre = torch.stack([torch.full((T,), L / 2 - 1.0), torch.full((T,), L / 2)], -1).double()
    centre = centre + 0.3 * (torch.rand(T, 2, generator=g, dtype=torch.float64) - 0.5)
    X, edges, rest = _body(cfg, aspect, centre)
    sim = IBSimulator(cfg, nu, flow, stiff)
    w = 0.3 * torch.randn(T, cfg.n, cfg.n, generator=g, dtype=torch.float64)
    w_hat = torch.fft.rfft2(w) * sim.grids[4] * torch.exp(-sim.k2 / 8)  # smooth random initial vorticity
    ni = cfg.n_interface
    # a fixed random subset of Eulerian nodes outside the initial body (1.3 radii from its centre)
    gx = sim.grid_x
    nodes = torch.stack(torch.meshgrid(gx, gx, indexing="xy"), -1).reshape(
        -1, 2
    )  # (n^2, 2) [x, y], row-major y
    fluid_idx = []
    for t in range(T):
        outside = ((nodes - centre[t]).norm(dim=-1) > 1.3 * cfg.radius * float(aspect[t])).nonzero()[:, 0]
        perm = torch.randperm(outside.numel(), generator=g)[: cfg.n_fluid]
        fluid_idx.append(outside[perm.sort().values])
    fluid_idx = torch.stack(fluid_idx)  # (T, N_f)
    fluid_xy = nodes[fluid_idx]

    out = {k: [] for k in ("solid", "interface", "fluid", "vorticity", "area", "divergence")}
    for f in range(cfg.n_frames):
        if f:
            for _ in range(cfg.substeps):
                w_hat, X = sim.step(w_hat, X, edges, rest, cfg.dt)
        _, dX, F = sim.rates(w_hat, X, edges, rest)
        wf = torch.fft.irfft2(w_hat, s=(cfg.n, cfg.n))
        u, v = velocity_from_vorticity(wf, L)
        flat = lambda z: z.reshape(T, -1).gather(1, fluid_idx)  # noqa: E731
        fluid = torch.stack(
            [fluid_xy[..., 0], fluid_xy[..., 1], flat(u) + flow[:, None], flat(v), flat(wf)], -1
        )
        out["solid"].append(X[:, ni:])
        out["interface"].append(torch.cat([X[:, :ni], dX[:, :ni], F[:, :ni]], -1))
        out["fluid"].append(fluid)
        out["vorticity"].append(wf)
        out["area"].append(enclosed_area(X[:, :ni]))
        out["divergence"].append(spectral_divergence(u, v))
    res = {k: torch.stack(v, 1).float() for k, v in out.items()}
    res["area"] = torch.stack(out["area"], 1)  # keep float64 for the conservation check
    res["divergence"] = torch.stack(out["divergence"], 1)
    res["params"] = torch.stack([stiff, aspect, flow, nu], -1).float()
    if not bool(torch.isfinite(res["fluid"]).all()):
        raise FloatingPointError("the IB simulation blew up; lower dt or the stiffness")
    return res
