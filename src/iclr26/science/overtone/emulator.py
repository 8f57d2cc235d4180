"""The patch-modulated emulator: hMLP tokenizer (CSM or CKM) -> small ViT on the token grid -> mirrored decoder.

Paper: "Overtone: Cyclic Patch Modulation for Clean, Efficient, and Flexible Physics Emulators" (ICLR 2026, arXiv
2507.09264). The model maps a history (u_{t-1}, u_t) to u_{t+1} = u_t + Delta, the network predicting the
increment Delta. One set of weights serves every patch size of its set: the processor sees a token grid whose size
depends on the patch, so its positions are sinusoidal functions of each token's centre in the (periodic) domain,

    pe(y, x) = [sin(2 pi m y / H), cos(2 pi m y / H), sin(2 pi m x / W), cos(2 pi m x / W)]_{m = 1..D/4},

computed from the token coordinates (the centre of its receptive field), not from its index.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from torch import nn

from iclr26.checks import check_choice, check_float, check_int, check_tensor
from iclr26.science.overtone.ckm import CKMDecoder2d, CKMEncoder2d, kernel_partition
from iclr26.science.overtone.csm import CSMDecoder2d, CSMEncoder2d, check_strides, extra_padding

__all__ = ["PatchModulatedEmulator", "token_centres", "sinusoidal_positions"]


def token_centres(
    n_tokens: int, length: int, kernel: Sequence[int], strides: Sequence[int], pad: int
) -> torch.Tensor:
    """Centres (in input pixels, pad removed) of the n_tokens windows of conv(k1, s1) -> conv(k2, s2) on an axis."""
    (k1, k2), (s1, s2) = kernel, strides
    span = k1 + (k2 - 1) * s1  # receptive field of one token
    i = torch.arange(n_tokens, dtype=torch.float64)
    return (i * s1 * s2 + (span - 1) / 2.0 - pad / 2.0) % length


def sinusoidal_positions(ys: torch.Tensor, xs: torch.Tensor, H: int, W: int, dim: int) -> torch.Tensor:
    """(len(ys) * len(xs), dim) periodic sinusoidal features of token centres (dim a multiple of 4)."""
    m = torch.arange(1, dim // 4 + 1, dtype=torch.float64)
    ay = 2 * math.pi * ys[:, None] * m / H
    ax = 2 * math.pi * xs[:, None] * m / W
    fy = torch.cat([ay.sin(), ay.cos()], dim=-1)  # (h, dim/2)
    fx = torch.cat([ax.sin(), ax.cos()], dim=-1)  # (w, dim/2)
    h, w = len(ys), len(xs)
    return torch.cat([fy[:, None, :].expand(h, w, -1), fx[None, :, :].expand(h, w, -1)], dim=-1).reshape(
        h * w, dim
    )


class PatchModulatedEmulator(nn.Module):
    """Next-step emulator u_{t+1} = u_t + f(u_{t-1}, u_t; p) with a patch size p chosen per call.

    Parameters
    ----------
    channels : fields per frame C.
    history : frames in (2 here: u_{t-1}, u_t).
    hidden_dim, depth, heads : the ViT processor (the brief's D = 96, 4 layers, 4 heads).
    base_kernel : the tokenizer's (k1, k2).
    stride_set : the trained strides (CSM) - their products are the patch sizes.
    mode : "csm" (stride modulation) or "ckm" (kernel modulation, patch sizes = the stride set's products).
    groups : GroupNorm groups in the tokenizer.
    boundary : "periodic" or "constant".
    increment_scale : the network's output is Delta / increment_scale (set it to the data's increment scale so
        the network's target has unit order).

    ``forward(history, patch)`` takes history (B, history, C, H, W) and an int patch size (or CSM strides) and
    returns u_{t+1} of shape (B, C, H, W); ``increment`` returns Delta alone.

    Example
    -------
    >>> import torch
    >>> m = PatchModulatedEmulator(1, hidden_dim=32, depth=1, heads=2, base_kernel=(4, 4),
    ...                            stride_set=[(2, 2), (4, 2), (4, 4)], groups=4)
    >>> m(torch.randn(2, 2, 1, 32, 32), 8).shape
    torch.Size([2, 1, 32, 32])
    """

    def __init__(
        self,
        channels: int = 1,
        history: int = 2,
        hidden_dim: int = 96,
        depth: int = 4,
        heads: int = 4,
        base_kernel: Sequence[int] = (8, 4),
        stride_set: Sequence[Sequence[int]] = ((2, 2), (4, 2), (4, 4), (8, 4)),
        mode: str = "csm",
        groups: int = 12,
        boundary: str = "periodic",
        increment_scale: float = 1.0,
    ) -> None:
        super().__init__()
        self.increment_scale = check_float("increment_scale", increment_scale, low=0.0, low_open=True)
        self.channels = check_int("channels", channels, low=1)
        self.history = check_int("history", history, low=1)
        self.hidden_dim = check_int("hidden_dim", hidden_dim, low=4)
        if hidden_dim % 4 or hidden_dim % check_int("heads", heads, low=1):
            raise ValueError(f"hidden_dim ({hidden_dim}) must be a multiple of 4 and of heads ({heads})")
        check_int("depth", depth, low=0)
        self.mode = check_choice("mode", mode, ("csm", "ckm"))
        c_in = channels * history
        if mode == "csm":
            self.encoder = CSMEncoder2d(c_in, hidden_dim, base_kernel, stride_set, groups, boundary)
            self.decoder = CSMDecoder2d(channels, hidden_dim, base_kernel, stride_set, groups)
            self.stride_set = self.encoder.stride_set
        else:
            sset = tuple(tuple(int(v) for v in s) for s in stride_set)
            patches = tuple(a * b for a, b in sset)
            self.encoder = CKMEncoder2d(c_in, hidden_dim, base_kernel, patches, groups, boundary)
            self.decoder = CKMDecoder2d(channels, hidden_dim, base_kernel, patches, groups)
            self.stride_set = sset
        self.base_kernel = self.encoder.base_kernel
        layer = nn.TransformerEncoderLayer(
            hidden_dim,
            heads,
            4 * hidden_dim,
            dropout=0.0,
            activation="gelu",
            batch_first=True,
            norm_first=True,
        )
        self.processor = (
            nn.TransformerEncoder(layer, depth, enable_nested_tensor=False) if depth else nn.Identity()
        )
        self.norm = nn.LayerNorm(hidden_dim)

    @property
    def patch_sizes(self) -> tuple[int, ...]:
        """The trained patch sizes p = s1 s2."""
        return tuple(a * b for a, b in self.stride_set)

    def _geometry(self, patch, H: int, W: int):
        if self.mode == "csm":
            s = check_strides(patch, self.stride_set)
            return (
                s,
                self.base_kernel,
                s,
                extra_padding(H, self.base_kernel, s),
                extra_padding(W, self.base_kernel, s),
            )
        k = kernel_partition(patch, self.base_kernel)
        p = k[0] * k[1]
        return p, k, k, (-H) % p, (-W) % p

    def check_history(self, history: torch.Tensor) -> torch.Tensor:
        check_tensor("history", history, ndim=5, floating=True)
        if history.shape[1] != self.history or history.shape[2] != self.channels:
            raise ValueError(
                f"history must have shape (B, {self.history}, {self.channels}, H, W), got {tuple(history.shape)}"
            )
        return history

    def increment(self, history: torch.Tensor, patch) -> torch.Tensor:
        """The network's output: Delta / increment_scale, Delta = u_{t+1} - u_t, from history (B, T, C, H, W)."""
        self.check_history(history)
        B, T, C, H, W = history.shape
        arg, kernel, strides, ph, pw = self._geometry(patch, H, W)
        z = self.encoder(history.reshape(B, T * C, H, W), arg)
        h, w = z.shape[-2:]
        pos = sinusoidal_positions(
            token_centres(h, H, kernel, strides, ph),
            token_centres(w, W, kernel, strides, pw),
            H,
            W,
            self.hidden_dim,
        ).to(z)
        tokens = z.flatten(2).transpose(1, 2) + pos  # (B, h w, D)
        tokens = self.norm(self.processor(tokens))
        z = tokens.transpose(1, 2).reshape(B, self.hidden_dim, h, w)
        return self.decoder(z, arg, out_shape=(H, W))

    def forward(self, history: torch.Tensor, patch) -> torch.Tensor:
        """u_{t+1} = u_t + Delta, shape (B, C, H, W)."""
        check_tensor("history", history, ndim=5, floating=True)
        return history[:, -1] + self.increment_scale * self.increment(history, patch)

    def n_tokens(self, H: int, W: int, patch) -> int:
        """Processor tokens for an (H, W) input at this patch size."""
        with torch.no_grad():
            z = self.encoder(
                torch.zeros(1, self.history * self.channels, H, W), self._geometry(patch, H, W)[0]
            )
        return int(z.shape[-2] * z.shape[-1])
