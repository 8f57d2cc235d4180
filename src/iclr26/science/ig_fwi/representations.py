"""Velocity representations G_theta(x) for CR-FWI: v_theta(x) = v_0(x) + s G_theta(x) at the grid nodes.

Paper: "Unveiling the Mechanism of Continuous Representation Full-Waveform Inversion: A Wave Based Neural
Tangent Kernel Framework" (Chen, Luo, Wu, Meng; ICLR 2026, arXiv 2603.22362).

Every representation maps coords (N, 2) = (z, x) in [-1, 1] to G (N,), and ``render(nz, nx)`` evaluates it at the
nodes of an (nz, nx) grid. ``PixelGrid`` is conventional FWI (G(x_i) = theta_i), ``SirenRep`` and
``FourierFeatureRep`` are INR-FWI, ``MultiResGridRep`` is MPE-FWI, ``IGRep`` the paper's hybrid with the fused
feature [sqrt(alpha) h(x) ; sqrt(1 - alpha) I(x)] and a head (linear: Theta_IG = alpha Theta_h + (1 - alpha)
Theta_I + 1 exactly).

Example
-------
>>> import torch
>>> from iclr26.science.ig_fwi import IGRep
>>> rep = IGRep(alpha=0.5)
>>> rep.render(24, 48).shape
torch.Size([24, 48])
"""

from __future__ import annotations

import math

import torch
from torch import nn

from iclr26.checks import check_choice, check_float, check_int, check_probability, check_tensor

__all__ = [
    "FourierFeatureRep",
    "IGRep",
    "MultiResGridRep",
    "PixelGrid",
    "Representation",
    "SirenRep",
    "grid_coords",
]


def grid_coords(nz: int, nx: int, dtype=torch.float32) -> torch.Tensor:
    """The (nz * nx, 2) node coordinates (z, x), each in [-1, 1], row-major (z slowest)."""
    nz, nx = check_int("nz", nz, low=1), check_int("nx", nx, low=1)
    z = torch.linspace(-1.0, 1.0, nz, dtype=dtype) if nz > 1 else torch.zeros(1, dtype=dtype)
    x = torch.linspace(-1.0, 1.0, nx, dtype=dtype) if nx > 1 else torch.zeros(1, dtype=dtype)
    zz, xx = torch.meshgrid(z, x, indexing="ij")
    return torch.stack([zz.reshape(-1), xx.reshape(-1)], dim=1)


def check_coords(coords: torch.Tensor) -> torch.Tensor:
    # finite: a grid lookup would map a NaN/inf coordinate to a finite node value
    check_tensor("coords", coords, floating=True, finite=True)
    if coords.ndim != 2 or coords.shape[1] != 2:
        raise ValueError(f"coords must have shape (N, 2) with (z, x) in [-1, 1], got {tuple(coords.shape)}")
    return coords


class Representation(nn.Module):
    """Base class: ``forward(coords (N, 2)) -> G (N,)``, ``render(nz, nx) -> (nz, nx)``, optimiser groups."""

    def render(self, nz: int, nx: int) -> torch.Tensor:
        p = next(self.parameters())
        return self(grid_coords(nz, nx, p.dtype).to(p.device)).view(nz, nx)

    def param_groups(self, lr_net: float, lr_grid: float, lr_pixel: float) -> list[dict]:
        """Adam parameter groups: grid tables at ``lr_grid``, pixels at ``lr_pixel``, everything else at ``lr_net``."""
        lrs = {"net": lr_net, "grid": lr_grid, "pixel": lr_pixel}
        groups: dict[str, list] = {}
        for name, p in self.named_parameters():
            kind = "grid" if "tables" in name else ("pixel" if isinstance(self, PixelGrid) else "net")
            groups.setdefault(kind, []).append(p)
        return [{"params": ps, "lr": lrs[k], "name": k} for k, ps in groups.items()]


class PixelGrid(Representation):
    """Conventional FWI: one parameter per node, G(x_i) = theta_i (its NTK on the nodes is the identity)."""

    def __init__(self, nz: int, nx: int) -> None:
        super().__init__()
        self.nz, self.nx = check_int("nz", nz, low=1), check_int("nx", nx, low=1)
        self.theta = nn.Parameter(torch.zeros(self.nz, self.nx))

    def forward(self, coords: torch.Tensor) -> torch.Tensor:
        c = check_coords(coords)
        iz = torch.round((c[:, 0].clamp(-1, 1) + 1) * 0.5 * (self.nz - 1)).long()
        ix = torch.round((c[:, 1].clamp(-1, 1) + 1) * 0.5 * (self.nx - 1)).long()
        return self.theta[iz, ix]

    def render(self, nz: int, nx: int) -> torch.Tensor:
        if (nz, nx) != (self.nz, self.nx):
            raise ValueError(f"PixelGrid is ({self.nz}, {self.nx}), cannot render ({nz}, {nx})")
        return self.theta


class _Sine(nn.Module):
    def __init__(self, n_in: int, n_out: int, omega0: float, first: bool) -> None:
        super().__init__()
        self.omega0 = omega0
        self.linear = nn.Linear(n_in, n_out)
        bound = 1.0 / n_in if first else math.sqrt(6.0 / n_in) / omega0  # Sitzmann et al. (2020)
        nn.init.uniform_(self.linear.weight, -bound, bound)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sin(self.omega0 * self.linear(x))


class SirenRep(Representation):
    """SIREN (INR-FWI): ``layers`` sine layers sin(omega0 (W x + b)) of width ``hidden``, then a linear output."""

    def __init__(self, hidden: int = 64, layers: int = 2, omega0: float = 30.0) -> None:
        super().__init__()
        hidden, layers = check_int("hidden", hidden, low=1), check_int("layers", layers, low=1)
        omega0 = check_float("omega0", omega0, low=0.0, low_open=True)
        self.body = nn.Sequential(
            *[_Sine(2 if i == 0 else hidden, hidden, omega0, i == 0) for i in range(layers)]
        )
        self.out = nn.Linear(hidden, 1)
        bound = math.sqrt(6.0 / hidden) / omega0
        nn.init.uniform_(self.out.weight, -bound, bound)
        self.feature_dim = hidden

    def features(self, coords: torch.Tensor) -> torch.Tensor:
        """I(x), (N, hidden): the last sine layer's output."""
        return self.body(check_coords(coords))

    def forward(self, coords: torch.Tensor) -> torch.Tensor:
        return self.out(self.features(coords)).squeeze(-1)


class FourierFeatureRep(Representation):
    """Fourier-feature MLP: [cos 2 pi B x, sin 2 pi B x] with B ~ N(0, sigma^2), then a ReLU MLP."""

    def __init__(
        self, sigma: float = 1.0, n_features: int = 64, hidden: int = 64, layers: int = 2, seed: int = 0
    ):
        super().__init__()
        self.sigma = check_float("sigma", sigma, low=0.0, low_open=True)
        n_features = check_int("n_features", n_features, low=1)
        hidden = check_int("hidden", hidden, low=1)
        gen = torch.Generator().manual_seed(check_int("seed", seed, low=0))
        self.register_buffer("B", torch.randn(n_features, 2, generator=gen) * self.sigma)
        mods: list[nn.Module] = []
        width = 2 * n_features
        for _ in range(check_int("layers", layers, low=1)):
            mods += [nn.Linear(width, hidden), nn.ReLU()]
            width = hidden
        self.mlp = nn.Sequential(*mods, nn.Linear(width, 1))

    def forward(self, coords: torch.Tensor) -> torch.Tensor:
        proj = 2.0 * math.pi * check_coords(coords) @ self.B.T
        return self.mlp(torch.cat([torch.cos(proj), torch.sin(proj)], dim=-1)).squeeze(-1)


def _bilinear(table: torch.Tensor, coords: torch.Tensor) -> torch.Tensor:
    """Bilinear interpolation of ``table`` (F, R, R) at coords (N, 2) in [-1, 1] (corners on the nodes)."""
    res = table.shape[-1]
    pos = (coords.clamp(-1.0, 1.0) + 1.0) * 0.5 * (res - 1)
    i0 = pos.detach().floor().long().clamp(0, res - 2)
    t = pos - i0.to(pos.dtype)
    iz, ix, tz, tx = i0[:, 0], i0[:, 1], t[:, 0:1], t[:, 1:2]
    flat = table.reshape(table.shape[0], -1).T  # (R * R, F)

    def at(dz: int, dx: int) -> torch.Tensor:
        return flat[(iz + dz) * res + ix + dx]

    return (1 - tz) * ((1 - tx) * at(0, 0) + tx * at(0, 1)) + tz * ((1 - tx) * at(1, 0) + tx * at(1, 1))


def _head(kind: str, width: int, hidden: int) -> nn.Module:
    if kind == "linear":
        return nn.Linear(width, 1)
    return nn.Sequential(nn.Linear(width, hidden), nn.ReLU(), nn.Linear(hidden, 1))


class MultiResGridRep(Representation):
    """MPE-FWI: L learnable grids of F channels at R_l = round(R_0 b^l), bilinear features h(x), then a head."""

    def __init__(
        self,
        levels: int = 8,
        features: int = 2,
        base_res: int = 8,
        scale: float = 1.35,
        head: str = "linear",
        head_hidden: int = 64,
        init_scale: float = 1e-4,
    ) -> None:
        super().__init__()
        levels, features = check_int("levels", levels, low=1), check_int("features", features, low=1)
        base_res = check_int("base_res", base_res, low=2)
        scale = check_float("scale", scale, low=1.0)
        self.head_kind = check_choice("head", head, ("linear", "mlp"))
        init_scale = check_float("init_scale", init_scale, low=0.0)
        head_hidden = check_int("head_hidden", head_hidden, low=1)
        self.resolutions = [max(2, round(base_res * scale**level)) for level in range(levels)]
        self.tables = nn.ParameterList(
            [nn.Parameter((torch.rand(features, r, r) * 2 - 1) * init_scale) for r in self.resolutions]
        )
        self.feature_dim = levels * features
        self.head = _head(self.head_kind, self.feature_dim, head_hidden)

    def features(self, coords: torch.Tensor) -> torch.Tensor:
        """h(x), (N, L * F)."""
        c = check_coords(coords)
        return torch.cat([_bilinear(t, c) for t in self.tables], dim=-1)

    def forward(self, coords: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(coords)).squeeze(-1)


class IGRep(Representation):
    """IG-FWI: fused feature v(x) = [sqrt(alpha) h(x) ; sqrt(1 - alpha) I(x)] and a head (linear or 1-hidden MLP).

    ``forward(coords, branch="grid")`` gives w_h^T h(x) and ``branch="siren"`` w_I^T I(x) (linear head only),
    the two functions whose NTKs Theta_h and Theta_I the decomposition names.
    """

    def __init__(
        self,
        alpha: float = 0.5,
        head: str = "linear",
        levels: int = 8,
        features: int = 2,
        base_res: int = 8,
        scale: float = 1.35,
        hidden: int = 64,
        layers: int = 2,
        omega0: float = 30.0,
        head_hidden: int = 64,
    ) -> None:
        super().__init__()
        self.alpha = check_probability("alpha", alpha)
        self.head_kind = check_choice("head", head, ("linear", "mlp"))
        head_hidden = check_int("head_hidden", head_hidden, low=1)
        self.grid = MultiResGridRep(levels, features, base_res, scale, "linear")
        del self.grid.head
        self.siren = SirenRep(hidden, layers, omega0)
        del self.siren.out
        self.grid_dim, self.siren_dim = self.grid.feature_dim, self.siren.feature_dim
        self.head = _head(self.head_kind, self.grid_dim + self.siren_dim, head_hidden)
        if self.head_kind == "linear":
            nn.init.zeros_(self.head.bias)

    def fused(self, coords: torch.Tensor) -> torch.Tensor:
        """[sqrt(alpha) h(x) ; sqrt(1 - alpha) I(x)], (N, L F + D)."""
        h, i = self.grid.features(coords), self.siren.features(coords)
        return torch.cat([math.sqrt(self.alpha) * h, math.sqrt(1.0 - self.alpha) * i], dim=-1)

    def forward(self, coords: torch.Tensor, branch: str | None = None) -> torch.Tensor:
        if branch is None:
            return self.head(self.fused(coords)).squeeze(-1)
        check_choice("branch", branch, ("grid", "siren"))
        if self.head_kind != "linear":
            raise ValueError(f"branch outputs need head='linear', got head={self.head_kind!r}")
        w = self.head.weight[0]
        if branch == "grid":
            return self.grid.features(coords) @ w[: self.grid_dim]
        return self.siren.features(coords) @ w[self.grid_dim :]
