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
from iclr26.lab.pde.immersed_boundary import IBSimulator as _LabIBSimulator
from iclr26.lab.pde.immersed_boundary import enclosed_area, peskin_delta, spectral_divergence
from iclr26.lab.pde.navier_stokes import velocity_from_vorticity

__all__ = [
    "FSIDataConfig",
    "IBSimulator",
    "enclosed_area",
    "make_fsi_dataset",
    "peskin_delta",
    "spectral_divergence",
]

L = 2 * math.pi


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
        check_int("n_fluid", self.n_fluid, low=1)
        check_float("radius", self.radius, low=0.0, low_open=True)
        check_float("forcing", self.forcing)
        check_int("seed", self.seed, low=0)
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


class IBSimulator(_LabIBSimulator):
    """The lab's batched IB coupling (:class:`iclr26.lab.pde.immersed_boundary.IBSimulator`) on this dataset's
    box, with its Kolmogorov forcing ``cfg.forcing * sin(4 y)``; ``nu``, ``flow``, ``stiffness``: (B,) tensors."""

    def __init__(self, cfg: FSIDataConfig, nu: torch.Tensor, flow: torch.Tensor, stiffness: torch.Tensor):
        if not isinstance(cfg, FSIDataConfig):
            raise TypeError(f"cfg must be an FSIDataConfig, got {type(cfg).__name__}")
        check_tensor("nu", nu, ndim=1, floating=True, finite=True)
        for name, x in (("flow", flow), ("stiffness", stiffness)):
            check_tensor(name, x, ndim=1, floating=True, finite=True, shape=tuple(nu.shape))
        self.cfg = cfg
        y = torch.arange(cfg.n, dtype=torch.float64) * (L / cfg.n)
        forcing = (cfg.forcing * torch.sin(4 * y))[:, None].expand(cfg.n, cfg.n)
        super().__init__(cfg.n, nu, flow, stiffness, forcing=forcing, length=L)


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
