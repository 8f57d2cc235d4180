"""PHAT (arXiv 2602.00654): RevIN, a per-variable linear base forecast over the horizon, periodic buckets,
one pre-norm block (DyT, positive-negative attention, SwiGLU) per bucket on its period grid, frequency-saliency
fusion, and the output ``0.5 (Y + X^)``.

Bucket ``B_{r,P} = {c : P_{r,c} = P}``: tokens ``Z_B[t] = sum_{c in B} X^_c[t] E[:, c] + b`` (F, d), folded to
(P, N, d), through the block, unfolded, decoded per variable ``Y_c += (z . D[c]) * mean_{c' in B} w_{r,c'}``.
"""

from __future__ import annotations

import math

import torch
from torch import nn
from torch.nn import functional as F

from iclr26.architectures.phat.attention import DyT, PNAttention
from iclr26.architectures.phat.periods import LAYOUTS, detect_periods, fold, unfold
from iclr26.checks import check_choice, check_float, check_int, check_probability, check_tensor

__all__ = ["PHAT", "PHATBlock", "RevIN", "SwiGLU"]

BUCKET_MODES = ("period", "shared", "independent")


class RevIN(nn.Module):
    """Reversible instance normalisation over the lookback with a learnable affine map per variable."""

    def __init__(self, n_vars: int, eps: float = 1e-5) -> None:
        super().__init__()
        check_float("eps", eps, low=0.0, low_open=True)
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(n_vars))
        self.bias = nn.Parameter(torch.zeros(n_vars))

    def normalize(self, x: torch.Tensor) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor]]:
        mean = x.mean(1, keepdim=True).detach()
        std = torch.sqrt(x.var(1, keepdim=True, unbiased=False) + self.eps).detach()
        return (x - mean) / std * self.weight + self.bias, (mean, std)

    def denormalize(self, y: torch.Tensor, stats: tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
        mean, std = stats
        return (y - self.bias) / (self.weight + self.eps**2) * std + mean


class SwiGLU(nn.Module):
    """``W3 dropout(silu(W1 x) * W2 x)`` with hidden width ``round(expand * d)``."""

    def __init__(self, d_model: int, dropout: float = 0.3, expand: float = 2.66667) -> None:
        super().__init__()
        check_probability("dropout", dropout)
        check_float("expand", expand, low=0.0, low_open=True)
        hidden = round(expand * d_model)
        self.w1, self.w2 = nn.Linear(d_model, hidden), nn.Linear(d_model, hidden)
        self.w3 = nn.Linear(hidden, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        check_tensor("x", x, floating=True)
        if x.ndim < 1 or x.shape[-1] != self.w1.in_features:
            raise ValueError(f"x must have shape (..., d_model={self.w1.in_features}), got {tuple(x.shape)}")
        return self.w3(self.dropout(F.silu(self.w1(x)) * self.w2(x)))


class PHATBlock(nn.Module):
    """``Z <- Z + PNA(DyT(Z)); Z <- Z + SwiGLU(DyT(Z))`` on a period grid (B, P, N, d)."""

    def __init__(self, d_model: int, n_heads: int, dropout: float = 0.3, **attn_flags: bool) -> None:
        super().__init__()
        check_probability("dropout", dropout)
        self.attn = PNAttention(d_model, n_heads, **attn_flags)
        self.ffn = SwiGLU(d_model, dropout)
        self.norm1, self.norm2 = DyT(d_model), DyT(d_model)

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        check_tensor("z", z, floating=True)
        if z.ndim < 1 or z.shape[-1] != self.ffn.w1.in_features:
            raise ValueError(
                f"z must have shape (..., d_model={self.ffn.w1.in_features}), got {tuple(z.shape)}"
            )
        z = z + self.attn(self.norm1(z))
        return z + self.ffn(self.norm2(z))


class PHAT(nn.Module):
    """PHAT forecaster ``x (batch, seq_len, n_vars) -> (batch, pred_len, n_vars)``.

    bucket_mode: ``"period"`` (the paper), ``"shared"`` (one bucket of all variables with the dominant period
    of the variable-averaged spectrum) or ``"independent"`` (one bucket per variable, "w/o Bucket").
    fold_layout: ``"paper"`` (``Z[o, n] = z[n P + o]``) or ``"code"`` (the released reshape).
    Attention flags (``offset``, ``modulation``, ``negative``, ``aligned``, ``lambda_residual``,
    ``head_norm``) are passed to :class:`PNAttention`.

    Example
    -------
    >>> model = PHAT(48, 12, 5, d_model=16, n_heads=4, top_k=2)
    >>> model(torch.randn(3, 48, 5)).shape
    torch.Size([3, 12, 5])
    """

    def __init__(
        self,
        seq_len: int,
        pred_len: int,
        n_vars: int,
        d_model: int = 512,
        n_heads: int = 8,
        n_layers: int = 1,
        top_k: int = 1,
        dropout: float = 0.3,
        bucket_mode: str = "period",
        fold_layout: str = "paper",
        min_weight: float = 0.02,
        **attn_flags: bool,
    ) -> None:
        super().__init__()
        self.seq_len = check_int("seq_len", seq_len, low=2)
        self.pred_len = check_int("horizon (pred_len)", pred_len, low=1)
        self.n_vars = check_int("n_vars (C)", n_vars, low=1)
        check_int("d_model", d_model, low=1)
        check_int("n_layers", n_layers, low=1)
        self.top_k = check_int(f"top_k (k, in [1, L/2={seq_len // 2}])", top_k, 1, seq_len // 2)
        check_probability("dropout", dropout)
        self.bucket_mode = check_choice("bucket_mode", bucket_mode, BUCKET_MODES)
        self.fold_layout = check_choice("fold_layout", fold_layout, LAYOUTS)
        self.min_weight = check_float("min_weight", min_weight, 0.0, 1.0)
        unknown = set(attn_flags) - {
            "offset",
            "modulation",
            "negative",
            "aligned",
            "lambda_residual",
            "head_norm",
        }
        if unknown:
            raise ValueError(f"unknown attention flag(s) {sorted(unknown)}")
        self.d_model = d_model
        self.revin = RevIN(n_vars)
        bound = 1 / math.sqrt(seq_len)
        self.base_weight = nn.Parameter(torch.empty(n_vars, seq_len, pred_len).uniform_(-bound, bound))
        self.base_bias = nn.Parameter(torch.empty(n_vars, pred_len).uniform_(-bound, bound))
        self.encoder = nn.Linear(n_vars, d_model)  # E = weight (d, C), b = bias (d)
        self.decoder = nn.Linear(d_model, n_vars)  # D = weight (C, d), decoder bias (C)
        self.blocks = nn.Sequential(
            *(PHATBlock(d_model, n_heads, dropout, **attn_flags) for _ in range(n_layers))
        )

    def base_forecast(self, xn: torch.Tensor) -> torch.Tensor:
        """Per-variable linear map L -> F of the normalised lookback: (B, L, C) -> (B, F, C)."""
        return torch.einsum("blc,clf->bfc", xn, self.base_weight) + self.base_bias.T

    def buckets(self, xn: torch.Tensor) -> list[tuple[int, int, torch.Tensor, torch.Tensor]]:
        """(rank, period, variable indices, per-sample fusion weight (B,)) of every bucket that is run."""
        periods, weights = detect_periods(xn, self.top_k, self.pred_len, shared=self.bucket_mode == "shared")
        out = []
        for r in range(self.top_k):
            if self.bucket_mode == "independent":
                groups = [(int(periods[r, c]), torch.tensor([c])) for c in range(self.n_vars)]
            else:
                groups = [(int(p), torch.where(periods[r] == p)[0]) for p in torch.unique(periods[r])]
            for p, idx in groups:
                w = weights[:, r, idx].mean(-1)
                if float(w.mean()) >= self.min_weight:
                    out.append((r, p, idx, w))
        return out

    def bucket_pass(self, xhat: torch.Tensor, idx: torch.Tensor, period: int) -> torch.Tensor:
        """Attention path of one bucket: (B, F, C) base forecast -> (B, F, |idx|) per-variable outputs."""
        z = xhat[..., idx] @ self.encoder.weight[:, idx].T + self.encoder.bias  # (B, F, d)
        grid = self.blocks(fold(z, period, self.fold_layout))
        z = unfold(grid, self.pred_len, self.fold_layout)
        return z @ self.decoder.weight[idx].T

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        check_tensor("x", x, ndim=3, floating=True, finite=True, shape=(None, self.seq_len, self.n_vars))
        if x.shape[0] < 1:
            raise ValueError(f"x must hold at least one window (B >= 1), got shape {tuple(x.shape)}")
        xn, stats = self.revin.normalize(x)
        xhat = self.base_forecast(xn)
        y = torch.zeros_like(xhat)
        for _, p, idx, w in self.buckets(xn):
            y = y.index_add(2, idx, self.bucket_pass(xhat, idx, p) * w[:, None, None])
        y = y + self.decoder.bias
        return self.revin.denormalize(0.5 * (y + xhat), stats)
