"""A differentiable 2-D constant-density acoustic wave solver (finite differences, pure PyTorch).

The equation, one per shot k, on a regular grid of spacing ``dx``:

    (1 / v(x)^2) d2u/dt2 - lap(u) = s_k(t) delta(x - x_k),        d_k = R u_k  (receiver sampling).

Discretisation:

* time: second-order central differences (leapfrog);
* space: the fourth-order five-point Laplacian per axis, (-1/12, 4/3, -5/2, 4/3, -1/12) / dx^2, applied as
  two banded matrix products L u = D_z u + u D_x (u = 0 outside the padded grid);
* the point source is a discrete delta, s(t_n) / dx^2 at the source node;
* absorbing boundaries: a sponge of ``pml_width`` cells on every side where the damped equation
  u_tt + gamma(x) u_t = v^2 (lap u + f) is solved, gamma = gamma_max (d / L)^2 (d the depth into the sponge,
  L its width), gamma_max = 3 v_max ln(1/R) / L; with gamma's term discretised centrally

      u^{n+1} = A u^n - B u^{n-1} + C (L u^n + f^n),
      A = 2 / (1 + gamma dt / 2),  B = (1 - gamma dt / 2) / (1 + gamma dt / 2),  C = v^2 dt^2 / (1 + gamma dt / 2),

  and the velocity extended into the sponge by replicating its edge.

Gradients: :class:`AcousticWave2D` runs the march inside a custom autograd function whose backward pass is the
adjoint-state method (a second, time-reversed march of the same scheme; L is symmetric), so a gradient costs
one extra propagation and no autograd graph. The Born (Frechet) product J dv is the tangent march
du^{n+1} = A du^n - B du^{n-1} + C L du^n + dC r^n (r^n = L u^n + f^n), available from
:meth:`AcousticWave2D.linearize`. :func:`leapfrog` is the same scheme in plain autograd: the reference the
fast path is tested against.

The scheme is stable for v_max dt / dx <= sqrt(3/8) ~ 0.612 (the fourth-order Laplacian's largest symbol is
16/3 per axis); a model that violates this is refused with an error naming ``v_max*dt/dx`` and the limit.

Example
-------
>>> import torch
>>> from iclr26.lab.pde.wave import AcousticWave2D, ricker
>>> w = ricker(10.0, 200, 0.002)
>>> op = AcousticWave2D((30, 40), dx=10.0, dt=0.002, src=[(2, 20)], rec=[(2, x) for x in range(40)],
...                     wavelet=w, pml_width=10)
>>> op(torch.full((30, 40), 2000.0)).shape
torch.Size([1, 40, 200])
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import torch
import torch.nn.functional as F

from iclr26.checks import check_float, check_int, check_tensor

__all__ = [
    "CFL_LIMIT",
    "LAPLACIAN_4TH",
    "AcousticWave2D",
    "WaveLinearization",
    "cfl_number",
    "laplacian",
    "leapfrog",
    "ricker",
    "second_difference_matrix",
    "sponge_profile",
]

LAPLACIAN_4TH = (-1.0 / 12.0, 4.0 / 3.0, -5.0 / 2.0, 4.0 / 3.0, -1.0 / 12.0)
CFL_LIMIT = math.sqrt(3.0 / 8.0)  # 2 / sqrt(2 * 16/3): leapfrog with the 4th-order Laplacian in 2-D


def cfl_number(v_max: float, dt: float, dx: float) -> float:
    """The Courant number v_max dt / dx (stable for <= ``CFL_LIMIT``)."""
    return float(v_max) * float(dt) / float(dx)


def second_difference_matrix(n: int, dx: float, dtype=torch.float64, device=None) -> torch.Tensor:
    """The (n, n) banded 4th-order second-difference matrix (u = 0 beyond both ends); symmetric."""
    check_int("n", n, low=1)
    d = torch.zeros(n, n, dtype=dtype, device=device)
    for offset, coef in zip(range(-2, 3), LAPLACIAN_4TH):
        if n - abs(offset) > 0:
            d += torch.diag(torch.full((n - abs(offset),), coef / dx**2, dtype=dtype, device=device), offset)
    return d


def _lap(u: torch.Tensor, dz: torch.Tensor, dx: torch.Tensor) -> torch.Tensor:
    return torch.matmul(dz, u) + torch.matmul(u, dx)


def laplacian(u: torch.Tensor, dx: float) -> torch.Tensor:
    """Fourth-order Laplacian of ``u`` (..., nz, nx) with u = 0 outside the grid."""
    check_tensor("u", u, ndim=(2, 3, 4), floating=True)
    nz, nx = u.shape[-2:]
    return _lap(
        u,
        second_difference_matrix(nz, dx, u.dtype, u.device),
        second_difference_matrix(nx, dx, u.dtype, u.device),
    )


def ricker(freq: float, nt: int, dt: float, delay: float | None = None, dtype=torch.float32) -> torch.Tensor:
    """Ricker wavelet of peak frequency ``freq`` (Hz), ``nt`` samples at ``dt``; ``delay`` defaults to 1.2 / freq."""
    freq = check_float("freq", freq, low=0.0, low_open=True)
    nt = check_int("nt", nt, low=1)
    dt = check_float("dt", dt, low=0.0, low_open=True)
    t0 = 1.2 / freq if delay is None else check_float("delay", delay)
    t = torch.arange(nt, dtype=torch.float64) * dt - t0
    a = (math.pi * freq * t) ** 2
    return ((1.0 - 2.0 * a) * torch.exp(-a)).to(dtype)


def sponge_profile(
    shape: tuple[int, int], width: int, dx: float, v_max: float, reflection: float = 1e-3
) -> torch.Tensor:
    """Damping gamma (1/s) on the padded grid (nz + 2 width, nx + 2 width): gamma_max (d / L)^2 in the sponge."""
    nz, nx = shape
    if width == 0:
        return torch.zeros(nz, nx, dtype=torch.float64)
    g_max = 3.0 * v_max * math.log(1.0 / reflection) / (width * dx)

    def axis(n: int) -> torch.Tensor:
        i = torch.arange(n + 2 * width, dtype=torch.float64)
        d = torch.clamp(torch.maximum(width - i, i - (n + width - 1)), min=0.0)  # cells into the sponge
        return (d / width) ** 2

    return g_max * torch.maximum(axis(nz)[:, None], axis(nx)[None, :])


def leapfrog(
    c2dt2: torch.Tensor,
    damping_dt: torch.Tensor,
    dx: float,
    nt: int,
    *,
    forcing: Callable[[int], torch.Tensor | None] | None = None,
    record: Callable[[torch.Tensor], torch.Tensor] | None = None,
    u0: torch.Tensor | None = None,
    u1: torch.Tensor | None = None,
    batch: int = 1,
) -> tuple[torch.Tensor | None, torch.Tensor, torch.Tensor]:
    """March the damped scheme in plain autograd (the reference path; see the module docstring).

    Parameters
    ----------
    c2dt2 : v^2 dt^2 on the grid, (nz, nx).
    damping_dt : gamma dt on the grid, (nz, nx).
    forcing : ``n -> f^n`` (batch, nz, nx) or None: the right-hand side at step n (added as C f^n).
    record : ``u^n -> samples`` (batch, n_samples), called before each step; stacked to (batch, n_samples, steps).
    u0, u1 : the fields at steps 0 and 1 (default zero); with u1 given the march starts at step 1.

    Returns (traces or None, u^{N-1}, u^N), N = nt the last step computed.
    """
    nz, nx = c2dt2.shape[-2:]
    zero = torch.zeros(batch, nz, nx, dtype=c2dt2.dtype, device=c2dt2.device)
    u_prev = zero if u0 is None else u0
    u = u_prev if u1 is None else u1
    if u1 is None:
        u_prev = zero
    inv = 1.0 / (1.0 + 0.5 * damping_dt)
    a, b, c = 2.0 * inv, (1.0 - 0.5 * damping_dt) * inv, c2dt2 * inv
    dz = second_difference_matrix(nz, dx, c2dt2.dtype, c2dt2.device)
    dxm = second_difference_matrix(nx, dx, c2dt2.dtype, c2dt2.device)
    samples = []
    for n in range(0 if u1 is None else 1, nt):
        if record is not None:
            samples.append(record(u))
        rhs = _lap(u, dz, dxm)
        f = forcing(n) if forcing is not None else None
        if f is not None:
            rhs = rhs + f
        u_prev, u = u, a * u - b * u_prev + c * rhs
    return (torch.stack(samples, dim=-1) if samples else None), u_prev, u


class _Setup:
    """The constants of one modelling call: the scheme's A, B, the difference matrices, source and receivers."""

    def __init__(self, a, b, dz, dx, mask, wavelet, flat):
        self.a, self.b, self.dz, self.dx = a, b, dz, dx
        self.mask, self.wavelet, self.flat = mask, wavelet, flat
        # the delta source as indices: 1/dx^2 at each shot's node (mask holds it as a field)
        self.shot_index, self.src_flat = mask.flatten(1).nonzero(as_tuple=True)
        self.source = wavelet * mask.flatten(1)[self.shot_index, self.src_flat][:, None]

    @property
    def nt(self) -> int:
        return int(self.wavelet.shape[-1])

    def forward(self, c: torch.Tensor, save: bool) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Traces (S, R, nt) and, with ``save``, the right-hand sides r^n (nt - 1, S, Z, X)."""
        n_shots = self.mask.shape[0]
        u = torch.zeros_like(self.mask)
        u_prev = torch.zeros_like(u)
        traces = torch.empty(n_shots, self.flat.numel(), self.nt, dtype=c.dtype, device=c.device)
        rs = torch.empty(self.nt - 1, *u.shape, dtype=c.dtype, device=c.device) if save else None
        w = self.source
        for n in range(self.nt):
            traces[:, :, n] = u.flatten(1)[:, self.flat]
            if n == self.nt - 1:
                break
            r = _lap(u, self.dz, self.dx)
            r.view(n_shots, -1).index_put_((self.shot_index, self.src_flat), w[:, n], accumulate=True)
            if rs is not None:
                rs[n] = r
            u_next = r.mul_(c)
            u_next.addcmul_(self.a, u).addcmul_(self.b, u_prev, value=-1.0)
            u_prev, u = u, u_next
        return traces, rs

    def born(self, c: torch.Tensor, rs: torch.Tensor, dc: torch.Tensor) -> torch.Tensor:
        """J dC: the tangent march du^{n+1} = A du^n - B du^{n-1} + C L du^n + dC r^n, recorded like u."""
        du = torch.zeros_like(rs[0])
        du_prev = torch.zeros_like(du)
        out = torch.zeros(du.shape[0], self.flat.numel(), self.nt, dtype=c.dtype, device=c.device)
        for n in range(self.nt - 1):
            nxt = _lap(du, self.dz, self.dx).mul_(c)
            nxt.addcmul_(self.a, du).addcmul_(self.b, du_prev, value=-1.0).addcmul_(dc, rs[n])
            du_prev, du = du, nxt
            out[:, :, n + 1] = du.flatten(1)[:, self.flat]
        return out

    def adjoint(self, c: torch.Tensor, rs: torch.Tensor, grad: torch.Tensor) -> torch.Tensor:
        """dL/dC from dL/d(traces): lam^m = R^T e^m + A lam^{m+1} + L(C lam^{m+1}) - B lam^{m+2}; sum lam^m r^{m-1}."""
        n_shots, nz, nx = rs.shape[1:]
        lam_next = torch.zeros(n_shots, nz, nx, dtype=c.dtype, device=c.device)  # lam^{m+1}
        lam_next2 = torch.zeros_like(lam_next)  # lam^{m+2}
        g = torch.zeros(nz, nx, dtype=c.dtype, device=c.device)
        for m in range(self.nt - 1, 0, -1):
            lam = _lap(c * lam_next, self.dz, self.dx)
            lam.addcmul_(self.a, lam_next).addcmul_(self.b, lam_next2, value=-1.0)
            lam.view(n_shots, -1).index_add_(1, self.flat, grad[:, :, m])
            g.add_((lam * rs[m - 1]).sum(0))
            lam_next2, lam_next = lam_next, lam
        return g


class _Propagate(torch.autograd.Function):
    @staticmethod
    def forward(ctx, c: torch.Tensor, setup: _Setup) -> torch.Tensor:
        traces, rs = setup.forward(c, save=c.requires_grad)
        ctx.setup = setup
        ctx.save_for_backward(c, rs if rs is not None else torch.empty(0))
        return traces

    @staticmethod
    def backward(ctx, grad: torch.Tensor):
        c, rs = ctx.saved_tensors
        return ctx.setup.adjoint(c, rs, grad.contiguous()), None


def _positions(name: str, pos, shape: tuple[int, int]) -> torch.Tensor:
    t = torch.as_tensor(pos)
    if t.is_floating_point() and bool((t != t.round()).any()):
        raise ValueError(f"{name} must hold integer grid indices (iz, ix), got {t.tolist()}")
    t = t.long()
    if t.ndim != 2 or t.shape[1] != 2 or t.shape[0] < 1:
        raise ValueError(
            f"{name} must be a list of (iz, ix) grid indices, shape (n, 2), got {tuple(t.shape)}"
        )
    nz, nx = shape
    bad = (t[:, 0] < 0) | (t[:, 0] >= nz) | (t[:, 1] < 0) | (t[:, 1] >= nx)
    if bool(bad.any()):
        raise ValueError(
            f"{name} {t[bad].tolist()} lie outside the grid (iz in [0, {nz - 1}], ix in [0, {nx - 1}])"
        )
    return t


class WaveLinearization:
    """F and its derivative J = dF/dv at one model: ``data``, ``jvp(dv)`` = J dv, ``vjp(dd)`` = J^T dd.

    Built by :meth:`AcousticWave2D.linearize`; the forward wavefield is kept, so each product is one march.
    """

    def __init__(self, op: AcousticWave2D, v: torch.Tensor) -> None:
        self.shape = op.shape
        v = v.detach()
        self._setup, c_of_v = op._prepare(v)
        self._c_fn = c_of_v
        with torch.enable_grad():
            self._v = v.clone().requires_grad_(True)
            self._c_graph = c_of_v(self._v)
        self._c = self._c_graph.detach()
        with torch.no_grad():
            self.data, self._rs = self._setup.forward(self._c, save=True)

    def jvp(self, dv: torch.Tensor) -> torch.Tensor:
        """J dv, (n_shots, n_rec, nt)."""
        check_tensor("dv", dv, shape=self.shape, floating=True)
        dc = torch.autograd.functional.jvp(self._c_fn, self._v.detach(), dv.to(self._v.dtype))[1]
        with torch.no_grad():
            return self._setup.born(self._c, self._rs, dc)

    def vjp(self, dd: torch.Tensor) -> torch.Tensor:
        """J^T dd, (nz, nx): the FWI gradient of <F(v), dd>."""
        check_tensor("dd", dd, shape=tuple(self.data.shape), floating=True)
        with torch.no_grad():
            gc = self._setup.adjoint(self._c, self._rs, dd.to(self._c.dtype).contiguous())
        (gv,) = torch.autograd.grad(self._c_graph, self._v, gc, retain_graph=True)
        return gv


class AcousticWave2D(torch.nn.Module):
    """Forward modelling F(v): velocity (nz, nx) in m/s -> traces (n_shots, n_rec, nt), differentiable.

    Parameters
    ----------
    shape : (nz, nx) of the model grid.
    dx, dt : grid spacing (m) and time step (s).
    src : one (iz, ix) source node per shot.
    rec : (iz, ix) receiver nodes, the same for every shot.
    wavelet : (nt,) source time function shared by all shots, or (n_shots, nt).
    pml_width : sponge cells on each side (0: u = 0 just outside the grid, every wave reflects).
    v_max : the sponge's design velocity (default: the largest velocity of each call's model, not
        differentiated).
    reflection : the sponge's design reflection coefficient R.
    """

    def __init__(
        self,
        shape: Sequence[int],
        dx: float,
        dt: float,
        src: Sequence[Sequence[int]],
        rec: Sequence[Sequence[int]],
        wavelet: torch.Tensor,
        pml_width: int = 20,
        v_max: float | None = None,
        reflection: float = 1e-3,
    ) -> None:
        super().__init__()
        if len(shape) != 2:
            raise ValueError(f"shape must be (nz, nx), got {tuple(shape)}")
        self.shape = (check_int("nz", shape[0], low=1), check_int("nx", shape[1], low=1))
        self.dx = check_float("dx", dx, low=0.0, low_open=True)
        self.dt = check_float("dt", dt, low=0.0, low_open=True)
        self.pml_width = check_int("pml_width", pml_width, low=0)
        self.reflection = check_float(
            "reflection", reflection, low=0.0, high=1.0, low_open=True, high_open=True
        )
        self.v_max = None if v_max is None else check_float("v_max", v_max, low=0.0, low_open=True)
        self.src = _positions("src", src, self.shape)
        self.rec = _positions("rec", rec, self.shape)
        check_tensor("wavelet", wavelet, ndim=(1, 2), floating=True, finite=True)
        n_shots = self.src.shape[0]
        if wavelet.ndim == 2 and wavelet.shape[0] != n_shots:
            raise ValueError(f"wavelet has {wavelet.shape[0]} rows for {n_shots} shots (src)")
        if wavelet.shape[-1] < 2:
            raise ValueError(f"wavelet must have nt >= 2 samples, got {wavelet.shape[-1]}")
        self.register_buffer("wavelet", wavelet.expand(n_shots, -1).clone())
        self.nt = int(wavelet.shape[-1])

    @property
    def n_shots(self) -> int:
        return int(self.src.shape[0])

    @property
    def n_rec(self) -> int:
        return int(self.rec.shape[0])

    def check_velocity(self, v: torch.Tensor) -> float:
        """Validate a model (shape, finite, > 0, CFL); returns its largest velocity."""
        check_tensor("v", v, shape=self.shape, floating=True)
        if not bool(torch.isfinite(v).all()):
            raise ValueError("v (velocity) must be finite, but holds NaN or infinite values")
        v_min = float(v.detach().min())
        if v_min <= 0:
            raise ValueError(f"v (velocity) must be > 0 everywhere, got a minimum of {v_min:g}")
        v_max = float(v.detach().max())
        courant = cfl_number(v_max, self.dt, self.dx)
        if courant > CFL_LIMIT:
            raise ValueError(
                f"CFL condition violated: v_max*dt/dx = {v_max:g}*{self.dt:g}/{self.dx:g} = {courant:.4f} "
                f"exceeds the limit {CFL_LIMIT:.4f} (sqrt(3/8)) of the 4th-order leapfrog scheme; "
                "reduce dt or refine dx"
            )
        return v_max

    def _prepare(self, v: torch.Tensor) -> tuple[_Setup, Callable[[torch.Tensor], torch.Tensor]]:
        """The call's constants and the differentiable map v -> C = v_pad^2 dt^2 / (1 + gamma dt / 2)."""
        v_max = self.check_velocity(v)
        w, (nz, nx) = self.pml_width, self.shape
        dtype, device = v.dtype, v.device
        damping_dt = (
            sponge_profile(self.shape, w, self.dx, self.v_max or v_max, self.reflection) * self.dt
        ).to(dtype=dtype, device=device)
        inv = 1.0 / (1.0 + 0.5 * damping_dt)
        zp, xp = nz + 2 * w, nx + 2 * w
        n_shots = self.n_shots
        mask = torch.zeros(n_shots, zp, xp, dtype=dtype, device=device)
        mask[torch.arange(n_shots), self.src[:, 0] + w, self.src[:, 1] + w] = 1.0 / self.dx**2
        setup = _Setup(
            2.0 * inv,
            (1.0 - 0.5 * damping_dt) * inv,
            second_difference_matrix(zp, self.dx, dtype, device),
            second_difference_matrix(xp, self.dx, dtype, device),
            mask,
            self.wavelet.to(dtype=dtype, device=device),
            ((self.rec[:, 0] + w) * xp + self.rec[:, 1] + w).to(device),
        )

        def c_of_v(x: torch.Tensor) -> torch.Tensor:
            x_pad = F.pad(x[None, None], (w, w, w, w), mode="replicate")[0, 0] if w else x
            return x_pad**2 * (self.dt**2) * inv

        return setup, c_of_v

    def forward(self, v: torch.Tensor) -> torch.Tensor:
        setup, c_of_v = self._prepare(v)
        return _Propagate.apply(c_of_v(v), setup)

    def forward_reference(self, v: torch.Tensor) -> torch.Tensor:
        """The same traces by :func:`leapfrog` in plain autograd (slow; the oracle for ``forward``)."""
        setup, c_of_v = self._prepare(v)
        c = c_of_v(v)
        inv = setup.a / 2.0
        traces, _, _ = leapfrog(
            c / inv,
            2.0 * (1.0 / inv - 1.0),
            self.dx,
            self.nt,
            forcing=lambda n: setup.mask * setup.wavelet[:, n].view(-1, 1, 1),
            record=lambda u: u.flatten(1)[:, setup.flat],
            batch=self.n_shots,
        )
        return traces

    def linearize(self, v: torch.Tensor) -> WaveLinearization:
        """F(v) with its Born operator J and adjoint J^T as matrix-free products."""
        return WaveLinearization(self, v)
