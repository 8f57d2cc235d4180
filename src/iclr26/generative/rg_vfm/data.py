"""Synthetic data and sample metrics for the RG-VFM reproduction (arXiv 2502.12981).

- S^2 checkerboard: 8 x 4 cells in (longitude, latitude), "on" where (i + j) is even; points area-uniform in
  the on cells (rejection from the uniform sphere).
- H^2 checkerboard: a 4 x 4 checkerboard on the square [-h, h]^2 in the tangent space at the origin of the
  hyperboloid (h = 1.75, so radii reach 2.47), pushed onto H^2 by exp at the origin.
- Metrics: in-cell rate (fraction of points in on cells; data = 1), MMD^2 with a geodesic Gaussian kernel
  averaged over bandwidths, and the mean geodesic distance to the nearest reference point.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch

from iclr26.generative.rg_vfm.manifolds import Lorentz, Manifold, Sphere

__all__ = [
    "hyperbolic_checkerboard",
    "hyperbolic_in_cell",
    "mmd2",
    "nearest_distance",
    "pairwise_dist",
    "sphere_checkerboard",
    "sphere_in_cell",
]

N_LON, N_LAT = 8, 4
H_CELLS, H_HALF = 4, 1.75


def sphere_in_cell(x: torch.Tensor, n_lon: int = N_LON, n_lat: int = N_LAT) -> torch.Tensor:
    """Boolean (batch,): the point lies in an on cell of the sphere checkerboard."""
    u = x / x.norm(dim=-1, keepdim=True)
    lon = torch.atan2(u[:, 1], u[:, 0])  # [-pi, pi]
    lat = torch.asin(u[:, 2].clamp(-1.0, 1.0))  # [-pi/2, pi/2]
    i = ((lon + math.pi) / (2 * math.pi) * n_lon).floor().clamp(0, n_lon - 1).long()
    j = ((lat + math.pi / 2) / math.pi * n_lat).floor().clamp(0, n_lat - 1).long()
    return (i + j) % 2 == 0


def sphere_checkerboard(
    n: int, generator: torch.Generator, sphere: Sphere | None = None, n_lon: int = N_LON, n_lat: int = N_LAT
) -> torch.Tensor:
    """n area-uniform points in the on cells of the n_lon x n_lat sphere checkerboard (float32)."""
    sphere = sphere or Sphere(2)
    out: list[torch.Tensor] = []
    have = 0
    while have < n:
        x = sphere.random_base(2 * (n - have) + 64, generator)  # on the generator's device
        x = x[sphere_in_cell(x, n_lon, n_lat)]
        out.append(x)
        have += x.shape[0]
    return torch.cat(out)[:n]


def hyperbolic_in_cell(x: torch.Tensor, manifold: Lorentz) -> torch.Tensor:
    """Boolean (batch,): log at the origin lies in an on cell of the tangent-space checkerboard."""
    v = manifold.log0(x)
    inside = (v.abs() < H_HALF).all(-1)
    ij = ((v + H_HALF) / (2 * H_HALF) * H_CELLS).floor().clamp(0, H_CELLS - 1).long()
    return inside & ((ij[:, 0] + ij[:, 1]) % 2 == 0)


def hyperbolic_checkerboard(
    n: int, generator: torch.Generator, manifold: Lorentz | None = None
) -> torch.Tensor:
    """n points: uniform in the on cells of the tangent-space checkerboard at the origin, pushed by exp."""
    manifold = manifold or Lorentz(2)
    out: list[torch.Tensor] = []
    have = 0
    while have < n:
        v = (torch.rand(2 * (n - have) + 64, 2, generator=generator) * 2 - 1) * H_HALF
        ij = ((v + H_HALF) / (2 * H_HALF) * H_CELLS).floor().clamp(0, H_CELLS - 1).long()
        v = v[(ij[:, 0] + ij[:, 1]) % 2 == 0]
        out.append(v)
        have += v.shape[0]
    return manifold.exp0(torch.cat(out)[:n])


def pairwise_dist(manifold: Manifold, x: torch.Tensor, y: torch.Tensor, chunk: int = 512) -> torch.Tensor:
    """Geodesic distances (len(x), len(y)), computed in chunks of rows."""
    rows = []
    for s in range(0, x.shape[0], chunk):
        xc = x[s : s + chunk]
        rows.append(manifold.dist(xc[:, None, :], y[None, :, :]))
    return torch.cat(rows)


def mmd2(
    manifold: Manifold, x: torch.Tensor, y: torch.Tensor, bandwidths: Sequence[float] = (0.1, 0.3, 1.0)
) -> float:
    """Unbiased MMD^2 with the kernel mean_b exp(-d^2 / (2 b^2)), d the geodesic distance."""

    def k(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        d2 = pairwise_dist(manifold, a, b).double().pow(2)
        return sum(torch.exp(-d2 / (2 * bw**2)) for bw in bandwidths) / len(bandwidths)

    n, m = x.shape[0], y.shape[0]
    kxx, kyy, kxy = k(x, x), k(y, y), k(x, y)
    sxx = (kxx.sum() - kxx.diagonal().sum()) / (n * (n - 1))
    syy = (kyy.sum() - kyy.diagonal().sum()) / (m * (m - 1))
    return float(sxx + syy - 2 * kxy.mean())


def nearest_distance(manifold: Manifold, x: torch.Tensor, ref: torch.Tensor) -> float:
    """Mean over x of the geodesic distance to the nearest point of `ref`."""
    return float(pairwise_dist(manifold, x, ref).min(dim=1).values.mean())
