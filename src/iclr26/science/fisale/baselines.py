"""Point-set baselines with Fisale's interface: a small Transolver (physics attention) and a PointNet.

Paper: "Fisale: Neural Latent Arbitrary Lagrangian-Eulerian Grids for Fluid-Solid Interaction" (ICLR 2026, arXiv
2603.00792). Both treat the frame as one point cloud: the three domains are concatenated, each point carrying its
features padded to the widest domain and a domain one-hot; the outputs are sliced back per domain.
"""

from __future__ import annotations

import torch
from torch import nn

from iclr26.checks import check_choice, check_int
from iclr26.science.fisale.model import DOMAINS, Fisale

__all__ = ["PointNetBaseline", "TransolverLite"]


class _PointCloud(nn.Module):
    """Shared packing: (solid, fluid, interface) -> one cloud (B, N, dim + max c + 3) and back."""

    def __init__(self, dim: int, channels: dict[str, int]) -> None:
        super().__init__()
        self.dim = check_choice("dim", check_int("dim", dim), (2, 3))
        self.channels = {d: int(channels[d]) for d in DOMAINS}
        self.width = dim + max(self.channels.values())
        self.d_in = self.width + 3

    check_frame = Fisale.check_frame

    def pack(self, xs):
        parts = []
        for i, x in enumerate(xs):
            pad = x.new_zeros(*x.shape[:2], self.width - x.shape[-1])
            onehot = x.new_zeros(*x.shape[:2], 3)
            onehot[..., i] = 1.0
            parts.append(torch.cat([x, pad, onehot], -1))
        return torch.cat(parts, 1)

    def unpack(self, y, xs):
        out, start = [], 0
        for d, x in zip(DOMAINS, xs):
            out.append(y[:, start : start + x.shape[1], : self.dim + self.channels[d]])
            start += x.shape[1]
        return tuple(out)


class _PhysicsAttention(nn.Module):
    """Transolver's physics attention: soft slices w = softmax_S(Linear(x) / tau) per head, slice tokens
    z_s = sum_n w_ns x_n / sum_n w_ns, softmax self-attention among the S slice tokens, deslice x_n = sum_s w_ns z_s."""

    def __init__(self, dim: int, heads: int, slices: int) -> None:
        super().__init__()
        self.heads, self.dh = heads, dim // heads
        self.in_x = nn.Linear(dim, dim)
        self.in_fx = nn.Linear(dim, dim)
        self.slice = nn.Linear(self.dh, slices)
        self.temperature = nn.Parameter(torch.full((1, heads, 1, 1), 0.5))
        self.qkv = nn.Linear(self.dh, 3 * self.dh, bias=False)
        self.out = nn.Linear(dim, dim)

    def forward(self, x):
        B, N, C = x.shape
        fx = self.in_fx(x).view(B, N, self.heads, self.dh).transpose(1, 2)  # (B, H, N, dh)
        xm = self.in_x(x).view(B, N, self.heads, self.dh).transpose(1, 2)
        w = (self.slice(xm) / self.temperature.clamp_min(0.05)).softmax(-1)  # (B, H, N, S)
        z = (w.transpose(-1, -2) @ fx) / (w.sum(2)[..., None] + 1e-5)  # (B, H, S, dh)
        q, k, v = self.qkv(z).chunk(3, -1)
        z = torch.softmax(q @ k.transpose(-1, -2) / self.dh**0.5, -1) @ v
        return self.out((w @ z).transpose(1, 2).reshape(B, N, C))


class TransolverLite(_PointCloud):
    """A small Transolver (Wu et al. 2024) over all points with a domain one-hot; same forward as
    :class:`~iclr26.science.fisale.Fisale`. ``layers`` blocks of LN -> physics attention -> residual, LN -> MLP ->
    residual; ``slices`` learned physical states per head."""

    def __init__(
        self,
        dim: int = 2,
        channels: dict[str, int] | None = None,
        hidden: int = 64,
        layers: int = 3,
        heads: int = 4,
        slices: int = 16,
        mlp_ratio: int = 2,
    ) -> None:
        super().__init__(dim, channels or {"solid": 0, "fluid": 3, "interface": 1})
        hidden = check_int("hidden", hidden, low=1)
        check_int("mlp_ratio", mlp_ratio, low=1)
        if hidden % check_int("heads", heads, low=1):
            raise ValueError(f"hidden ({hidden}) must be divisible by heads ({heads})")
        self.embed = nn.Sequential(nn.Linear(self.d_in, 2 * hidden), nn.GELU(), nn.Linear(2 * hidden, hidden))
        self.blocks = nn.ModuleList()
        for _ in range(check_int("layers", layers, low=1)):
            self.blocks.append(
                nn.ModuleDict(
                    {
                        "ln1": nn.LayerNorm(hidden),
                        "att": _PhysicsAttention(hidden, heads, check_int("slices", slices, low=1)),
                        "ln2": nn.LayerNorm(hidden),
                        "mlp": nn.Sequential(
                            nn.Linear(hidden, hidden * mlp_ratio),
                            nn.GELU(),
                            nn.Linear(hidden * mlp_ratio, hidden),
                        ),
                    }
                )
            )
        self.head = nn.Sequential(nn.LayerNorm(hidden), nn.Linear(hidden, self.width))

    def forward(self, solid, fluid, interface):
        self.check_frame(solid, fluid, interface)
        xs = (solid, fluid, interface)
        h = self.embed(self.pack(xs))
        for b in self.blocks:
            h = h + b["att"](b["ln1"](h))
            h = h + b["mlp"](b["ln2"](h))
        return self.unpack(self.head(h), xs)


class PointNetBaseline(_PointCloud):
    """A PointNet-style point baseline: a per-point MLP, a max-pooled global feature of the whole frame
    concatenated back to each point, and a per-point MLP head."""

    def __init__(self, dim: int = 2, channels: dict[str, int] | None = None, hidden: int = 64) -> None:
        super().__init__(dim, channels or {"solid": 0, "fluid": 3, "interface": 1})
        hidden = check_int("hidden", hidden, low=1)
        self.local = nn.Sequential(nn.Linear(self.d_in, hidden), nn.GELU(), nn.Linear(hidden, hidden))
        self.head = nn.Sequential(
            nn.Linear(2 * hidden, hidden),
            nn.GELU(),
            nn.Linear(hidden, hidden),
            nn.GELU(),
            nn.Linear(hidden, self.width),
        )

    def forward(self, solid, fluid, interface):
        self.check_frame(solid, fluid, interface)
        xs = (solid, fluid, interface)
        h = self.local(self.pack(xs))
        g = h.amax(1, keepdim=True).expand_as(h)
        return self.unpack(self.head(torch.cat([h, g], -1)), xs)
