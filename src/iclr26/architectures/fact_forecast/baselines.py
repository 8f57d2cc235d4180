"""Minimal offline baselines with FACT's call signature ``forward(x (B, L, N), x_mark | None) -> (B, F, N)``:
iTransformer (variables as tokens), DLinear (trend/seasonal linear), PatchTST (channel-independent patches) and
a TSMixer-lite (time- and feature-mixing MLPs)."""

from __future__ import annotations

import torch
from torch import nn

from iclr26.checks import check_int, check_probability, check_tensor

__all__ = ["DLinear", "PatchTST", "TSMixerLite", "ITransformer"]


def _check(x: torch.Tensor, seq_len: int, n_vars: int) -> None:
    if not isinstance(x, torch.Tensor) or x.dim() != 3:
        raise ValueError(f"x must be a tensor of shape (B, L, N), got {getattr(x, 'shape', type(x))}")
    if x.shape[1] != seq_len or x.shape[2] != n_vars:
        raise ValueError(f"x must have L={seq_len} and N={n_vars}, got {tuple(x.shape)}")
    check_tensor("x", x, floating=True, finite=True)
    if x.shape[0] < 1:
        raise ValueError(f"x must hold at least one window (B >= 1), got shape {tuple(x.shape)}")


def _check_sizes(**sizes: int) -> None:
    for name, v in sizes.items():
        check_int(name, v, low=0 if name in ("n_mark", "n_blocks") else 1)


def _check_heads(d_model: int, n_heads: int) -> None:
    if d_model % n_heads:
        raise ValueError(f"d_model ({d_model}) must be divisible by n_heads ({n_heads})")


def _norm(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    mean = x.mean(1, keepdim=True)
    std = torch.sqrt(x.var(1, keepdim=True, unbiased=False) + 1e-5)
    return (x - mean) / std, mean, std


class ITransformer(nn.Module):
    """iTransformer: each variable's lookback (and each time-mark series) is one token; a pre-built Transformer
    encoder mixes tokens; a linear head maps D -> F per variable."""

    def __init__(
        self,
        seq_len: int,
        pred_len: int,
        n_vars: int,
        n_mark: int = 0,
        d_model: int = 64,
        d_ff: int = 64,
        n_layers: int = 2,
        n_heads: int = 4,
        dropout: float = 0.1,
    ) -> None:
        super().__init__()
        _check_sizes(
            seq_len=seq_len,
            pred_len=pred_len,
            n_vars=n_vars,
            n_mark=n_mark,
            d_model=d_model,
            d_ff=d_ff,
            n_layers=n_layers,
            n_heads=n_heads,
        )
        _check_heads(d_model, n_heads)
        check_probability("dropout", dropout)
        self.seq_len, self.n_vars, self.n_mark = seq_len, n_vars, n_mark
        self.embed = nn.Linear(seq_len, d_model)
        layer = nn.TransformerEncoderLayer(
            d_model, n_heads, d_ff, dropout, activation="gelu", batch_first=True
        )
        self.encoder = nn.TransformerEncoder(
            layer, n_layers, norm=nn.LayerNorm(d_model), enable_nested_tensor=False
        )
        self.head = nn.Linear(d_model, pred_len)

    def forward(self, x: torch.Tensor, x_mark: torch.Tensor | None = None) -> torch.Tensor:
        _check(x, self.seq_len, self.n_vars)
        if x_mark is not None and self.n_mark:
            check_tensor("x_mark", x_mark, floating=True, finite=True, shape=(*x.shape[:2], self.n_mark))
        x, mean, std = _norm(x)
        if x_mark is not None and self.n_mark:
            x = torch.cat([x, x_mark], -1)
        z = self.encoder(self.embed(x.transpose(1, 2)))
        return self.head(z).transpose(1, 2)[..., : self.n_vars] * std + mean


class DLinear(nn.Module):
    """DLinear: moving-average trend + remainder, one shared linear L -> F map for each part."""

    def __init__(self, seq_len: int, pred_len: int, n_vars: int, kernel: int = 25) -> None:
        super().__init__()
        _check_sizes(seq_len=seq_len, pred_len=pred_len, n_vars=n_vars, kernel=kernel)
        self.seq_len, self.n_vars, self.kernel = seq_len, n_vars, kernel
        self.trend = nn.Linear(seq_len, pred_len)
        self.seasonal = nn.Linear(seq_len, pred_len)

    def forward(self, x: torch.Tensor, x_mark: torch.Tensor | None = None) -> torch.Tensor:
        _check(x, self.seq_len, self.n_vars)
        k = self.kernel
        xp = torch.cat([x[:, :1].expand(-1, (k - 1) // 2, -1), x, x[:, -1:].expand(-1, k // 2, -1)], 1)
        trend = nn.functional.avg_pool1d(xp.transpose(1, 2), k, stride=1)
        season = x.transpose(1, 2) - trend
        return (self.trend(trend) + self.seasonal(season)).transpose(1, 2)


class PatchTST(nn.Module):
    """PatchTST: channel-independent; each variable's lookback is cut into patches that a Transformer encoder
    mixes; a flatten head maps to F."""

    def __init__(
        self,
        seq_len: int,
        pred_len: int,
        n_vars: int,
        patch_len: int = 16,
        stride: int = 8,
        d_model: int = 64,
        d_ff: int = 64,
        n_layers: int = 2,
        n_heads: int = 4,
        dropout: float = 0.1,
    ) -> None:
        super().__init__()
        _check_sizes(
            seq_len=seq_len,
            pred_len=pred_len,
            n_vars=n_vars,
            patch_len=patch_len,
            stride=stride,
            d_model=d_model,
            d_ff=d_ff,
            n_layers=n_layers,
            n_heads=n_heads,
        )
        _check_heads(d_model, n_heads)
        check_probability("dropout", dropout)
        self.seq_len, self.n_vars, self.patch_len, self.stride = seq_len, n_vars, patch_len, stride
        n_patch = (seq_len + stride - patch_len) // stride + 1
        self.embed = nn.Linear(patch_len, d_model)
        self.pos = nn.Parameter(0.02 * torch.randn(n_patch, d_model))
        layer = nn.TransformerEncoderLayer(
            d_model, n_heads, d_ff, dropout, activation="gelu", batch_first=True
        )
        self.encoder = nn.TransformerEncoder(layer, n_layers, enable_nested_tensor=False)
        self.head = nn.Linear(n_patch * d_model, pred_len)

    def forward(self, x: torch.Tensor, x_mark: torch.Tensor | None = None) -> torch.Tensor:
        _check(x, self.seq_len, self.n_vars)
        x, mean, std = _norm(x)
        b, n = x.shape[0], x.shape[2]
        z = x.transpose(1, 2).reshape(b * n, -1)
        z = torch.cat([z, z[:, -1:].expand(-1, self.stride)], 1).unfold(1, self.patch_len, self.stride)
        z = self.encoder(self.embed(z) + self.pos)
        out = self.head(z.flatten(1)).reshape(b, n, -1).transpose(1, 2)
        return out * std + mean


class TSMixerLite(nn.Module):
    """TSMixer-lite: residual blocks of a time-mixing MLP (over L) and a feature-mixing MLP (over N), then L -> F."""

    def __init__(
        self,
        seq_len: int,
        pred_len: int,
        n_vars: int,
        n_blocks: int = 2,
        d_ff: int = 64,
        dropout: float = 0.1,
    ) -> None:
        super().__init__()
        _check_sizes(seq_len=seq_len, pred_len=pred_len, n_vars=n_vars, n_blocks=n_blocks, d_ff=d_ff)
        check_probability("dropout", dropout)
        self.seq_len, self.n_vars = seq_len, n_vars
        self.time = nn.ModuleList(
            [nn.Sequential(nn.LayerNorm(n_vars), nn.Identity()) for _ in range(n_blocks)]
        )
        self.time_mlp = nn.ModuleList(
            [
                nn.Sequential(nn.Linear(seq_len, seq_len), nn.ReLU(), nn.Dropout(dropout))
                for _ in range(n_blocks)
            ]
        )
        self.feat_norm = nn.ModuleList([nn.LayerNorm(n_vars) for _ in range(n_blocks)])
        self.feat_mlp = nn.ModuleList(
            [
                nn.Sequential(
                    nn.Linear(n_vars, d_ff), nn.ReLU(), nn.Dropout(dropout), nn.Linear(d_ff, n_vars)
                )
                for _ in range(n_blocks)
            ]
        )
        self.head = nn.Linear(seq_len, pred_len)

    def forward(self, x: torch.Tensor, x_mark: torch.Tensor | None = None) -> torch.Tensor:
        _check(x, self.seq_len, self.n_vars)
        x, mean, std = _norm(x)
        for tn, tm, fn, fm in zip(self.time, self.time_mlp, self.feat_norm, self.feat_mlp):
            x = x + tm(tn(x).transpose(1, 2)).transpose(1, 2)
            x = x + fm(fn(x))
        return self.head(x.transpose(1, 2)).transpose(1, 2) * std + mean
