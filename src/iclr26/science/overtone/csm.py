"""Cyclic Stride Modulation (CSM): a two-layer convolutional tokenizer whose strides change per call.

Paper: "Overtone: Cyclic Patch Modulation for Clean, Efficient, and Flexible Physics Emulators" (Mukhopadhyay,
McCabe, Ohana, Cranmer; ICLR 2026, OpenReview itUo64aUeK, arXiv 2507.09264).

The hMLP tokenizer is conv(k1, s1) -> GroupNorm -> GELU -> conv(k2, s2) -> GroupNorm -> GELU, C -> D/4 -> D.
CSM keeps the kernels at their base sizes (k1, k2) and picks the strides (s1, s2) per call, so the effective
patch is p = s1 s2; a stride below its kernel makes overlapping windows (more tokens, more compute). The decoder
mirrors it: ConvTranspose(k2, s2) -> GroupNorm -> GELU -> ConvTranspose(k1, s1), D -> D/4 -> C_out. For the
decoder to return exactly the input size, each axis of length H is padded by

    extra = (s1 s2 - ((H - k1 + s1 - k2 s1) mod s1 s2)) mod s1 s2,          (split evenly on both sides)

and then has (H + extra - k1 + s1 - k2 s1) / (s1 s2) + 1 tokens. Periodic data are padded circularly; other data
with zeros plus a learned per-channel padding token on the padded border. The decoder crops the padding.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torch import nn

from iclr26.checks import check_choice, check_int, check_tensor

__all__ = [
    "BOUNDARIES",
    "CSMDecoder2d",
    "CSMEncoder2d",
    "check_strides",
    "crop_centre",
    "extra_padding",
    "token_count",
]

BOUNDARIES = ("periodic", "constant")
Strides = tuple[int, int]


def extra_padding(H: int, k: Sequence[int], s: Sequence[int]) -> int:
    """Total padding of an axis of length H so that conv(k1, s1) -> conv(k2, s2) tiles it exactly and the mirrored
    transposed convolutions give H + pad back: (s1 s2 - ((H - k1 + s1 - k2 s1) mod s1 s2)) mod s1 s2.

    >>> extra_padding(64, (4, 4), (2, 2)), extra_padding(64, (4, 4), (4, 2)), extra_padding(64, (8, 4), (4, 4))
    (2, 0, 4)
    """
    H = check_int("H", H, low=1)
    k1, k2 = (check_int("k", int(v), low=1) for v in k) if len(k) == 2 else _bad_pair("k", k)
    s1, s2 = (check_int("stride", int(v), low=1) for v in s) if len(s) == 2 else _bad_pair("s", s)
    p = s1 * s2
    return (p - ((H - k1 + s1 - k2 * s1) % p)) % p


def token_count(H: int, k: Sequence[int], s: Sequence[int]) -> int:
    """Tokens along an axis of length H (after the padding of :func:`extra_padding`):
    (H + pad - k1 + s1 - k2 s1) / (s1 s2) + 1. Equal to (H + pad) / p only when the strides equal the kernels."""
    (k1, k2), (s1, s2) = k, s
    total = H + extra_padding(H, k, s)
    if total < k1 + (k2 - 1) * s1:
        raise ValueError(
            f"an axis of length {H} is shorter than the receptive field {k1 + (k2 - 1) * s1} of one token"
        )
    return (total - k1 + s1 - k2 * s1) // (s1 * s2) + 1


def _bad_pair(name: str, value) -> tuple[int, int]:
    raise ValueError(f"{name} must be a pair of positive ints (layer 1, layer 2), got {value!r}")


def check_strides(strides, stride_set: Sequence[Strides]) -> Strides:
    """``strides`` as a pair (s1, s2) from ``stride_set``; an int p selects the pair with s1 s2 = p."""
    if isinstance(strides, int) and not isinstance(strides, bool):
        check_int("strides (a patch size)", strides, low=1)
        match = [s for s in stride_set if s[0] * s[1] == strides]
        if not match:
            sizes = sorted({a * b for a, b in stride_set})
            raise ValueError(
                f"patch size {strides} is not in the trained set {sizes} (strides {list(stride_set)})"
            )
        return match[0]
    try:
        pair = tuple(int(v) for v in strides)
        ok = len(pair) == 2 and all(int(v) == v for v in strides)
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise ValueError(f"strides must be a pair (s1, s2) or a patch size int, got {strides!r}")
    if min(pair) <= 0:
        raise ValueError(f"stride must be positive, got strides {pair}")
    if pair not in stride_set:
        raise ValueError(f"strides {pair} are not in the trained set {list(stride_set)}")
    return pair  # type: ignore[return-value]


def _check_kernel_and_set(base_kernel, stride_set) -> tuple[Strides, tuple[Strides, ...]]:
    if len(tuple(base_kernel)) != 2:
        raise ValueError(f"base_kernel must be a pair (k1, k2), got {base_kernel!r}")
    k = tuple(check_int("base_kernel", int(v), low=1) for v in base_kernel)
    sset = tuple(tuple(int(v) for v in s) for s in stride_set)
    if not sset or any(len(s) != 2 or min(s) <= 0 for s in sset):
        raise ValueError(
            f"stride_set must be a non-empty list of positive pairs (s1, s2), got {stride_set!r}"
        )
    if len({a * b for a, b in sset}) != len(sset):
        raise ValueError(f"stride_set must give distinct patch sizes s1 s2, got {stride_set!r}")
    for s in sset:
        if s[0] > k[0] or s[1] > k[1]:
            raise ValueError(f"each stride must be <= its kernel {k} (no gaps between windows), got {s}")
    return k, sset  # type: ignore[return-value]


def check_channels(x: torch.Tensor, expected: int, what: str) -> torch.Tensor:
    """x must be a floating (B, C, H, W) tensor with C = expected (``what`` names it: "in_channels", ...)."""
    check_tensor("x", x, ndim=4, floating=True)
    if x.shape[1] != expected:
        role = "encoder" if what == "in_channels" else "decoder"
        raise ValueError(f"x has {x.shape[1]} channels, the {role} expects {what} = {expected}")
    return x


def add_encoder_layers(
    m: nn.Module, in_channels: int, hidden_dim: int, k1: int, k2: int, groups: int
) -> None:
    """The tokenizer stack Conv(k1) -> GroupNorm -> GELU -> Conv(k2) -> GroupNorm -> GELU (weights only; the
    strides or resized kernels are the caller's), registered on `m` in this order."""
    m.proj1 = nn.Conv2d(in_channels, hidden_dim // 4, k1, bias=False)
    m.norm1 = nn.GroupNorm(groups, hidden_dim // 4)
    m.proj2 = nn.Conv2d(hidden_dim // 4, hidden_dim, k2, bias=False)
    m.norm2 = nn.GroupNorm(groups, hidden_dim)


def add_decoder_layers(
    m: nn.Module, hidden_dim: int, out_channels: int, k1: int, k2: int, groups: int
) -> None:
    """The mirrored stack ConvTranspose(k2) -> GroupNorm -> GELU -> ConvTranspose(k1), registered on `m`."""
    m.proj1 = nn.ConvTranspose2d(hidden_dim, hidden_dim // 4, k2, bias=False)
    m.norm1 = nn.GroupNorm(groups, hidden_dim // 4)
    m.proj2 = nn.ConvTranspose2d(hidden_dim // 4, out_channels, k1)


def pad_boundary(
    x: torch.Tensor, ph: int, pw: int, boundary: str, pad_token: torch.Tensor | None
) -> torch.Tensor:
    """x padded by (ph, pw) in total, split evenly: circularly ("periodic"), or with zeros plus the learned
    ``pad_token`` on the border only ("constant")."""
    if not (ph or pw):
        return x
    pad = (pw // 2, pw // 2, ph // 2, ph // 2)
    if boundary == "periodic":
        if ph // 2 > x.shape[-2] or pw // 2 > x.shape[-1]:
            raise ValueError(f"circular padding {pad} exceeds the input size {tuple(x.shape[-2:])}")
        return F.pad(x, pad, mode="circular")
    out = F.pad(x, pad)
    border = torch.ones_like(out[:1, :1])
    border[..., ph // 2 : out.shape[-2] - ph // 2, pw // 2 : out.shape[-1] - pw // 2] = 0.0
    return out + border * pad_token.view(1, -1, 1, 1)


class CSMEncoder2d(nn.Module):
    """The CSM tokenizer: (B, C, H, W) -> (B, D, h, w) with strides chosen per call.

    Parameters
    ----------
    in_channels : C.
    hidden_dim : D (the first layer has D // 4 channels).
    base_kernel : (k1, k2), the fixed kernel sizes (the paper's base (8, 4)).
    stride_set : the trained strides (s1, s2) (the paper's {(2, 2), (4, 2), (4, 4), (8, 4)}).
    groups : GroupNorm groups (must divide D // 4).
    boundary : "periodic" (circular padding) or "constant" (zeros plus a learned padding token).

    Example
    -------
    >>> import torch
    >>> enc = CSMEncoder2d(1, 32, base_kernel=(4, 4), stride_set=[(2, 2), (4, 2), (4, 4)], groups=4)
    >>> enc(torch.randn(2, 1, 64, 64), (2, 2)).shape
    torch.Size([2, 32, 15, 15])
    """

    def __init__(
        self,
        in_channels: int,
        hidden_dim: int,
        base_kernel: Sequence[int] = (8, 4),
        stride_set: Sequence[Sequence[int]] = ((2, 2), (4, 2), (4, 4), (8, 4)),
        groups: int = 12,
        boundary: str = "periodic",
    ) -> None:
        super().__init__()
        self.in_channels = check_int("in_channels", in_channels, low=1)
        self.hidden_dim = check_int("hidden_dim", hidden_dim, low=4)
        if hidden_dim % 4 or (hidden_dim // 4) % check_int("groups", groups, low=1):
            raise ValueError(
                f"groups ({groups}) must divide hidden_dim // 4 ({hidden_dim // 4}), hidden_dim % 4 == 0"
            )
        self.base_kernel, self.stride_set = _check_kernel_and_set(base_kernel, stride_set)
        self.boundary = check_choice("boundary", boundary, BOUNDARIES)
        add_encoder_layers(self, in_channels, hidden_dim, *self.base_kernel, groups)
        self.pad_token = nn.Parameter(torch.zeros(in_channels)) if boundary == "constant" else None

    def padding(self, H: int, W: int, strides) -> tuple[int, int]:
        """Total padding (rows, columns) for an (H, W) input at these strides (each even)."""
        s = check_strides(strides, self.stride_set)
        pads = (extra_padding(H, self.base_kernel, s), extra_padding(W, self.base_kernel, s))
        for axis, pad in zip(("H", "W"), pads):
            if pad % 2:
                raise ValueError(
                    f"the padding of axis {axis} ({pad}) is odd for strides {s}; choose an even size "
                    "(padding is split evenly on both sides)"
                )
        return pads

    def pad(self, x: torch.Tensor, strides) -> torch.Tensor:
        """x padded (circularly, or with zeros plus the padding token) to the size the strides tile."""
        ph, pw = self.padding(x.shape[-2], x.shape[-1], strides)
        return pad_boundary(x, ph, pw, self.boundary, self.pad_token)

    def check_input(self, x: torch.Tensor) -> torch.Tensor:
        return check_channels(x, self.in_channels, "in_channels")

    def forward(self, x: torch.Tensor, strides) -> torch.Tensor:
        """Tokens (B, D, h, w) of x (B, C, H, W) at strides (s1, s2) (or a patch size p = s1 s2 of the set)."""
        self.check_input(x)
        s = check_strides(strides, self.stride_set)
        x = self.pad(x, s)
        x = F.gelu(self.norm1(F.conv2d(x, self.proj1.weight, stride=s[0])))
        return F.gelu(self.norm2(F.conv2d(x, self.proj2.weight, stride=s[1])))


class CSMDecoder2d(nn.Module):
    """The mirrored CSM decoder: tokens (B, D, h, w) -> (B, C_out, H, W) at the encoder's strides.

    ``forward(x, strides, out_shape)`` crops the centred padding back to ``out_shape`` = (H, W) (the encoder's
    input size); without it the padded field is returned.
    """

    def __init__(
        self,
        out_channels: int,
        hidden_dim: int,
        base_kernel: Sequence[int] = (8, 4),
        stride_set: Sequence[Sequence[int]] = ((2, 2), (4, 2), (4, 4), (8, 4)),
        groups: int = 12,
    ) -> None:
        super().__init__()
        self.out_channels = check_int("out_channels", out_channels, low=1)
        self.hidden_dim = check_int("hidden_dim", hidden_dim, low=4)
        if hidden_dim % 4 or (hidden_dim // 4) % check_int("groups", groups, low=1):
            raise ValueError(
                f"groups ({groups}) must divide hidden_dim // 4 ({hidden_dim // 4}), hidden_dim % 4 == 0"
            )
        self.base_kernel, self.stride_set = _check_kernel_and_set(base_kernel, stride_set)
        add_decoder_layers(self, hidden_dim, out_channels, *self.base_kernel, groups)

    def forward(self, x: torch.Tensor, strides, out_shape: Sequence[int] | None = None) -> torch.Tensor:
        check_channels(x, self.hidden_dim, "hidden_dim")
        s = check_strides(strides, self.stride_set)
        x = F.gelu(self.norm1(F.conv_transpose2d(x, self.proj1.weight, stride=s[1])))
        x = F.conv_transpose2d(x, self.proj2.weight, self.proj2.bias, stride=s[0])
        return x if out_shape is None else crop_centre(x, out_shape)


def crop_centre(x: torch.Tensor, out_shape: Sequence[int]) -> torch.Tensor:
    """The centred (H, W) window of x (..., H + ph, W + pw) (ph, pw even: the padding split on both sides)."""
    H, W = (int(v) for v in out_shape)
    ph, pw = x.shape[-2] - H, x.shape[-1] - W
    if ph < 0 or pw < 0 or ph % 2 or pw % 2:
        raise ValueError(
            f"cannot crop {tuple(x.shape[-2:])} to out_shape {(H, W)} (need an even, >= 0 margin)"
        )
    return x[..., ph // 2 : ph // 2 + H, pw // 2 : pw // 2 + W]
