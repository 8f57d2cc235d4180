"""A differentiable 2-D voxel mass-spring simulator in pure PyTorch, batched over bodies.

The 2-D analogue of the official Taichi simulator (``simulator.py``), step for step: at step ``t`` the controller
reads the irradiance of every present mass, ``1 / (sqrt(|x_i - light| + eps) + eps)``, and the CPG sines
``sin(omega t dt + 2 pi i / n_cpg)``, and returns one actuation ``a in [-1, 1]`` per spring; each present spring
pulls with ``F = k (L - L0 (1 + alpha a))`` along itself; semi-implicit Euler with unit masses,

    v' = exp(-dt * damping) v + dt g + dt F / m,      x' = x + dt v',

and a flat ground at y = 0 with time-of-impact contact: a mass that would cross the ground moves to the contact
point at ``toi``, loses its normal velocity, its tangential velocity shrinks by ``friction * |v_n|`` (at most 95%),
and it moves on for ``dt - toi``. The loss of a rollout is ``d_end / d_start``, the horizontal distance of the
centre of mass to the light (which sits on the ground) at the end over the start. Every op is a batched tensor op,
so gradients reach the controller through all steps by ordinary autograd.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from iclr26.checks import check_array, check_bool, check_float, check_int, check_tensor
from iclr26.decision.zero_shot_evolution.body import Workspace, check_genotype

__all__ = ["MassSpring2D", "SimResult"]

Controller = Callable[[torch.Tensor], torch.Tensor]


def check_lights(name: str, lights: object, n: int | None = None) -> None:
    """Light x-positions: a 1-D finite float tensor (or a real array) of ``n`` entries (any number when None)."""
    if isinstance(lights, torch.Tensor):
        check_tensor(name, lights, ndim=1, floating=True, finite=True, shape=None if n is None else (n,))
    else:
        a = check_array(name, lights, ndim=1, finite=True)
        if n is not None and a.shape != (n,):
            raise ValueError(f"{name} must have shape ({n},), one light per body, got {a.shape}")


@dataclass
class SimResult:
    """One batched rollout: loss ``(B,)``, centre of mass at start/end ``(B, 2)``, final state ``(B, |M|, 2)``
    and, with ``record=True``, positions ``(steps + 1, B, |M|, 2)``, velocities and actuations ``(steps, B, |S|)``."""

    loss: torch.Tensor
    com_start: torch.Tensor
    com_end: torch.Tensor
    x: torch.Tensor
    v: torch.Tensor
    xs: torch.Tensor | None = None
    vs: torch.Tensor | None = None
    acts: torch.Tensor | None = None


class MassSpring2D:
    """Batched differentiable 2-D voxel soft-body simulator (see the module docstring for the equations).

    Parameters
    ----------
    workspace : the voxel grid (default 5 x 5 voxels of side 0.1: 36 masses, 110 springs).
    dt, k, mass : time step, spring stiffness, point mass; ``dt > 2 / sqrt(k / mass)`` (the explicit-integration
        stability limit of one spring) is refused.
    actuation : alpha, the relative rest-length change at full actuation (0.2).
    damping : velocity drag rate (per second; the velocity is scaled by ``exp(-dt damping)`` each step).
    gravity, friction : ground contact parameters; ``gravity=0`` turns gravity off.
    contact : False turns the ground off (for invariance tests).
    omega, n_cpg : CPG frequency (rad/s) and number of phase-shifted sines.
    """

    def __init__(
        self,
        workspace: Workspace | None = None,
        dt: float = 0.004,
        k: float = 15_000.0,
        mass: float = 1.0,
        actuation: float = 0.2,
        damping: float = 15.0,
        gravity: float = 9.8,
        friction: float = 0.9,
        contact: bool = True,
        omega: float = 10.0,
        n_cpg: int = 5,
        eps: float = 1e-8,
        dtype: torch.dtype = torch.float32,
        device: str | torch.device = "cpu",
    ) -> None:
        self.workspace = Workspace() if workspace is None else workspace
        if not isinstance(self.workspace, Workspace):
            raise TypeError(f"workspace must be a Workspace, got {type(workspace).__name__}")
        self.dt = check_float("dt", dt, low=0.0, low_open=True)
        self.k = check_float("k", k, low=0.0)
        self.mass = check_float("mass", mass, low=0.0, low_open=True)
        if self.k > 0 and self.dt > 2.0 / math.sqrt(self.k / self.mass):
            raise ValueError(
                f"dt = {self.dt:g} violates the stability check dt <= 2 / sqrt(k / mass) = "
                f"{2.0 / math.sqrt(self.k / self.mass):.4g} (k = {self.k:g}, mass = {self.mass:g}); "
                "lower dt or k"
            )
        self.actuation = check_float("actuation", actuation, low=0.0, high=1.0, high_open=True)
        self.damping = check_float("damping", damping, low=0.0)
        self.gravity = check_float("gravity", gravity, low=0.0)
        self.friction = check_float("friction", friction, low=0.0)
        self.contact = check_bool("contact", contact)
        self.omega = check_float("omega", omega)
        self.n_cpg = check_int("n_cpg", n_cpg, low=0)
        self.eps = check_float("eps", eps, low=0.0)
        self.dtype, self.device = dtype, torch.device(device)
        ws = self.workspace
        self.rest_x = torch.as_tensor(ws.masses, dtype=dtype, device=self.device)
        self.springs = torch.as_tensor(ws.springs, device=self.device)
        self.rest_len = torch.as_tensor(ws.rest_lengths, dtype=dtype, device=self.device)
        inc = np.zeros((ws.n_masses, ws.n_springs))
        inc[ws.springs[:, 0], np.arange(ws.n_springs)] = -1.0
        inc[ws.springs[:, 1], np.arange(ws.n_springs)] = 1.0
        self.incidence = torch.as_tensor(
            inc, dtype=dtype, device=self.device
        )  # (M, S): x @ inc = spring vectors
        self.incidence2 = torch.block_diag(self.incidence, self.incidence)  # the same on [x | y] stacks
        self._damp = math.exp(-self.dt * self.damping)
        self._gravity_dv = torch.cat(
            [
                torch.zeros(ws.n_masses, dtype=dtype),
                torch.full((ws.n_masses,), -self.dt * self.gravity, dtype=dtype),
            ]
        ).to(self.device)

    @property
    def n_masses(self) -> int:
        return self.workspace.n_masses

    @property
    def n_springs(self) -> int:
        return self.workspace.n_springs

    @property
    def n_inputs(self) -> int:
        return self.n_masses + self.n_cpg

    def masks(self, bodies: np.ndarray | torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Mass and spring masks ``(B, |M|)``, ``(B, |S|)`` of genotypes ``(B, nx, ny)`` (validated)."""
        g = check_genotype("bodies", bodies, self.workspace.dims, batch=True)
        mm, sm = self.workspace.phenotype(g)
        return torch.as_tensor(mm, device=self.device), torch.as_tensor(sm, device=self.device)

    def cpg(self, t: int) -> torch.Tensor:
        """The CPG sines at step ``t``: ``(n_cpg,)``."""
        i = torch.arange(self.n_cpg, dtype=self.dtype, device=self.device)
        return torch.sin(self.omega * t * self.dt + 2 * math.pi * i / max(self.n_cpg, 1))

    def sensors(self, p: torch.Tensor, mass_w: torch.Tensor, lights: torch.Tensor, t: int) -> torch.Tensor:
        """Controller inputs ``(B, |M| + n_cpg)`` from the stacked coordinates ``p = [x | y]`` ``(B, 2|M|)``:
        irradiance of present masses (``mass_w`` 1; absent masses, weight 0, read 0), then the CPG sines."""
        m = self.n_masses
        dist = torch.sqrt((p[:, :m] - lights[:, None]) ** 2 + p[:, m:] ** 2 + self.eps**2)
        irr = mass_w / (torch.sqrt(dist + self.eps) + self.eps)
        return torch.cat([irr, self.cpg(t).expand(p.shape[0], -1)], dim=-1)

    def step(
        self,
        p: torch.Tensor,
        v: torch.Tensor,
        act: torch.Tensor,
        mass_w: torch.Tensor,
        spring_w: torch.Tensor,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """One semi-implicit Euler step on stacked coordinates and velocities ``p = [x | y]``, ``v`` ``(B, 2|M|)``,
        with actuations ``act`` ``(B, |S|)`` and float masks ``mass_w`` ``(B, |M|)``, ``spring_w`` ``(B, |S|)``
        (1 present, 0 absent)."""
        m, s = self.n_masses, self.n_springs
        d = p @ self.incidence2  # (B, 2S) = [dx | dy], endpoint 1 minus endpoint 0
        length = torch.sqrt(d[:, :s] ** 2 + d[:, s:] ** 2 + self.eps**2)
        target = self.rest_len * (1.0 + self.actuation * act)
        # tension / length, zero for absent springs; the impulse pulls endpoint 0 toward 1 when stretched
        c = (self.k * self.dt / self.mass) * (length - target) / (length + self.eps) * spring_w
        nv = self._damp * v - (c.repeat(1, 2) * d) @ self.incidence2.T + self._gravity_dv
        nx = p + self.dt * nv
        if self.contact:
            vxn, vyn, py = nv[:, :m], nv[:, m:], p[:, m:]
            hit = (nx[:, m:] < 0.0).to(p.dtype)
            free = 1.0 - hit
            down = (-vyn).clamp_min(self.eps)  # > 0 wherever hit (the mass crosses the ground moving down)
            toi = (py / down).clamp(0.0, self.dt) * hit
            fric = torch.minimum(self.friction * down, 0.95 * vxn.abs())
            vt = vxn - fric * torch.sign(vxn)
            cx = p[:, :m] + toi * vxn + (self.dt - toi) * vt
            nx = torch.cat([free * nx[:, :m] + hit * cx, free * nx[:, m:]], dim=1)
            nv = torch.cat([free * vxn + hit * vt, free * vyn], dim=1)
        w2 = mass_w.repeat(1, 2)
        return w2 * nx + (1.0 - w2) * p, w2 * nv

    def com(self, x: torch.Tensor, mass_mask: torch.Tensor) -> torch.Tensor:
        """Centre of mass ``(B, 2)`` of the present masses."""
        w = mass_mask.to(x.dtype)[..., None]
        return (x * w).sum(1) / w.sum(1)

    def energy(
        self, x: torch.Tensor, v: torch.Tensor, mass_mask: torch.Tensor, spring_mask: torch.Tensor
    ) -> torch.Tensor:
        """Kinetic plus elastic energy ``(B,)`` at rest length (actuation 0), plus gravity's potential."""
        w = mass_mask.to(x.dtype)
        kin = 0.5 * self.mass * ((v**2).sum(-1) * w).sum(-1)
        d = x[:, self.springs[:, 1]] - x[:, self.springs[:, 0]]
        ext = torch.sqrt((d**2).sum(-1)) - self.rest_len
        pot = 0.5 * self.k * (ext**2 * spring_mask.to(x.dtype)).sum(-1)
        return kin + pot + self.mass * self.gravity * (x[..., 1] * w).sum(-1)

    def momentum(self, v: torch.Tensor, mass_mask: torch.Tensor) -> torch.Tensor:
        """Total linear momentum ``(B, 2)`` of the present masses."""
        return self.mass * (v * mass_mask.to(v.dtype)[..., None]).sum(1)

    def simulate(
        self,
        bodies: np.ndarray | torch.Tensor,
        controller: Controller | None,
        lights: torch.Tensor | np.ndarray,
        steps: int,
        *,
        lift: float = 0.0,
        x0: torch.Tensor | None = None,
        v0: torch.Tensor | None = None,
        record: bool = False,
    ) -> SimResult:
        """Roll out ``steps`` steps of every body under `controller` (None: no actuation) toward its light.

        bodies : genotypes ``(B, nx, ny)``; lights : ``(B,)`` light x-positions on the ground; lift : start height
        above the rest pose; x0, v0 : override the start state ``(B, |M|, 2)``.
        """
        steps = check_int("steps", steps, low=1)
        mm, sm = self.masks(bodies)
        b = mm.shape[0]
        check_lights("lights", lights, b)
        lights = torch.as_tensor(lights, dtype=self.dtype, device=self.device)
        check_tensor("lights", lights, ndim=1, floating=True, finite=True, shape=(b,))
        check_float("lift", lift, low=0.0)
        if x0 is None:
            x = self.rest_x.expand(b, -1, -1).clone()
            if lift:
                x = x + torch.tensor([0.0, lift], dtype=self.dtype, device=self.device)
        else:
            x = check_tensor("x0", x0, ndim=3, floating=True, finite=True, shape=(b, self.n_masses, 2))
        v = torch.zeros_like(x) if v0 is None else check_tensor("v0", v0, ndim=3, shape=(b, self.n_masses, 2))
        mw, sw = mm.to(self.dtype), sm.to(self.dtype)
        m = self.n_masses
        p, vel = torch.cat([x[..., 0], x[..., 1]], 1), torch.cat([v[..., 0], v[..., 1]], 1)
        com0 = self.com(x, mm)
        xs, vs, acts = [x], [v], []
        for t in range(steps):
            if controller is None:
                act = torch.zeros(b, self.n_springs, dtype=self.dtype, device=self.device)
            else:
                act = controller(self.sensors(p, mw, lights, t))
                if act.shape != (b, self.n_springs):
                    raise ValueError(
                        f"controller must return actuations of shape ({b}, {self.n_springs}), got {tuple(act.shape)}"
                    )
            p, vel = self.step(p, vel, act, mw, sw)
            if record:
                xs.append(torch.stack([p[:, :m], p[:, m:]], -1))
                vs.append(torch.stack([vel[:, :m], vel[:, m:]], -1))
                acts.append(act)
        x, v = torch.stack([p[:, :m], p[:, m:]], -1), torch.stack([vel[:, :m], vel[:, m:]], -1)
        com1 = self.com(x, mm)
        loss = (com1[:, 0] - lights).abs() / ((com0[:, 0] - lights).abs() + self.eps)
        return SimResult(
            loss,
            com0,
            com1,
            x,
            v,
            torch.stack(xs) if record else None,
            torch.stack(vs) if record else None,
            torch.stack(acts) if record else None,
        )

    def rollout(
        self,
        bodies: np.ndarray | torch.Tensor,
        controller: Controller | None,
        lights: torch.Tensor,
        steps: int,
    ) -> torch.Tensor:
        """Loss ``d_end / d_start`` per body, ``(B,)`` (differentiable in the controller's parameters)."""
        return self.simulate(bodies, controller, lights, steps).loss
