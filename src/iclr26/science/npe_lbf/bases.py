"""Latent basis functions T(z) of the LBF family: each maps z of shape (N, d_z) to (N, K).

Every basis is an ``nn.Module`` with the attributes ``d_z`` (latent dimension), ``n_basis`` (K), ``low`` and
``high`` (the support box, shape (d_z,)). Tensor-product bases also expose ``factors(z)`` so that the LBF family
can evaluate them separably on a grid (``B1 @ eta @ B2.T`` per sample) instead of materialising all K columns.
Constant functions are excluded (they cancel against the normaliser and would leave eta unidentified), except in
B-spline bases, whose partition of unity makes one direction of eta unidentified; the second-difference penalty
and the zero initialisation keep that direction harmless.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor, nn

from iclr26.checks import check_int, check_tensor

__all__ = [
    "BSplineBasis1D",
    "LegendreBasis",
    "MLPBasis",
    "TensorBSpline2D",
    "cardinal_bspline",
    "check_support",
    "legendre_polynomials",
]


def check_support(low: float | Sequence[float] | Tensor, high: float | Sequence[float] | Tensor, d_z: int):
    """Validate a support box and return it as two float64 tensors of shape (d_z,)."""
    for name, value in (("low", low), ("high", high)):
        if isinstance(value, bool):
            raise TypeError(f"support {name} must be a number (one per latent dim), got the bool {value!r}")
    try:
        lo = torch.as_tensor(low, dtype=torch.float64).reshape(-1)
        hi = torch.as_tensor(high, dtype=torch.float64).reshape(-1)
    except (TypeError, ValueError, RuntimeError):
        raise ValueError(
            f"support low/high must be numbers (one per latent dim), got {low!r}, {high!r}"
        ) from None
    if lo.numel() == 1 and d_z > 1:
        lo = lo.expand(d_z).clone()
    if hi.numel() == 1 and d_z > 1:
        hi = hi.expand(d_z).clone()
    if lo.numel() != d_z or hi.numel() != d_z:
        raise ValueError(
            f"support low/high must have {d_z} entries (one per latent dim), got {lo.numel()}, {hi.numel()}"
        )
    if not (torch.isfinite(lo).all() and torch.isfinite(hi).all()):
        raise ValueError(f"support must be finite, got low={lo.tolist()} high={hi.tolist()}")
    if not bool((hi > lo).all()):
        raise ValueError(
            f"support is empty or inverted: need high > low in every dim, got low={lo.tolist()} high={hi.tolist()}"
        )
    return lo, hi


def cardinal_bspline(u: Tensor, degree: int) -> Tensor:
    """Cardinal B-spline of `degree` on the knots 0, 1, ..., degree + 1, evaluated at `u` (Cox-de Boor)."""
    n = [((u >= j) & (u < j + 1)).to(u.dtype) for j in range(degree + 1)]
    for p in range(1, degree + 1):
        n = [((u - j) * n[j] + (j + p + 1 - u) * n[j + 1]) / p for j in range(degree + 1 - p)]
    return n[0]


def _check_k(n_basis: int, degree: int, name: str = "n_basis") -> None:
    check_int("degree", degree, low=0)
    check_int(name, n_basis)
    if n_basis < degree + 1:
        raise ValueError(
            f"{name} (K = {n_basis}) is smaller than spline degree + 1 = {degree + 1}; a degree-{degree} B-spline "
            f"basis needs at least {degree + 1} functions"
        )


def _check_z(z: Tensor, d_z: int) -> None:
    if not isinstance(z, Tensor):
        raise TypeError(f"z must be a torch.Tensor, got {type(z).__name__}")
    if z.dim() != 2 or z.shape[1] != d_z:
        raise ValueError(f"z must have shape (N, {d_z}), got {tuple(z.shape)}")
    _check_values("z", z)


def _check_values(name: str, z: Tensor) -> None:
    """Latent points must be floating and hold no NaN (+-inf is allowed: a point outside the support)."""
    check_tensor(name, z, floating=True)
    if bool(torch.isnan(z).any()):
        raise ValueError(f"{name} must not hold NaN")


def _check_dz(d_z: int) -> int:
    why = "grid quadrature needs 1 or 2 dims; project the latent onto <= 2 dims of interest"
    return check_int(f"d_z ({why})", d_z, 1, 2)


class BSplineBasis1D(nn.Module):
    """K uniform-knot B-splines of `degree` (cubic by default) covering [low, high]; a partition of unity there.

    Knots are spaced h = (high - low) / (K - degree) and extend `degree` spacings beyond both ends, so every
    point of the support is covered by degree + 1 functions.
    """

    def __init__(self, n_basis: int = 64, low: float = 0.0, high: float = 1.0, degree: int = 3) -> None:
        super().__init__()
        _check_k(n_basis, degree)
        lo, hi = check_support(low, high, 1)
        self.d_z, self.n_basis, self.degree = 1, n_basis, degree
        self.register_buffer("low", lo)
        self.register_buffer("high", hi)
        self.spacing = float((hi - lo).item()) / (n_basis - degree)
        starts = lo.item() + (torch.arange(n_basis, dtype=torch.float64) - degree) * self.spacing
        self.register_buffer("starts", starts)

    def evaluate(self, z1: Tensor) -> Tensor:
        """Values of the K functions at the 1-D points `z1` (N,) -> (N, K)."""
        check_tensor("z1", z1, ndim=1)
        _check_values("z1", z1)
        u = (z1.unsqueeze(-1) - self.starts.to(z1.dtype)) / self.spacing
        return cardinal_bspline(u, self.degree)

    def forward(self, z: Tensor) -> Tensor:
        _check_z(z, 1)
        return self.evaluate(z[:, 0])

    def factors(self, z: Tensor) -> tuple[Tensor]:
        """Per-dimension factor matrices (one for a 1-D basis)."""
        _check_z(z, 1)
        return (self.evaluate(z[:, 0]),)


class TensorBSpline2D(nn.Module):
    """Tensor-product cubic B-splines on a 2-D box: T_{ij}(z) = B_i(z_1) C_j(z_2), K = k1 * k2 (row-major)."""

    def __init__(
        self,
        n_basis: int | tuple[int, int] = 24,
        low: Sequence[float] | Tensor = (0.0, 0.0),
        high: Sequence[float] | Tensor = (1.0, 1.0),
        degree: int = 3,
    ) -> None:
        super().__init__()
        if isinstance(n_basis, (str, bytes)) or not (
            isinstance(n_basis, int) or (isinstance(n_basis, (tuple, list)) and len(n_basis) == 2)
        ):
            raise ValueError(f"n_basis must be an int or a pair (k1, k2) of ints, got {n_basis!r}")
        k1, k2 = (n_basis, n_basis) if isinstance(n_basis, int) else tuple(n_basis)
        lo, hi = check_support(low, high, 2)
        self.b1 = BSplineBasis1D(k1, float(lo[0]), float(hi[0]), degree)
        self.b2 = BSplineBasis1D(k2, float(lo[1]), float(hi[1]), degree)
        self.d_z, self.shape, self.n_basis, self.degree = 2, (k1, k2), k1 * k2, degree
        self.register_buffer("low", lo)
        self.register_buffer("high", hi)

    def factors(self, z: Tensor) -> tuple[Tensor, Tensor]:
        """(B1 (N, k1), B2 (N, k2)) such that T(z)[n, i * k2 + j] = B1[n, i] * B2[n, j]."""
        _check_z(z, 2)
        return self.b1.evaluate(z[:, 0]), self.b2.evaluate(z[:, 1])

    def forward(self, z: Tensor) -> Tensor:
        f1, f2 = self.factors(z)
        return (f1.unsqueeze(-1) * f2.unsqueeze(-2)).reshape(z.shape[0], -1)


def legendre_polynomials(u: Tensor, degree: int) -> Tensor:
    """P_0..P_degree at u in [-1, 1] (Bonnet's recursion) -> (..., degree + 1)."""
    p = [torch.ones_like(u), u]
    for n in range(1, degree):
        p.append(((2 * n + 1) * u * p[n] - n * p[n - 1]) / (n + 1))
    return torch.stack(p[: degree + 1], dim=-1)


class LegendreBasis(nn.Module):
    """Legendre polynomials of the support-rescaled latent, without the constant.

    d_z = 1: P_1..P_degree (K = degree). d_z = 2: products P_i(u_1) P_j(u_2) with 1 <= i + j <= degree.
    """

    def __init__(
        self,
        degree: int = 8,
        low: float | Sequence[float] | Tensor = -1.0,
        high: float | Sequence[float] | Tensor = 1.0,
        d_z: int = 1,
    ) -> None:
        super().__init__()
        _check_dz(d_z)
        check_int("degree", degree, low=1)
        lo, hi = check_support(low, high, d_z)
        self.d_z, self.degree = d_z, degree
        self.register_buffer("low", lo)
        self.register_buffer("high", hi)
        pairs = [(i, j) for i in range(degree + 1) for j in range(degree + 1) if 1 <= i + j <= degree]
        self.pairs = pairs if d_z == 2 else [(i, 0) for i in range(1, degree + 1)]
        self.n_basis = len(self.pairs)

    def forward(self, z: Tensor) -> Tensor:
        _check_z(z, self.d_z)
        u = 2 * (z - self.low.to(z.dtype)) / (self.high - self.low).to(z.dtype) - 1
        p1 = legendre_polynomials(u[:, 0], self.degree)
        if self.d_z == 1:
            return p1[:, 1:]
        p2 = legendre_polynomials(u[:, 1], self.degree)
        i = torch.tensor([a for a, _ in self.pairs])
        j = torch.tensor([b for _, b in self.pairs])
        return p1[:, i] * p2[:, j]


class MLPBasis(nn.Module):
    """Adapted basis T_psi(z) = MLP_psi(u(z)) in R^K, u the support rescaled to [-1, 1]; learned jointly.

    Smooth (tanh) hidden layers; the output layer is linear. Shared across all x.
    """

    def __init__(
        self,
        d_z: int = 1,
        n_basis: int = 32,
        low: float | Sequence[float] | Tensor = -1.0,
        high: float | Sequence[float] | Tensor = 1.0,
        hidden: int = 64,
        n_layers: int = 2,
    ) -> None:
        super().__init__()
        _check_dz(d_z)
        check_int("n_basis", n_basis, low=1)
        check_int("hidden", hidden, low=1)
        check_int("n_layers", n_layers, low=1)
        lo, hi = check_support(low, high, d_z)
        self.d_z, self.n_basis = d_z, n_basis
        self.register_buffer("low", lo)
        self.register_buffer("high", hi)
        layers: list[nn.Module] = []
        width = d_z
        for _ in range(n_layers):
            layers += [nn.Linear(width, hidden), nn.Tanh()]
            width = hidden
        layers.append(nn.Linear(width, n_basis))
        self.net = nn.Sequential(*layers)

    def forward(self, z: Tensor) -> Tensor:
        _check_z(z, self.d_z)
        u = 2 * (z - self.low.to(z.dtype)) / (self.high - self.low).to(z.dtype) - 1
        dtype = self.net[0].weight.dtype
        return self.net(u.to(dtype)).to(z.dtype)
