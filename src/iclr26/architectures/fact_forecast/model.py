"""FACT: variate embedding, 2-D grid reconfiguration, multi-dilated depthwise Inception blocks and the
frequency branch over the embedding axis; FACTAttn swaps the depthwise conv for attention across variables."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import torch
from torch import nn

from iclr26.checks import check_bool, check_int, check_probability, check_tensor

__all__ = [
    "FACT",
    "AttnBlock",
    "DConvBlock2d",
    "FACTAttn",
    "FrequencyBranch",
    "InceptionDW",
    "grid_side",
    "pad_to_grid",
    "unpad_from_grid",
]


def grid_side(n_vars: int) -> int:
    """Side S = floor(sqrt(N')) + 1 of the square grid that holds N' variables."""
    return math.isqrt(check_int("n_vars (a positive int)", n_vars, low=1)) + 1


def pad_to_grid(h: torch.Tensor) -> torch.Tensor:
    """(B, D, N') -> (B, D, S, S): append variables cyclically (i mod N') to S*S cells, raster reshape."""
    check_tensor("h", h)
    if h.dim() != 3:
        raise ValueError(f"h must have shape (B, D, N), got {tuple(h.shape)}")
    n = h.shape[-1]
    s = grid_side(n)
    idx = torch.arange(s * s, device=h.device) % n
    return h[..., idx].reshape(h.shape[0], h.shape[1], s, s)


def unpad_from_grid(g: torch.Tensor, n_vars: int) -> torch.Tensor:
    """(B, D, S, S) -> (B, D, N'): the first N' cells in raster order (inverse of :func:`pad_to_grid`)."""
    check_tensor("g", g)
    if g.dim() != 4 or g.shape[-1] != g.shape[-2]:
        raise ValueError(f"g must have shape (B, D, S, S), got {tuple(g.shape)}")
    check_int(f"n_vars (in [1, S*S={g.shape[-1] ** 2}])", n_vars, 1, g.shape[-1] ** 2)
    return g.reshape(g.shape[0], g.shape[1], -1)[..., :n_vars]


class InceptionDW(nn.Module):
    """Mean of depthwise Conv2d kernels 1x1 (undilated), 3x3, 5x5, ... at one dilation, padding keeps S x S."""

    def __init__(self, channels: int, num_kernels: int = 4, dilation: int = 1) -> None:
        super().__init__()
        self.channels = check_int("channels", channels, low=1)
        check_int("num_kernels", num_kernels, low=1)
        check_int("dilation", dilation, low=1)
        convs = []
        for i in range(num_kernels):
            k = 2 * i + 1
            d = 1 if k == 1 else dilation
            conv = nn.Conv2d(channels, channels, k, padding=d * (k - 1) // 2, dilation=d, groups=channels)
            nn.init.kaiming_normal_(conv.weight, mode="fan_out", nonlinearity="relu")
            nn.init.zeros_(conv.bias)
            convs.append(conv)
        self.convs = nn.ModuleList(convs)
        self.reach = dilation * (num_kernels - 1)

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        """(B, C, S, S) -> (B, C, S, S)."""
        _check_grid(z, self.channels, "z")
        return torch.stack([c(z) for c in self.convs], dim=-1).mean(-1)


def _check_grid(g: torch.Tensor, channels: int, name: str) -> None:
    check_tensor(name, g, ndim=4, floating=True)
    if g.shape[1] != channels or g.shape[2] != g.shape[3] or g.shape[0] < 1:
        raise ValueError(f"{name} must have shape (B >= 1, C={channels}, S, S), got {tuple(g.shape)}")


def _check_tokens(h: torch.Tensor, channels: int, name: str = "h") -> None:
    check_tensor(name, h, ndim=3, floating=True)
    if h.shape[1] != channels or h.shape[0] < 1 or h.shape[2] < 1:
        raise ValueError(f"{name} must have shape (B >= 1, D={channels}, N >= 1), got {tuple(h.shape)}")


class _FFN(nn.Module):
    def __init__(self, channels: int, d_ff: int, dropout: float) -> None:
        super().__init__()
        self.norm = nn.BatchNorm2d(channels)
        self.up = nn.Conv2d(channels, d_ff, 1)
        self.down = nn.Conv2d(d_ff, channels, 1)
        self.drop = nn.Dropout(dropout)

    def forward(self, y: torch.Tensor) -> torch.Tensor:
        return y + self.down(self.drop(nn.functional.gelu(self.up(self.norm(y)))))


class DConvBlock2d(nn.Module):
    """(B, D, N') -> (B, D, N'): pad to an S x S grid, Y = H + sum_r Incep_r(BN_r(H)) over dilations 1..n,
    BN-FFN residual, unpad. Every conv is depthwise (one kernel per channel = granularity)."""

    def __init__(
        self, d_model: int, d_ff: int, n_dilations: int = 1, num_kernels: int = 4, dropout: float = 0.1
    ) -> None:
        super().__init__()
        self.d_model = check_int("d_model", d_model, low=1)
        check_int("d_ff", d_ff, low=1)
        check_int("n_dilations", n_dilations, low=1)
        check_int("num_kernels", num_kernels, low=1)
        check_probability("dropout", dropout)
        self.norms = nn.ModuleList([nn.BatchNorm2d(d_model) for _ in range(n_dilations)])
        self.incs = nn.ModuleList([InceptionDW(d_model, num_kernels, r) for r in range(1, n_dilations + 1)])
        self.ffn = _FFN(d_model, d_ff, dropout)
        self.reach = n_dilations * (num_kernels - 1)

    def conv_part(self, g: torch.Tensor) -> torch.Tensor:
        """The across-variable part on a grid, Y = H + sum_r Incep_r(BN_r(H)), before the FFN."""
        _check_grid(g, self.d_model, "g")
        return g + sum(inc(bn(g)) for bn, inc in zip(self.norms, self.incs))

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        _check_tokens(h, self.d_model)
        n = h.shape[-1]
        return unpad_from_grid(self.ffn(self.conv_part(pad_to_grid(h))), n)


def _heads(channels: int, n_heads: int) -> int:
    return max(k for k in range(1, n_heads + 1) if channels % k == 0)


class AttnBlock(nn.Module):
    """FACTAttn block (B, D, N') -> (B, D, N'): Y = H + MHA over the N' variable tokens of BN(H), then the same
    BN-FFN residual as :class:`DConvBlock2d` (iTransformer-style mixing across variables)."""

    def __init__(self, d_model: int, d_ff: int, n_heads: int = 4, dropout: float = 0.1) -> None:
        super().__init__()
        self.d_model = check_int("d_model", d_model, low=1)
        check_int("d_ff", d_ff, low=1)
        check_int("n_heads", n_heads, low=1)
        check_probability("dropout", dropout)
        self.norm = nn.BatchNorm1d(d_model)
        self.attn = nn.MultiheadAttention(
            d_model, _heads(d_model, n_heads), dropout=dropout, batch_first=True
        )
        self.ffn = _FFN(d_model, d_ff, dropout)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        _check_tokens(h, self.d_model)
        z = self.norm(h).transpose(1, 2)
        y = h + self.attn(z, z, z, need_weights=False)[0].transpose(1, 2)
        return self.ffn(y.unsqueeze(-1)).squeeze(-1)


BlockFactory = Callable[[int, int, int], nn.Module]  # (channels, d_ff, n_dilations) -> block


class FrequencyBranch(nn.Module):
    """rFFT of H along the embedding axis D; amplitude and phase each go through their own block stack; phase
    wrapped to (-pi, pi]; irFFT of amp * exp(i phase) back to length D."""

    def __init__(
        self, d_model: int, amp_blocks: Sequence[nn.Module], phase_blocks: Sequence[nn.Module]
    ) -> None:
        super().__init__()
        self.d_model = check_int("d_model", d_model, low=1)
        for name, blocks in (("amp_blocks", amp_blocks), ("phase_blocks", phase_blocks)):
            if not all(isinstance(b, nn.Module) for b in blocks):
                raise TypeError(f"{name} must be a sequence of nn.Module blocks, got {list(blocks)!r}")
        self.amp = nn.Sequential(*amp_blocks)
        self.phase = nn.Sequential(*phase_blocks)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        _check_tokens(h, self.d_model)
        spec = torch.fft.rfft(h, dim=1)
        amp = self.amp(spec.abs())
        ph = self.phase(spec.angle())
        ph = torch.atan2(torch.sin(ph), torch.cos(ph))
        return torch.fft.irfft(torch.polar(amp, ph), n=self.d_model, dim=1)


class FACT(nn.Module):
    """FACT forecaster: ``forward(x (B, L, N), x_mark (B, L, n_mark) | None) -> (B, F, N)``.

    The time marks are appended as extra variables and every variable (marks included) is normalised over the
    lookback window (the official order); then a shared linear embedding of each variable's lookback (L -> D
    channels = granularities), a time stack of :class:`DConvBlock2d` (one per entry of `dilations`, that entry
    being its number of dilation branches) and a :class:`FrequencyBranch`, fused as
    ``core * time + (1 - core) * freq``, a shared D -> F projection, de-normalisation.
    """

    def __init__(
        self,
        seq_len: int,
        pred_len: int,
        n_vars: int,
        n_mark: int = 0,
        d_model: int = 64,
        d_ff: int = 64,
        dilations: Sequence[int] = (1, 2, 1),
        num_kernels: int = 4,
        core: float = 0.5,
        use_norm: bool = True,
        dropout: float = 0.1,
        block: BlockFactory | None = None,
    ) -> None:
        super().__init__()
        for name, v in (
            ("seq_len", seq_len),
            ("pred_len", pred_len),
            ("n_vars", n_vars),
            ("d_model", d_model),
            ("d_ff", d_ff),
        ):
            check_int(f"{name} (a positive int)", v, low=1)
        check_int("n_mark", n_mark, low=0)
        if isinstance(dilations, (str, bytes)) or not isinstance(dilations, Sequence):
            raise ValueError(f"dilations must be a non-empty list of positive ints, got {dilations!r}")
        dilations = list(dilations)
        if not dilations:
            raise ValueError("dilations must be a non-empty list of positive ints, got an empty list")
        for r in dilations:
            check_int("dilations (each, a positive int)", r, low=1)
        check_int("num_kernels", num_kernels, low=1)
        check_probability("core", core)
        check_probability("dropout", dropout)
        check_bool("use_norm", use_norm)
        if block is not None and not callable(block):
            raise TypeError(
                f"block must be None or a callable (channels, d_ff, n_dilations) -> module, got {block!r}"
            )
        self.seq_len, self.pred_len, self.n_vars, self.n_mark = seq_len, pred_len, n_vars, n_mark
        self.core, self.use_norm, self.dilations = core, use_norm, dilations
        if block is None:

            def block(c: int, f: int, n: int) -> nn.Module:
                return DConvBlock2d(c, f, n, num_kernels, dropout)

        self.embed = nn.Conv1d(seq_len, d_model, 1)
        self.time = nn.Sequential(*[block(d_model, d_ff, n) for n in dilations])
        self.freq: FrequencyBranch | None = None
        if core < 1.0:
            nf = d_model // 2 + 1
            self.freq = FrequencyBranch(
                d_model, [block(nf, d_ff, n) for n in dilations], [block(nf, d_ff, n) for n in dilations]
            )
        self.proj = nn.Conv1d(d_model, pred_len, 1)

    def _check(self, x: torch.Tensor, x_mark: torch.Tensor | None) -> None:
        if not isinstance(x, torch.Tensor) or x.dim() != 3:
            raise ValueError(f"x must be a tensor of shape (B, L, N), got {getattr(x, 'shape', type(x))}")
        check_tensor("x", x, floating=True, finite=True)
        if x.shape[0] < 1:
            raise ValueError(f"x must hold at least one window (B >= 1), got shape {tuple(x.shape)}")
        if x.shape[1] != self.seq_len:
            raise ValueError(f"x lookback length L={x.shape[1]} does not match seq_len={self.seq_len}")
        if x.shape[2] != self.n_vars:
            raise ValueError(
                f"x has N={x.shape[2]} variables but the model was built for n_vars={self.n_vars}"
            )
        if x_mark is None:
            if self.n_mark:
                raise ValueError(f"x_mark is required: the model was built with n_mark={self.n_mark}")
            return
        check_tensor("x_mark", x_mark, floating=True, finite=True)
        if x_mark.dim() != 3 or x_mark.shape[:2] != x.shape[:2] or x_mark.shape[2] != self.n_mark:
            raise ValueError(
                f"x_mark must have shape (B, L, n_mark={self.n_mark}) = {(*x.shape[:2], self.n_mark)}, "
                f"got {tuple(x_mark.shape)}"
            )

    def forward(self, x: torch.Tensor, x_mark: torch.Tensor | None = None) -> torch.Tensor:
        self._check(x, x_mark)
        # as the official code: the marks are appended first, then every channel (marks included) is
        # normalised over the lookback window
        if x_mark is not None and self.n_mark:
            x = torch.cat([x, x_mark], dim=-1)
        if self.use_norm:
            mean = x.mean(1, keepdim=True)
            std = torch.sqrt(x.var(1, keepdim=True, unbiased=False) + 1e-5)
            x = (x - mean) / std
        h = self.embed(x)  # (B, D, N')
        z = self.time(h)
        if self.freq is not None:
            z = self.core * z + (1.0 - self.core) * self.freq(h)
        out = self.proj(z)  # (B, F, N')
        if self.use_norm:
            out = out * std + mean
        return out[..., : self.n_vars]  # (B, F, N)


class FACTAttn(FACT):
    """FACT with every DConvBlock's depthwise conv part replaced by multi-head attention across the variables."""

    def __init__(self, *args, n_heads: int = 4, dropout: float = 0.1, **kwargs) -> None:
        check_int("n_heads", n_heads, low=1)

        def block(c: int, f: int, n: int) -> nn.Module:
            return AttnBlock(c, f, n_heads, dropout)

        super().__init__(*args, dropout=dropout, block=block, **kwargs)
