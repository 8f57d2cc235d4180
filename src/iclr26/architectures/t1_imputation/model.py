"""T1 (arXiv 2602.21043, ICLR 2026): a per-variable CNN whose channels are bound one-to-one to attention heads
that mix information across variables.

Shapes: the network works on Z of shape (B, M, C, T) (batch, variables, channels = heads, time). A CHead attention
layer filters every channel of every variable with that channel's own depthwise temporal kernels (shared across
variables) to get Q, K, V, then lets head c attend over the M variables using only channel c's feature maps
(head dimension = the time length). A 1x1 convolution mixes the channels afterwards.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from iclr26.checks import check_bool, check_float, check_int, check_tensor

__all__ = [
    "CHeadAttention",
    "DepthwiseMix",
    "DownSample",
    "PixelShuffle1D",
    "ReconHead",
    "T1Block",
    "T1Config",
    "T1Imputer",
    "check_series",
    "front_pad",
    "masked_normalize",
]


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def check_series(x: torch.Tensor, mask: torch.Tensor, n_vars: int | None = None) -> None:
    """Raise ValueError unless `x` and `mask` are (B, T, M) tensors of equal shape with a binary mask."""
    if not isinstance(x, torch.Tensor) or not isinstance(mask, torch.Tensor):
        raise TypeError("x and mask must be torch tensors")
    if mask.is_complex():
        raise TypeError(f"mask must be a real 0/1 mask (bool, integer or float), got {mask.dtype}")
    if x.dim() != 3:
        raise ValueError(f"x must have shape (B, T, M), got {tuple(x.shape)}")
    check_tensor("x", x, floating=True)
    if x.shape[0] < 1:
        raise ValueError(f"x must hold at least one window (B >= 1), got shape {tuple(x.shape)}")
    if mask.shape != x.shape:
        raise ValueError(f"mask shape {tuple(mask.shape)} does not match x shape {tuple(x.shape)}")
    if n_vars is not None and x.shape[-1] != n_vars:
        raise ValueError(f"x has {x.shape[-1]} variables (last axis) but the model was built for {n_vars}")
    if not bool(((mask == 0) | (mask == 1)).all()):
        raise ValueError("mask must be binary (1 = observed, 0 = missing)")
    if not bool(torch.isfinite(torch.where(mask > 0, x, torch.zeros_like(x))).all()):
        raise ValueError("x must be finite at the observed entries (mask = 1)")


def _check_odd(name: str, k: int) -> int:
    check_int(name, k, low=1)
    if k % 2 == 0:
        raise ValueError(f"{name} must be a positive odd integer, got {k}")
    return k


def _check_grid(name: str, z: torch.Tensor, channels: int, length: int | None = None) -> None:
    check_tensor(name, z, ndim=4, floating=True)
    if z.shape[2] != channels or (length is not None and z.shape[3] != length):
        want = f"(B, M, {channels}, {'T' if length is None else length})"
        raise ValueError(f"{name} must have shape {want}, got {tuple(z.shape)}")


def masked_normalize(
    x: torch.Tensor, mask: torch.Tensor, eps: float = 1e-5
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Per-sample, per-variable normalisation over observed entries only.

    x, mask: (B, T, M). Returns (x_norm, mu, sigma) with mu, sigma of shape (B, 1, M), detached. Missing entries
    of x_norm are 0 and values at missing positions never enter mu or sigma. As in the official code
    (``models/T1.py``, ``_normalize_input``) the variance divides by n - 1 (n observed entries); a variable with one
    observed entry gets mu = that value and sigma = 1, one with none gets mu = 0, sigma = 1.
    """
    check_series(x, mask)
    check_float("eps", eps, low=0.0, low_open=True)
    k = mask.to(x.dtype)
    n = k.sum(1, keepdim=True)
    xs = torch.where(k > 0, x, torch.zeros_like(x))
    mu = xs.sum(1, keepdim=True) / n.clamp_min(1.0)
    cen = (xs - mu) * k
    sigma = torch.sqrt((cen * cen).sum(1, keepdim=True) / (n - 1).clamp_min(1.0) + eps)
    mu = torch.where(n == 0, torch.zeros_like(mu), mu).detach()
    sigma = torch.where(n <= 1, torch.ones_like(sigma), sigma).detach()
    return cen / sigma, mu, sigma


def front_pad(x: torch.Tensor, kernel: int, stride: int) -> torch.Tensor:
    """Prepend copies of the last time step so a (kernel, stride) convolution outputs ceil(T / stride) steps.

    ``x`` is (..., T): the time axis is the last, any leading axes are carried through, and so is the dtype.
    """
    check_tensor("x", x)
    check_int("kernel", kernel, low=1)
    check_int("stride", stride, low=1)
    t = x.shape[-1]
    pad = max(0, (_ceil_div(t, stride) - 1) * stride + kernel - t)
    if pad == 0:
        return x
    return torch.cat([x[..., -1:].expand(*x.shape[:-1], pad), x], dim=-1)


class DepthwiseMix(nn.Module):
    """Sum of a large and a small depthwise temporal convolution (groups = channels), length preserving."""

    def __init__(self, channels: int, kernel_large: int, kernel_small: int, bias: bool = True) -> None:
        super().__init__()
        self.channels = check_int("channels", channels, low=1)
        for name, k in (("kernel_large", kernel_large), ("kernel_small", kernel_small)):
            _check_odd(name, k)
        check_bool("bias", bias)
        self.large = nn.Conv1d(
            channels, channels, kernel_large, padding=kernel_large // 2, groups=channels, bias=bias
        )
        self.small = nn.Conv1d(
            channels, channels, kernel_small, padding=kernel_small // 2, groups=channels, bias=False
        )

    def kernel(self) -> torch.Tensor:
        """The equivalent single depthwise kernel (C, k_large): large + zero-padded, centred small kernel."""
        pad = (self.large.kernel_size[0] - self.small.kernel_size[0]) // 2
        w = self.large.weight[:, 0]
        return (
            w + F.pad(self.small.weight[:, 0], (pad, pad))
            if pad >= 0
            else F.pad(w, (-pad, -pad)) + self.small.weight[:, 0]
        )

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        """z: (N, C, T) -> (N, C, T)."""
        check_tensor("z", z, ndim=3, floating=True, shape=(None, self.channels, None))
        return self.large(z) + self.small(z)


def _depthwise(z: torch.Tensor, kernels: torch.Tensor) -> torch.Tensor:
    """Zero-padded 'same' depthwise cross-correlation of z (N, C, T) with G stacked kernels (G, C, k) -> (G, N, C, T).

    One grouped convolution with G outputs per channel: on CPU this is much faster than G separate convolutions.
    """
    g, c, k = kernels.shape
    y = F.conv1d(z, kernels.transpose(0, 1).reshape(g * c, 1, k), padding=k // 2, groups=c)
    return y.reshape(z.shape[0], c, g, -1).permute(2, 0, 1, 3)


def _pointwise(z: torch.Tensor, conv: nn.Conv1d) -> torch.Tensor:
    """A 1x1 Conv1d applied to z (N, C, T) as a matrix product."""
    y = torch.einsum("oc,nct->not", conv.weight[:, :, 0], z)
    return y + conv.bias[:, None] if conv.bias is not None else y


def _check_z(z: torch.Tensor, channels: int) -> None:
    check_tensor("z", z, ndim=4, floating=True)
    if z.shape[2] != channels:
        raise ValueError(f"z has {z.shape[2]} channels (axis 2) but the layer was built for {channels}")


class CHeadAttention(nn.Module):
    """Channel-head bound attention over variables on Z of shape (B, M, C, T).

    Head c uses only channel c: Q_c, K_c, V_c in R^{M x T} come from depthwise temporal filters of channel c, the
    weights are softmax(Q_c K_c^T / sqrt(T)) over the M variables, and a 1x1 convolution mixes the C head outputs.
    """

    def __init__(
        self, channels: int, kernel_large: int, kernel_small: int, drop_attn: float = 0.0, bias: bool = True
    ) -> None:
        super().__init__()
        check_int("channels", channels, low=1)
        check_float("drop_attn", drop_attn, 0.0, 1.0, high_open=True)
        self.channels = channels
        self.q = DepthwiseMix(channels, kernel_large, kernel_small, bias)
        self.k = DepthwiseMix(channels, kernel_large, kernel_small, bias)
        self.v = DepthwiseMix(channels, kernel_large, kernel_small, bias)
        self.proj = nn.Conv1d(channels, channels, 1)
        self.drop_attn = drop_attn

    def qkv(self, z: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Q, K, V of shape (B, C, M, T): head c holds channel c of every variable."""
        b, m, c, t = z.shape
        mixes = (self.q, self.k, self.v)
        kernels = torch.stack([f.kernel() for f in mixes])
        out = _depthwise(z.reshape(b * m, c, t), kernels)
        if self.q.large.bias is not None:
            out = out + torch.stack([f.large.bias for f in mixes])[:, None, :, None]
        q, k, v = (o.reshape(b, m, c, t).transpose(1, 2) for o in out)
        return q, k, v

    def weights(self, z: torch.Tensor) -> torch.Tensor:
        """Attention weights (B, C, M, M) of every head (no dropout); rows sum to 1 over variables."""
        _check_z(z, self.channels)
        q, k, _ = self.qkv(z)
        return torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(z.shape[-1]), dim=-1)

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        """(B, M, C, T) -> (B, M, C, T)."""
        _check_z(z, self.channels)
        b, m, c, t = z.shape
        q, k, v = self.qkv(z)
        att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(t), dim=-1)
        if self.training and self.drop_attn > 0:
            att = F.dropout(att, self.drop_attn)
        out = (att @ v).transpose(1, 2).reshape(b * m, c, t)
        return _pointwise(out, self.proj).reshape(b, m, c, t)


class _FeedForward(nn.Module):
    def __init__(self, channels: int, ratio: float) -> None:
        super().__init__()
        hidden = max(1, int(channels * ratio))
        self.conv1, self.conv2 = nn.Conv1d(channels, hidden, 1), nn.Conv1d(hidden, channels, 1)

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        b, m, c, t = z.shape
        h = F.gelu(_pointwise(z.reshape(b * m, c, t), self.conv1))
        return _pointwise(h, self.conv2).reshape(b, m, c, t)


def _drop_path(x: torch.Tensor, p: float, training: bool) -> torch.Tensor:
    if not training or p == 0.0:
        return x
    keep = torch.rand(x.shape[0], 1, 1, 1, dtype=x.dtype, device=x.device) < 1 - p
    return x * keep.to(x.dtype) / (1 - p)


class T1Block(nn.Module):
    """CHead attention + FFN, each ``Z <- Z + DropPath(gamma * LayerNorm_(C,T)(branch(Z)))`` with gamma = 1e-6 init."""

    def __init__(
        self,
        channels: int,
        length: int,
        kernel_large: int,
        kernel_small: int,
        drop_attn: float = 0.1,
        drop_path: float = 0.1,
        ffn_ratio: float = 1.0,
        layer_scale: float = 1e-6,
    ) -> None:
        super().__init__()
        self.channels, self.length = (
            check_int("channels", channels, low=1),
            check_int("length", length, low=1),
        )
        check_float("drop_path", drop_path, 0.0, 1.0, high_open=True)
        check_float("ffn_ratio", ffn_ratio, low=0.0, low_open=True)
        check_float("layer_scale", layer_scale)
        self.attn = CHeadAttention(channels, kernel_large, kernel_small, drop_attn)
        self.ffn = _FeedForward(channels, ffn_ratio)
        self.norm1 = nn.LayerNorm((channels, length))
        self.norm2 = nn.LayerNorm((channels, length))
        self.gamma1 = nn.Parameter(torch.full((1,), float(layer_scale)))
        self.gamma2 = nn.Parameter(torch.full((1,), float(layer_scale)))
        self.drop_path = drop_path

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        """(B, M, C, T) -> (B, M, C, T)."""
        _check_grid("z", z, self.channels, self.length)
        z = z + _drop_path(self.gamma1 * self.norm1(self.attn(z)), self.drop_path, self.training)
        return z + _drop_path(self.gamma2 * self.norm2(self.ffn(z)), self.drop_path, self.training)


class DownSample(nn.Module):
    """Depthwise Conv1d(kernel = stride = factor) with last-step front padding: T -> ceil(T / factor)."""

    def __init__(self, channels: int, factor: int) -> None:
        super().__init__()
        self.channels = check_int("channels", channels, low=1)
        self.factor = check_int("factor", factor, low=1)
        self.conv = nn.Conv1d(channels, channels, factor, factor, groups=channels)

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        """(B, M, C, T) -> (B, M, C, ceil(T / factor))."""
        _check_grid("z", z, self.channels)
        b, m, c, t = z.shape
        y = self.conv(front_pad(z.reshape(b * m, c, t), self.factor, self.factor))
        return y.reshape(b, m, c, y.shape[-1])


class PixelShuffle1D(nn.Module):
    """(N, C*r, L) -> (N, C, L*r): output step l*r + j takes input channel c*r + j at step l."""

    def __init__(self, r: int) -> None:
        super().__init__()
        self.r = check_int("r (upsampling factor)", r, low=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        check_tensor("x", x, ndim=3)
        n, c, length = x.shape
        if c % self.r:
            raise ValueError(f"channels ({c}) must be a multiple of the upsampling factor {self.r}")
        return (
            x.reshape(n, c // self.r, self.r, length).transpose(2, 3).reshape(n, c // self.r, length * self.r)
        )


class ReconHead(nn.Module):
    """1x1 conv to C' (multiple of u = ceil(T / T_out)), pixel shuffle, centre crop to T, Linear(C'/u -> 1)."""

    def __init__(self, channels: int, length_in: int, length_out: int) -> None:
        super().__init__()
        for name, v in (("channels", channels), ("length_in", length_in), ("length_out", length_out)):
            check_int(name, v, low=1)
        self.channels, self.length_in = channels, length_in
        self.up = _ceil_div(length_out, length_in)
        self.adjusted = _ceil_div(channels, self.up) * self.up
        self.length_out = length_out
        self.adjust = nn.Conv1d(channels, self.adjusted, 1)
        self.shuffle = PixelShuffle1D(self.up)
        self.out = nn.Linear(self.adjusted // self.up, 1)

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        """(B, M, C, T_out) -> (B, M, T)."""
        _check_grid("z", z, self.channels, self.length_in)
        b, m, c, t = z.shape
        y = self.shuffle(_pointwise(z.reshape(b * m, c, t), self.adjust))
        start = (y.shape[-1] - self.length_out) // 2
        y = y[..., start : start + self.length_out]
        return self.out(y.transpose(1, 2)).reshape(b, m, self.length_out)


@dataclass(frozen=True)
class T1Config:
    """T1 hyperparameters; defaults are the official imputation setting."""

    n_heads: int = 128
    n_blocks: tuple[int, ...] = (2, 2)
    kernel_large: tuple[int, ...] = (71, 31)
    kernel_small: int = 5
    downsample: int = 2
    drop_path: float = 0.1
    drop_attn: float = 0.1
    ffn_ratio: float = 1.0
    layer_scale: float = 1e-6
    positional: bool = True
    stem_kernel: int = 2

    def __post_init__(self) -> None:
        check_int("n_heads", self.n_heads, low=1)
        for name in ("n_blocks", "kernel_large"):
            v = getattr(self, name)
            if isinstance(v, (str, bytes)) or not isinstance(v, (tuple, list)):
                raise ValueError(f"{name} must be a tuple (one entry per stage), got {v!r}")
        if len(self.n_blocks) < 1:
            raise ValueError(f"n_blocks must be a non-empty tuple of counts >= 0, got {self.n_blocks}")
        for n in self.n_blocks:
            check_int("n_blocks (each stage's count)", n, low=0)
        if len(self.kernel_large) != len(self.n_blocks):
            raise ValueError(
                f"kernel_large needs one size per stage ({len(self.n_blocks)}), got {len(self.kernel_large)}"
            )
        for k in self.kernel_large:
            _check_odd("kernel_large", k)
        _check_odd("kernel_small", self.kernel_small)
        check_int("downsample", self.downsample, low=1)
        for name in ("drop_path", "drop_attn"):
            check_float(name, getattr(self, name), 0.0, 1.0, high_open=True)
        check_float("ffn_ratio", self.ffn_ratio, low=0.0, low_open=True)
        check_float("layer_scale", self.layer_scale)
        check_bool("positional", self.positional)
        check_int("stem_kernel", self.stem_kernel, low=1)


class T1Imputer(nn.Module):
    """T1 for imputation: ``forward(x (B,T,M), mask (B,T,M)) -> (B,T,M)`` reconstruction (de-normalised).

    Values of x at missing positions (mask = 0) are ignored. `seq_len` and `n_vars` fix the positional tensor and
    the LayerNorm shapes, as in the official model.
    """

    def __init__(
        self, n_vars: int, seq_len: int, config: T1Config | None = None, init_seed: int | None = None
    ) -> None:
        super().__init__()
        if config is not None and not isinstance(config, T1Config):
            raise TypeError(f"config must be None or a T1Config, got {type(config).__name__}")
        cfg = config or T1Config()
        check_int("n_vars (a positive integer)", n_vars, low=1)
        min_len = cfg.downsample ** (len(cfg.n_blocks) - 1)
        check_int("seq_len (at least 2 and the total downsampling)", seq_len, low=max(2, min_len))
        if init_seed is not None:
            torch.manual_seed(check_int("init_seed (None or an int)", init_seed, low=0))
        self.config, self.n_vars, self.seq_len = cfg, n_vars, seq_len
        c = cfg.n_heads
        self.stem = nn.Conv1d(1, c, cfg.stem_kernel, 1)
        self.pos = nn.Parameter(torch.randn(n_vars, c, seq_len) * 0.02) if cfg.positional else None
        self.stages = nn.ModuleList()
        self.downs = nn.ModuleList()
        t = seq_len
        for i, n in enumerate(cfg.n_blocks):
            blocks = [
                T1Block(
                    c,
                    t,
                    cfg.kernel_large[i],
                    cfg.kernel_small,
                    cfg.drop_attn,
                    cfg.drop_path,
                    cfg.ffn_ratio,
                    cfg.layer_scale,
                )
                for _ in range(n)
            ]
            self.stages.append(nn.ModuleList(blocks))
            if i < len(cfg.n_blocks) - 1:
                self.downs.append(DownSample(c, cfg.downsample))
                t = _ceil_div(t, cfg.downsample)
        self.head = ReconHead(c, t, seq_len)

    def embed(self, x_norm: torch.Tensor) -> torch.Tensor:
        """Stem + positional tensor: normalised (B, T, M) -> Z (B, M, C, T)."""
        check_tensor("x_norm", x_norm, ndim=3, floating=True, shape=(None, self.seq_len, self.n_vars))
        b, t, m = x_norm.shape
        z = self.stem(front_pad(x_norm.transpose(1, 2).reshape(b * m, 1, t), self.config.stem_kernel, 1))
        z = z.reshape(b, m, self.config.n_heads, t)
        return z + self.pos if self.pos is not None else z

    def features(self, x_norm: torch.Tensor, skip_blocks: bool = False) -> torch.Tensor:
        """Stem, stages and downsampling; `skip_blocks` drops every T1Block (the near-identity path at init)."""
        z = self.embed(x_norm)
        for i, blocks in enumerate(self.stages):
            if not skip_blocks:
                for blk in blocks:
                    z = blk(z)
            if i < len(self.downs):
                z = self.downs[i](z)
        return z

    def forward(self, x: torch.Tensor, mask: torch.Tensor, skip_blocks: bool = False) -> torch.Tensor:
        """Reconstruction (B, T, M) of the whole window from its observed entries."""
        check_series(x, mask, self.n_vars)
        check_bool("skip_blocks", skip_blocks)
        if x.shape[1] != self.seq_len:
            raise ValueError(f"x has length {x.shape[1]} but the model was built for seq_len={self.seq_len}")
        x_norm, mu, sigma = masked_normalize(x, mask)
        y = self.head(self.features(x_norm, skip_blocks)).transpose(1, 2)
        return y * sigma + mu

    def attention_maps(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Weights (B, C, M, M) of the first block's CHead attention (eval-mode, no dropout)."""
        check_series(x, mask, self.n_vars)
        if x.shape[1] != self.seq_len:
            raise ValueError(f"x has length {x.shape[1]} but the model was built for seq_len={self.seq_len}")
        first = next((s[0] for s in self.stages if len(s)), None)
        if first is None:
            raise ValueError("the model has no T1Block, so it has no attention maps")
        return first.attn.weights(self.embed(masked_normalize(x, mask)[0]))
