"""Time-conditioned MLPs for RG-VFM (arXiv 2502.12981): an endpoint head and a velocity head on one body.

Both nets read the ambient coordinates of x_t (flattened) and a sinusoidal embedding of t, pass them through
``depth`` SiLU layers of width ``hidden`` and return an ambient vector ``raw(x, t)``. The endpoint net turns it
into a point on the manifold, the velocity net into a tangent vector, so that RG-VFM and RFM share architecture
and initialisation (same ``torch.manual_seed`` -> same weights).

``origin_chart=True`` (hyperbolic space only): the body reads the chart coordinates log_o(x_t) at the origin o
instead of the ambient hyperboloid coordinates (which grow like cosh of the radius), and its output is a tangent
vector at o, parallel-transported to x_t. The ambient head's tangent projection proju(x, u) = u + <x, u>_L x / k
otherwise scales the output by up to |x|^2 far from the origin (tangent norms of 100+ from O(1) outputs).
"""

from __future__ import annotations

import math

import torch
from torch import nn

from iclr26.checks import check_choice, check_int, check_tensor
from iclr26.generative.rg_vfm.manifolds import Lorentz, Manifold

__all__ = ["EndpointMLP", "VelocityMLP", "time_embedding"]


def time_embedding(t: torch.Tensor, dim: int) -> torch.Tensor:
    """Sinusoidal features [sin(f_i t), cos(f_i t)] with frequencies f_i geometric in [1, 100], (batch, dim)."""
    half = dim // 2
    freqs = torch.exp(torch.linspace(0.0, math.log(100.0), half, dtype=t.dtype, device=t.device))
    ang = t[:, None] * freqs[None, :]
    return torch.cat([torch.sin(ang), torch.cos(ang)], dim=-1)


class _TimeMLP(nn.Module):
    """Shared body: (batch, *point_shape) x (batch,) -> ambient vector (batch, *point_shape)."""

    def __init__(
        self, manifold: Manifold, hidden: int, depth: int, time_dim: int, origin_chart: bool = False
    ) -> None:
        super().__init__()
        if not isinstance(manifold, Manifold):
            raise TypeError(f"manifold must be a Manifold, got {type(manifold).__name__}")
        for name, val in (("hidden", hidden), ("depth", depth), ("time_dim", time_dim)):
            check_int(name, val, low=1)
        if time_dim % 2:
            raise ValueError(f"time_dim must be even, got {time_dim}")
        if origin_chart and not isinstance(manifold, Lorentz):
            raise ValueError(f"origin_chart needs a Lorentz manifold, got {manifold.name}")
        self.manifold, self.time_dim, self.origin_chart = manifold, time_dim, bool(origin_chart)
        d = manifold.dim if origin_chart else manifold.ambient_dim  # type: ignore[attr-defined]
        layers: list[nn.Module] = []
        width = d + time_dim
        for _ in range(depth):
            layers += [nn.Linear(width, hidden), nn.SiLU()]
            width = hidden
        layers.append(nn.Linear(width, d))
        self.net = nn.Sequential(*layers)

    def raw(self, x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        """Unconstrained ambient output (with ``origin_chart``: a tangent vector at x, see the class notes)."""
        shape = self.manifold.point_shape
        check_tensor("x", x, ndim=1 + len(shape), floating=True, shape=(None, *shape))
        check_tensor("t", t, floating=True)
        if t.dim() != 1 or t.shape[0] != x.shape[0]:
            raise ValueError(f"t must have shape (batch,) = ({x.shape[0]},), got {tuple(t.shape)}")
        temb = time_embedding(t.to(x.dtype), self.time_dim)
        if self.origin_chart:
            m: Lorentz = self.manifold  # type: ignore[assignment]
            out = self.net(torch.cat([m.log0(x), temb], dim=-1))
            return m.transp0(x, out)
        h = torch.cat([x.flatten(1), temb], dim=-1)
        return self.net(h).reshape(x.shape)


class EndpointMLP(_TimeMLP):
    """Predicts the endpoint mean mu_theta(x_t, t) on the manifold (the RG-VFM posterior mean).

    ``head="exp"`` (default, the intrinsic parametrisation): mu = exp_{x_t}(proju(x_t, raw)).
    ``head="project"`` (extrinsic): mu = projx(raw), the ambient mean retracted onto the manifold.

    Example
    -------
    >>> import torch
    >>> from iclr26.generative.rg_vfm.manifolds import Sphere
    >>> s = Sphere(2)
    >>> net = EndpointMLP(s, hidden=16, depth=2)
    >>> x = s.random_base(5, torch.Generator().manual_seed(0))
    >>> float(s.point_error(net(x, torch.rand(5))).max()) < 1e-5
    True
    """

    def __init__(
        self,
        manifold: Manifold,
        hidden: int = 256,
        depth: int = 4,
        head: str = "exp",
        time_dim: int = 32,
        origin_chart: bool = False,
    ) -> None:
        super().__init__(manifold, hidden, depth, time_dim, origin_chart)
        check_choice("head", head, ("exp", "project"))
        self.head = head

    def tangent(self, x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        """The tangent output w at x_t (mu = exp_{x_t}(w) for the exp head)."""
        return self.manifold.proju(x, self.raw(x, t))

    def forward(self, x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        if self.head == "project":
            return self.manifold.projx(self.raw(x, t))
        return self.manifold.exp(x, self.tangent(x, t))


class VelocityMLP(_TimeMLP):
    """Predicts a tangent velocity v_theta(x_t, t) = proju(x_t, raw) (the RFM / CFM head)."""

    def __init__(
        self,
        manifold: Manifold,
        hidden: int = 256,
        depth: int = 4,
        time_dim: int = 32,
        origin_chart: bool = False,
    ) -> None:
        super().__init__(manifold, hidden, depth, time_dim, origin_chart)

    def forward(self, x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        return self.manifold.proju(x, self.raw(x, t))
