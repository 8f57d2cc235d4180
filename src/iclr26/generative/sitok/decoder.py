"""Rectified-flow diffusion decoder of SiTok (arXiv 2602.06602): a non-causal transformer with AdaLN time conditioning.

The sources do not pin the decoder's objective down; the brief's choice is rectified flow:

- path: x_tau = (1 - tau) n + tau x1 with n ~ N(0, I), tau ~ U(0, 1);
- loss: L_diff = mean ||v_phi(x_tau, tau, c) - (x1 - n)||^2 over valid frames (:func:`flow_matching_loss`);
- sampling: Euler from tau = 0 (noise) to 1, x <- x + (1 / steps) v(x, tau, c) (:func:`euler_sample`), 16 steps;
  zero steps return the noise itself;
- parametrisation (a choice the sources leave open): by default the network predicts the clean frames x1_hat
  ("x-prediction", as in Li & He 2025, "Back to Basics: Let Denoising Generative Models Denoise") and the velocity
  is v = (x1_hat - x_tau) / max(1 - tau, t_min); the loss is still the velocity loss above. The generated frames
  (4 x 128 = 512 stacked mel bins) are wider than the model (d = 96-128), and a network that must output the
  velocity itself has to pass the 512-d noise through its d-wide hidden state; ``prediction="v"`` outputs v
  directly;
- optional classifier-free guidance: the condition is replaced by a learned null vector with probability
  ``cond_drop`` in training; ``v = v_uncond + w (v_cond - v_uncond)`` at sampling (w = 1: no guidance).

Blocks are pre-norm transformer blocks whose LayerNorms are modulated by the time embedding (AdaLN-Zero, as in
DiT: per block shift/scale/gate for attention and MLP, the gates initialised at zero).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from iclr26.checks import check_choice, check_float, check_int, check_tensor

__all__ = ["RectifiedFlowDecoder", "euler_sample", "flow_matching_loss", "timestep_embedding"]


def timestep_embedding(tau: Tensor, dim: int, max_period: float = 1000.0) -> Tensor:
    """Sinusoidal features of tau in [0, 1] (scaled by 1000 as in DiT): (B,) -> (B, dim)."""
    half = dim // 2
    freqs = torch.exp(
        -math.log(max_period) * torch.arange(half, dtype=torch.float32, device=tau.device) / half
    )
    args = 1000.0 * tau.float()[:, None] * freqs[None]
    emb = torch.cat([torch.cos(args), torch.sin(args)], -1)
    return F.pad(emb, (0, dim % 2))


class _AdaLNBlock(nn.Module):
    def __init__(self, d: int, heads: int, mlp_ratio: int = 4) -> None:
        super().__init__()
        self.norm1 = nn.LayerNorm(d, elementwise_affine=False)
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.norm2 = nn.LayerNorm(d, elementwise_affine=False)
        self.mlp = nn.Sequential(nn.Linear(d, mlp_ratio * d), nn.GELU(), nn.Linear(mlp_ratio * d, d))
        self.ada = nn.Linear(d, 6 * d)
        nn.init.zeros_(self.ada.weight)
        nn.init.zeros_(self.ada.bias)

    def forward(self, h: Tensor, t: Tensor, pad: Tensor | None) -> Tensor:
        s1, b1, g1, s2, b2, g2 = self.ada(F.silu(t))[:, None].chunk(6, -1)
        x = self.norm1(h) * (1 + s1) + b1
        h = h + g1 * self.attn(x, x, x, key_padding_mask=pad, need_weights=False)[0]
        x = self.norm2(h) * (1 + s2) + b2
        return h + g2 * self.mlp(x)


class RectifiedFlowDecoder(nn.Module):
    """Velocity network v_phi(x_tau, tau, c) over (batch, frames, feat) with a per-frame condition c.

    Parameters
    ----------
    feat_dim : dimension of the generated frames (here 4 x 128 stacked mel bins).
    cond_dim : dimension of the per-frame condition (the upsampled quantised embedding).
    d_model, n_layers, n_heads : transformer size (quick: 128, 2, 4).
    cond_drop : probability of replacing the condition by the learned null vector in training (CFG).
    max_len : longest sequence (learned absolute positions). mlp_ratio : MLP width / d_model.
    prediction : ``"x"`` (the net predicts x1, default) or ``"v"`` (the net predicts the velocity).
    t_min : floor of 1 - tau in the x-prediction velocity.

    Examples
    --------
    >>> dec = RectifiedFlowDecoder(feat_dim=8, cond_dim=4, d_model=16, n_layers=1, n_heads=2)
    >>> c = torch.randn(2, 5, 4)
    >>> dec(torch.randn(2, 5, 8), torch.rand(2), c).shape
    torch.Size([2, 5, 8])
    >>> dec.sample(c, steps=0, generator=torch.Generator().manual_seed(0)).shape
    torch.Size([2, 5, 8])
    """

    def __init__(
        self,
        feat_dim: int,
        cond_dim: int,
        d_model: int = 128,
        n_layers: int = 2,
        n_heads: int = 4,
        cond_drop: float = 0.0,
        max_len: int = 512,
        mlp_ratio: int = 4,
        prediction: str = "x",
        t_min: float = 0.05,
    ) -> None:
        super().__init__()
        self.prediction = check_choice("prediction", prediction, ("x", "v"))
        self.t_min = check_float("t_min", t_min, 0.0, 1.0, low_open=True)
        self.feat_dim = check_int("feat_dim", feat_dim, low=1)
        self.cond_dim = check_int("cond_dim", cond_dim, low=1)
        d_model = check_int("d_model", d_model, low=1)
        n_heads = check_int("n_heads", n_heads, low=1)
        if d_model % n_heads:
            raise ValueError(f"d_model must be divisible by n_heads={n_heads}, got {d_model}")
        check_int("n_layers", n_layers, low=1)
        self.cond_drop = check_float("cond_drop", cond_drop, 0.0, 1.0)
        self.max_len = check_int("max_len", max_len, low=1)
        self.d_model = d_model
        self.inp = nn.Linear(feat_dim, d_model)
        self.cond = nn.Linear(cond_dim, d_model)
        self.null_cond = nn.Parameter(torch.zeros(cond_dim))
        self.pos = nn.Parameter(torch.randn(max_len, d_model) * 0.02)
        self.time = nn.Sequential(nn.Linear(d_model, d_model), nn.SiLU(), nn.Linear(d_model, d_model))
        self.blocks = nn.ModuleList(
            _AdaLNBlock(d_model, n_heads, check_int("mlp_ratio", mlp_ratio, low=1)) for _ in range(n_layers)
        )
        self.norm = nn.LayerNorm(d_model, elementwise_affine=False)
        self.final_ada = nn.Linear(d_model, 2 * d_model)
        nn.init.zeros_(self.final_ada.weight)
        nn.init.zeros_(self.final_ada.bias)
        self.out = nn.Linear(d_model, feat_dim)

    def _check(self, x: Tensor, cond: Tensor) -> None:
        check_tensor("cond", cond, ndim=3, floating=True, finite=True)
        if cond.shape[-1] != self.cond_dim:
            raise ValueError(
                f"cond must have last dimension cond_dim={self.cond_dim}, got {tuple(cond.shape)}"
            )
        if cond.shape[1] > self.max_len:
            raise ValueError(f"sequence length must be <= max_len={self.max_len}, got {cond.shape[1]}")
        check_tensor("x", x, shape=(cond.shape[0], cond.shape[1], self.feat_dim), floating=True)

    def forward(self, x: Tensor, tau: Tensor, cond: Tensor, mask: Tensor | None = None) -> Tensor:
        """Velocity (B, T, feat_dim) at `x` (B, T, feat_dim), times `tau` (B,), condition `cond` (B, T, cond_dim);
        `mask` (B, T) bool marks valid frames (padding is ignored by attention)."""
        out = self.network(x, tau, cond, mask)
        if self.prediction == "v":
            return out
        # x-prediction: v = (x1_hat - x_tau) / (1 - tau), the denominator floored at t_min
        return (out - x) / (1 - tau).clamp(min=self.t_min)[:, None, None].to(x.dtype)

    def network(self, x: Tensor, tau: Tensor, cond: Tensor, mask: Tensor | None = None) -> Tensor:
        """The transformer's raw output: x1_hat for ``prediction="x"``, the velocity for ``"v"``."""
        self._check(x, cond)
        check_tensor("tau", tau, shape=(x.shape[0],), floating=True)
        t = self.time(timestep_embedding(tau, self.d_model))
        h = self.inp(x) + self.cond(cond) + self.pos[: x.shape[1]]
        pad = None if mask is None else ~mask
        for block in self.blocks:
            h = block(h, t, pad)
        shift, scale = self.final_ada(F.silu(t))[:, None].chunk(2, -1)
        return self.out(self.norm(h) * (1 + scale) + shift)

    def drop_condition(self, cond: Tensor, generator: torch.Generator | None = None) -> Tensor:
        """`cond` with each sequence's condition replaced by the null vector with probability `cond_drop`."""
        if self.cond_drop == 0.0:
            return cond
        u = torch.rand(cond.shape[0], generator=generator).to(cond.device)
        keep = (u >= self.cond_drop)[:, None, None]
        return torch.where(keep, cond, self.null_cond.expand_as(cond))

    @torch.no_grad()
    def sample(
        self,
        cond: Tensor,
        steps: int = 16,
        mask: Tensor | None = None,
        generator: torch.Generator | None = None,
        guidance: float = 1.0,
        noise: Tensor | None = None,
    ) -> Tensor:
        """Frames (B, T, feat_dim) from `steps` Euler steps of the flow conditioned on `cond` (B, T, cond_dim).

        ``guidance`` w != 1 mixes the unconditional velocity (null condition) in: v_u + w (v_c - v_u)."""
        steps = check_int("steps", steps, low=0)
        guidance = check_float("guidance", guidance, low=0.0)
        b, n = cond.shape[:2]
        if noise is None:
            noise = torch.randn(b, n, self.feat_dim, generator=generator).to(cond.device)
        null = self.null_cond.expand_as(cond)

        def velocity(x: Tensor, tau: Tensor) -> Tensor:
            v = self(x, tau, cond, mask)
            if guidance != 1.0:
                v_u = self(x, tau, null, mask)
                v = v_u + guidance * (v - v_u)
            return v

        return euler_sample(velocity, noise, steps)


def euler_sample(velocity: Callable[[Tensor, Tensor], Tensor], noise: Tensor, steps: int) -> Tensor:
    """Integrate dx/dtau = velocity(x, tau) from tau = 0 (x = noise) to 1 with `steps` Euler steps."""
    steps = check_int("steps", steps, low=0)
    check_tensor("noise", noise, floating=True)
    x = noise
    for k in range(steps):
        tau = torch.full((noise.shape[0],), k / steps, dtype=noise.dtype, device=noise.device)
        x = x + velocity(x, tau) / steps
    return x


def flow_matching_loss(
    velocity: Callable[[Tensor, Tensor], Tensor],
    x1: Tensor,
    noise: Tensor,
    tau: Tensor,
    mask: Tensor | None = None,
) -> Tensor:
    """Rectified-flow loss mean ||velocity(x_tau, tau) - (x1 - noise)||^2 over valid frames (mean over features).

    `x1`, `noise` (B, T, F); `tau` (B,) in [0, 1]; `mask` (B, T) bool or None (all valid)."""
    check_tensor("x1", x1, ndim=3, floating=True)
    check_tensor("noise", noise, shape=tuple(x1.shape), floating=True)
    check_tensor("tau", tau, shape=(x1.shape[0],), floating=True)
    t = tau[:, None, None].to(x1.dtype)
    x_tau = (1 - t) * noise + t * x1
    err = (velocity(x_tau, tau) - (x1 - noise)).pow(2).mean(-1)
    if mask is None:
        return err.mean()
    m = mask.to(err.dtype)
    return (err * m).sum() / m.sum().clamp(min=1.0)
