"""Minimal offline baselines with FACT's call signature ``forward(x (B, L, N), x_mark | None) -> (B, F, N)``:
iTransformer (variables as tokens), DLinear (trend/seasonal linear), PatchTST (channel-independent patches) and
a TSMixer-lite (time- and feature-mixing MLPs). The first three are the lab's (:mod:`iclr26.lab.timeseries`), shared
with PHAT; TSMixer-lite is FACT's own."""

from __future__ import annotations

import torch
from torch import nn

from iclr26.checks import check_int, check_probability
from iclr26.lab.timeseries import DLinear, ITransformer, PatchTST, check_series_input, window_norm

__all__ = ["DLinear", "PatchTST", "TSMixerLite", "ITransformer"]


def _check_sizes(**sizes: int) -> None:
    for name, v in sizes.items():
        check_int(name, v, low=0 if name in ("n_mark", "n_blocks") else 1)


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
        check_series_input(x, self.seq_len, self.n_vars)
        x, mean, std = window_norm(x)
        for tn, tm, fn, fm in zip(self.time, self.time_mlp, self.feat_norm, self.feat_mlp):
            x = x + tm(tn(x).transpose(1, 2)).transpose(1, 2)
            x = x + fm(fn(x))
        return self.head(x.transpose(1, 2)).transpose(1, 2) * std + mean
