"""Manifolds with closed-form exp / log / geodesic distance for RG-VFM (arXiv 2502.12981, OpenReview NlnDselrtl).

Every manifold exposes ``exp(x, v)``, ``log(x, y)``, ``dist(x, y)``, ``proju(x, u)``, ``projx(x)``,
``inner(x, u, v)``, ``norm(x, u)``, ``check_point(x, name)`` and ``random_base(n, generator, dtype, device)``
(the base class draws the normals; a manifold maps them with ``from_noise``).
Points carry the batch in the leading dimension and ``point_shape`` after it; every map runs on the device of
its inputs.

- :class:`Sphere` of radius R (curvature 1/R^2): a wrapper over ``geoopt.Sphere`` for exp and the tangent
  projection. The distance and log are computed here with ``atan2(|y - <x,y> x|, <x,y>)`` because geoopt clamps
  the cosine at 1 - 1e-7 (float64), which makes distances below ~4.5e-4 and the log of close points wrong.
- :class:`Lorentz` hyperboloid {x : <x,x>_L = -k} (curvature -1/k): a wrapper over ``geoopt.Lorentz`` for the
  tangent projection and the retraction. exp, log and dist are written here in forms that stay exact for close
  points: geoopt clamps the squared tangent norm at 1e-8 and arcosh's argument at 1 + 1e-15, which puts floors of
  1e-4 on tangent norms and 3e-8 on distances (the oracle-sampler test needs 1e-8).
- :class:`SO3`: rotation matrices with the bi-invariant metric <U, V> = tr(U^T V) / 2, so that d(R, S) is the
  rotation angle of R^T S; exp / log by Rodrigues' formula (written here, geoopt has no SO(3)).
- :class:`Euclidean`: flat R^n, where exp_x(v) = x + v and log_x(y) = y - x (the limit where RG-VFM is VFM).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod

import geoopt
import torch

from iclr26.checks import check_float, check_int

__all__ = ["SO3", "Euclidean", "Lorentz", "Manifold", "Sphere"]

POINT_TOL = 1e-4


class Manifold(ABC):
    """A Riemannian manifold with closed-form maps; points are tensors of shape ``(batch, *point_shape)``."""

    name: str = "manifold"
    point_shape: tuple[int, ...] = ()
    curvature: float | None = None  # constant sectional curvature, None if not constant

    @property
    def ambient_dim(self) -> int:
        """Number of ambient coordinates of one point."""
        return math.prod(self.point_shape)

    @abstractmethod
    def exp(self, x: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        """Exponential map exp_x(v) for a tangent vector v at x."""

    @abstractmethod
    def log(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        """Logarithmic map log_x(y), the tangent vector at x pointing to y with length d(x, y)."""

    @abstractmethod
    def dist(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        """Geodesic distance, shape ``(batch,)``."""

    @abstractmethod
    def proju(self, x: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
        """Orthogonal projection of an ambient vector u onto the tangent space at x."""

    @abstractmethod
    def projx(self, x: torch.Tensor) -> torch.Tensor:
        """A retraction of an ambient point onto the manifold (used for ambient baselines)."""

    @abstractmethod
    def inner(self, x: torch.Tensor, u: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        """Riemannian inner product of tangent vectors at x, shape ``(batch,)``."""

    @abstractmethod
    def point_error(self, x: torch.Tensor) -> torch.Tensor:
        """Per-point constraint violation (0 on the manifold), shape ``(batch,)``."""

    def random_base(
        self,
        n: int,
        generator: torch.Generator | None = None,
        dtype: torch.dtype = torch.float32,
        device: torch.device | str | None = None,
    ) -> torch.Tensor:
        """n samples of the base distribution p_0 of this manifold, on `device` (default: the generator's, else
        the CPU). The normal draws (``noise_dim`` per point) are made on the generator's device and moved, so a
        CPU generator gives the same points on every device."""
        return self.from_noise(_randn((n, self.noise_dim), generator, dtype, device))

    #: standard normal draws per point that :meth:`from_noise` maps to one sample of the base distribution
    noise_dim: int = 0

    @abstractmethod
    def from_noise(self, z: torch.Tensor) -> torch.Tensor:
        """The base-distribution samples for standard normal draws `z` of shape ``(n, noise_dim)``."""

    def norm(self, x: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
        """Riemannian norm of a tangent vector, shape ``(batch,)``."""
        return self.inner(x, u, u).clamp_min(0.0).sqrt()

    def check_point(self, x: torch.Tensor, name: str = "x") -> None:
        """Raise ValueError naming the manifold when `x` has the wrong shape or lies off the manifold."""
        if not isinstance(x, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor of points on {self.name}, got {type(x).__name__}")
        if not x.is_floating_point():
            raise TypeError(f"{name} must be a floating-point tensor of points on {self.name}, got {x.dtype}")
        if x.dim() != 1 + len(self.point_shape) or tuple(x.shape[1:]) != self.point_shape:
            raise ValueError(
                f"{name} must have shape (batch, {', '.join(map(str, self.point_shape))}) for {self.name}, "
                f"got {tuple(x.shape)}"
            )
        err = float(self.point_error(x.detach()).max()) if x.shape[0] else 0.0
        if not err <= POINT_TOL:
            raise ValueError(
                f"{name} has points off the manifold {self.name}: error {err:.3g} > {POINT_TOL:g}"
            )

    def geodesic(self, x0: torch.Tensor, x1: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        """The geodesic interpolant x_t = exp_{x0}(t log_{x0}(x1)), t of shape ``(batch,)``."""
        return self.exp(x0, bcast(t, x0) * self.log(x0, x1))

    def __repr__(self) -> str:
        return self.name


def _randn(
    shape: tuple[int, ...],
    generator: torch.Generator | None,
    dtype: torch.dtype,
    device: torch.device | str | None,
) -> torch.Tensor:
    """``torch.randn(shape)`` drawn on the generator's device (the CPU without one), then moved to `device`."""
    where = generator.device if generator is not None else torch.device("cpu")
    z = torch.randn(shape, generator=generator, dtype=dtype, device=where)
    return z if device is None else z.to(device)


def bcast(t: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    """Reshape a per-sample scalar of shape (batch,) to broadcast against `like`."""
    return t.reshape(t.shape + (1,) * (like.dim() - 1))


class Sphere(Manifold):
    """The sphere S^dim of radius `radius` embedded in R^(dim+1); base distribution: uniform.

    Example
    -------
    >>> import torch
    >>> s = Sphere(2)
    >>> x = torch.tensor([[0.0, 0.0, 1.0]])
    >>> v = torch.tensor([[torch.pi / 2, 0.0, 0.0]])
    >>> s.exp(x, v).round(decimals=6).abs().tolist()
    [[1.0, 0.0, 0.0]]
    """

    def __init__(self, dim: int = 2, radius: float = 1.0) -> None:
        check_int("dim", dim, low=1)
        check_float("radius", radius, low=0.0, low_open=True)
        self.dim, self.radius = dim, float(radius)
        self.point_shape = (dim + 1,)
        self.noise_dim = dim + 1
        self.curvature = 1.0 / self.radius**2
        self.name = f"Sphere(dim={dim}, radius={self.radius:g})"
        self._unit = geoopt.Sphere()

    def exp(self, x: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        r = self.radius
        return r * self._unit.expmap(x / r, v / r)

    def dist(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        r = self.radius
        xu, yu = x / r, y / r
        c = (xu * yu).sum(-1, keepdim=True)
        s = (yu - c * xu).norm(dim=-1)  # = sin(angle), stable for close and far points
        return r * torch.atan2(s, c.squeeze(-1))

    def log(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        u = self.proju(x, y - x)
        nu = u.norm(dim=-1, keepdim=True)
        return self.dist(x, y).unsqueeze(-1) * u / nu.clamp_min(torch.finfo(u.dtype).tiny)

    def proju(self, x: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
        return self._unit.proju(x / self.radius, u)

    def projx(self, x: torch.Tensor) -> torch.Tensor:
        return self.radius * x / x.norm(dim=-1, keepdim=True).clamp_min(torch.finfo(x.dtype).tiny)

    def inner(self, x: torch.Tensor, u: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return (u * v).sum(-1)

    def point_error(self, x: torch.Tensor) -> torch.Tensor:
        return (x.norm(dim=-1) / self.radius - 1.0).abs()

    def from_noise(self, z: torch.Tensor) -> torch.Tensor:
        return self.projx(z)


class Lorentz(Manifold):
    """Hyperbolic space H^dim as the hyperboloid <x,x>_L = -k in R^(1+dim) (curvature -1/k).

    Base distribution: the wrapped normal at the origin, exp_o(v) with spatial v ~ N(0, base_std^2 I).
    """

    def __init__(self, dim: int = 2, k: float = 1.0, base_std: float = 1.0) -> None:
        check_int("dim", dim, low=1)
        check_float("k", k, low=0.0, low_open=True)  # curvature -1/k
        check_float("base_std", base_std, low=0.0, low_open=True)
        self.dim, self.k, self.base_std = dim, float(k), float(base_std)
        self.point_shape = (dim + 1,)
        self.noise_dim = dim
        self.curvature = -1.0 / self.k
        self.name = f"Lorentz(dim={dim}, k={self.k:g})"
        # a float64 0-dim k keeps the dtype of float32 and float64 points alike
        self._geo = geoopt.Lorentz(k=torch.tensor(self.k, dtype=torch.float64))

    def _mnorm(self, u: torch.Tensor) -> torch.Tensor:
        """Minkowski norm of a spacelike vector, (batch,); the clamp keeps the gradient at 0 finite."""
        return self.inner(u, u, u).clamp_min(torch.finfo(u.dtype).tiny).sqrt()

    def exp(self, x: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        sk = math.sqrt(self.k)
        z = (self._mnorm(v) / sk).unsqueeze(-1)
        sinhc = torch.where(z < 1e-4, 1 + z * z / 6, torch.sinh(z) / z.clamp_min(1e-4))
        return self.projx(torch.cosh(z) * x + sinhc * v)

    def dist(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        # <x - y, x - y>_L = 4k sinh^2(d / (2 sqrt k)): stable for close points, unlike arcosh(-<x,y>_L / k)
        sk = math.sqrt(self.k)
        return 2 * sk * torch.asinh(self._mnorm(x - y) / (2 * sk))

    def log(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        # log_x(y) = d n / |n|_L with n = proju(x, y) and |n|_L = sqrt(k) sinh(d / sqrt(k)) exactly
        sk = math.sqrt(self.k)
        z = (self.dist(x, y) / sk).unsqueeze(-1)
        scale = torch.where(z < 1e-4, 1 - z * z / 6, z / torch.sinh(z).clamp_min(1e-30))
        return scale * self.proju(x, y)

    def proju(self, x: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
        return self._geo.proju(x, u)

    def projx(self, x: torch.Tensor) -> torch.Tensor:
        return self._geo.projx(x)

    def inner(self, x: torch.Tensor, u: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return (u * v)[..., 1:].sum(-1) - u[..., 0] * v[..., 0]

    def point_error(self, x: torch.Tensor) -> torch.Tensor:
        ll = self.inner(x, x, x)
        return (ll + self.k).abs() / (self.k + x[..., 0] ** 2)

    def origin(
        self, n: int = 1, dtype: torch.dtype = torch.float32, device: torch.device | str | None = None
    ) -> torch.Tensor:
        """The origin (sqrt(k), 0, ..., 0) repeated n times."""
        o = torch.zeros(n, self.dim + 1, dtype=dtype, device=device)
        o[:, 0] = math.sqrt(self.k)
        return o

    def exp0(self, v_spatial: torch.Tensor) -> torch.Tensor:
        """exp at the origin of the tangent vector (0, v_spatial)."""
        o = self.origin(v_spatial.shape[0], v_spatial.dtype, v_spatial.device)
        return self.exp(o, torch.cat([torch.zeros_like(v_spatial[:, :1]), v_spatial], dim=1))

    def log0(self, y: torch.Tensor) -> torch.Tensor:
        """Spatial part of log at the origin."""
        return self.log(self.origin(y.shape[0], y.dtype, y.device), y)[:, 1:]

    def transp0(self, x: torch.Tensor, v_spatial: torch.Tensor) -> torch.Tensor:
        """Parallel transport of the tangent vector (0, v_spatial) at the origin o to x along the geodesic:
        v + <x, v>_L / (k - <o, x>_L) (o + x); an isometry onto the tangent space at x."""
        v = torch.cat([torch.zeros_like(v_spatial[:, :1]), v_spatial], dim=1)
        o = self.origin(x.shape[0], x.dtype, x.device)
        coef = self.inner(x, x, v) / (self.k + math.sqrt(self.k) * x[:, 0])
        return v + coef[:, None] * (o + x)

    def to_poincare(self, x: torch.Tensor) -> torch.Tensor:
        """Map hyperboloid points to the Poincare ball of radius sqrt(k)."""
        return x[..., 1:] / (x[..., :1] + math.sqrt(self.k))

    def from_noise(self, z: torch.Tensor) -> torch.Tensor:
        return self.exp0(self.base_std * z)


def _hat(w: torch.Tensor) -> torch.Tensor:
    """(batch, 3) -> skew-symmetric (batch, 3, 3)."""
    z = torch.zeros_like(w[:, 0])
    return torch.stack(
        [
            torch.stack([z, -w[:, 2], w[:, 1]], -1),
            torch.stack([w[:, 2], z, -w[:, 0]], -1),
            torch.stack([-w[:, 1], w[:, 0], z], -1),
        ],
        -2,
    )


def _vee(a: torch.Tensor) -> torch.Tensor:
    """Skew part of (batch, 3, 3) -> (batch, 3)."""
    return 0.5 * torch.stack([a[:, 2, 1] - a[:, 1, 2], a[:, 0, 2] - a[:, 2, 0], a[:, 1, 0] - a[:, 0, 1]], -1)


def so3_expm(w: torch.Tensor) -> torch.Tensor:
    """Rodrigues: exp([w]_x) = I + sin(th)/th [w]_x + (1 - cos th)/th^2 [w]_x^2 for (batch, 3) axis-angles."""
    th2 = (w * w).sum(-1)
    th = th2.clamp_min(torch.finfo(w.dtype).tiny).sqrt()
    small = th2 < 1e-8
    a = torch.where(small, 1 - th2 / 6, torch.sin(th) / th)
    b = torch.where(small, 0.5 - th2 / 24, (1 - torch.cos(th)) / th.pow(2))
    k = _hat(w)
    eye = torch.eye(3, dtype=w.dtype, device=w.device).expand_as(k)
    return eye + a[:, None, None] * k + b[:, None, None] * (k @ k)


def so3_logm(r: torch.Tensor) -> torch.Tensor:
    """Axis-angle (batch, 3) of rotation matrices, angle in [0, pi); undefined at angle pi."""
    s = _vee(r)  # = sin(th) * axis
    c = ((r.diagonal(dim1=-2, dim2=-1).sum(-1) - 1) / 2).clamp(-1.0, 1.0)
    sn = s.norm(dim=-1)
    th = torch.atan2(sn, c)
    small = sn < 1e-6
    f = torch.where(small, 1 + th.pow(2) / 6, th / sn.clamp_min(torch.finfo(r.dtype).tiny))
    return f[:, None] * s


class SO3(Manifold):
    """Rotation group SO(3) as (batch, 3, 3) matrices, metric tr(U^T V)/2 (distance = rotation angle).

    Tangent vectors at R are ambient matrices R [w]_x; base distribution: uniform (Haar) rotations.
    """

    def __init__(self) -> None:
        self.point_shape = (3, 3)
        self.noise_dim = 4
        self.curvature = None
        self.name = "SO3"

    def exp(self, x: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return x @ so3_expm(_vee(x.transpose(-1, -2) @ v))

    def log(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return x @ _hat(so3_logm(x.transpose(-1, -2) @ y))

    def dist(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return so3_logm(x.transpose(-1, -2) @ y).norm(dim=-1)

    def proju(self, x: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
        a = x.transpose(-1, -2) @ u
        return x @ (0.5 * (a - a.transpose(-1, -2)))

    def projx(self, x: torch.Tensor) -> torch.Tensor:
        u, _, vh = torch.linalg.svd(x)
        d = torch.sign(torch.linalg.det(u @ vh))
        u = torch.cat([u[..., :2], u[..., 2:] * d[:, None, None]], -1)
        return u @ vh

    def inner(self, x: torch.Tensor, u: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return 0.5 * (u * v).sum((-1, -2))

    def point_error(self, x: torch.Tensor) -> torch.Tensor:
        eye = torch.eye(3, dtype=x.dtype, device=x.device)
        orth = (x.transpose(-1, -2) @ x - eye).flatten(1).abs().amax(-1)
        return orth + (torch.linalg.det(x) - 1).abs()

    def from_noise(self, z: torch.Tensor) -> torch.Tensor:
        # a uniform unit quaternion (a normalised 4-d normal) -> its rotation matrix: Haar on SO(3)
        w, x, y, z = (z / z.norm(dim=-1, keepdim=True)).unbind(-1)
        rows = [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
        return torch.stack([torch.stack(r, -1) for r in rows], -2)


class Euclidean(Manifold):
    """Flat R^dim; base distribution: standard normal."""

    def __init__(self, dim: int = 2) -> None:
        check_int("dim", dim, low=1)
        self.dim = dim
        self.point_shape = (dim,)
        self.noise_dim = dim
        self.curvature = 0.0
        self.name = f"Euclidean(dim={dim})"

    def exp(self, x: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return x + v

    def log(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return y - x

    def dist(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return (y - x).norm(dim=-1)

    def proju(self, x: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
        return u

    def projx(self, x: torch.Tensor) -> torch.Tensor:
        return x

    def inner(self, x: torch.Tensor, u: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return (u * v).sum(-1)

    def point_error(self, x: torch.Tensor) -> torch.Tensor:
        return torch.where(torch.isfinite(x).all(-1), 0.0, float("inf")).to(x.dtype)

    def from_noise(self, z: torch.Tensor) -> torch.Tensor:
        return z
