"""Jacobi-field relation between the RFM and RG-VFM losses on constant curvature (arXiv 2502.12981).

Geodesics from x with initial velocities a and b = a + w span a variation whose Jacobi field has J(0) = 0,
J'(0) = w. To first order in |w|, the endpoint distance d(exp_x(a), exp_x(b)) equals |J(1)| with, on constant
curvature K along a geodesic of length l = |a|,

    |J(1)|^2 = |w_par|^2 + |w_perp|^2 * (sin(sqrt(K) l) / (sqrt(K) l))^2      (sin -> sinh, K -> -K for K < 0)

where w_par is the part of w along a. So nearby geodesics converge on the sphere (factor < 1) and diverge in
hyperbolic space (factor > 1): (1 - t)^2 * RFM over-penalises the geodesic endpoint error on S^2 and
under-penalises it on H^2.
"""

from __future__ import annotations

import math

import torch

from iclr26.checks import check_float, check_tensor
from iclr26.generative.rg_vfm.manifolds import Manifold

__all__ = ["jacobi_endpoint_norm", "jacobi_factor", "jacobi_gap"]


def _check_batch(manifold: Manifold, **tensors: torch.Tensor) -> None:
    """Floating-point tensors of one shape (batch, *point_shape), the first (the base point) finite."""
    want: tuple[int | None, ...] = (None, *manifold.point_shape)
    for k, (name, x) in enumerate(tensors.items()):
        check_tensor(name, x, floating=True, finite=k == 0, shape=want)
        want = tuple(x.shape) if k == 0 else want


def jacobi_factor(curvature: float, length: float | torch.Tensor) -> float | torch.Tensor:
    """Normal Jacobi-field scale sin(sqrt(K) l) / (sqrt(K) l) (sinh for K < 0, 1 for K = 0)."""
    if isinstance(length, torch.Tensor):
        check_tensor("length", length, floating=True)
    else:
        length = check_float("length", length, finite=False)
    if curvature == 0:
        return length * 0 + 1.0 if isinstance(length, torch.Tensor) else 1.0
    s = math.sqrt(abs(curvature))
    z = s * length
    if isinstance(z, torch.Tensor):
        f = torch.sin(z) if curvature > 0 else torch.sinh(z)
        return torch.where(z.abs() < 1e-12, torch.ones_like(z), f / z.clamp_min(1e-300))
    if z == 0:
        return 1.0
    return (math.sin(z) if curvature > 0 else math.sinh(z)) / z


def jacobi_endpoint_norm(
    manifold: Manifold, x: torch.Tensor, a: torch.Tensor, b: torch.Tensor
) -> torch.Tensor:
    """Closed-form |J(1)| for the variation from velocity a to b at x on a constant-curvature manifold."""
    if manifold.curvature is None:
        raise ValueError(
            f"manifold {manifold.name} has no constant curvature; the closed form does not apply"
        )
    _check_batch(manifold, x=x, a=a, b=b)
    w = b - a
    aa = manifold.inner(x, a, a)
    par = (manifold.inner(x, w, a) / aa.clamp_min(torch.finfo(a.dtype).tiny)).unsqueeze(-1) * a
    perp = w - par
    f = jacobi_factor(manifold.curvature, aa.sqrt())
    return (manifold.inner(x, par, par) + manifold.inner(x, perp, perp) * f**2).sqrt()


def jacobi_gap(manifold: Manifold, x_t: torch.Tensor, mu: torch.Tensor, x1: torch.Tensor) -> torch.Tensor:
    """Per-pair d(mu, x1)^2 - |log_{x_t} mu - log_{x_t} x1|^2, i.e. |J(1)|^2 - |J'(0)|^2 (RG-VFM minus scaled RFM)."""
    _check_batch(manifold, x_t=x_t, mu=mu, x1=x1)
    w = manifold.log(x_t, mu) - manifold.log(x_t, x1)
    return manifold.dist(mu, x1).pow(2) - manifold.inner(x_t, w, w)
