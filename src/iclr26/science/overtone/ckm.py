"""Convolutional Kernel Modulation (CKM): the hMLP tokenizer with its kernels resized per call (FlexiViT PI-resize).

Paper: "Overtone: Cyclic Patch Modulation for Clean, Efficient, and Flexible Physics Emulators" (ICLR 2026, arXiv
2507.09264). CKM resizes the kernels (k1, k2) to (k1', k2') with stride = kernel (non-overlapping windows, patch
p = k1' k2'). The resize is FlexiViT's pseudo-inverse resize: with B (new numel x base numel) the matrix whose
columns are the bicubic resizes (no antialiasing) of the base shape's basis vectors,

    w' = pinv(B^T) vec(w)          (per (out, in) channel pair: the minimum-norm solution of B^T w' = w),

so <resize(x), w'> = x^T B^T w' = <x, w> exactly when the resize is an upsampling (B^T has full row rank), and
approximately otherwise. The decoder's transposed-convolution kernels are resized the same way.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torch import nn

from iclr26.checks import check_choice, check_int, check_tensor
from iclr26.science.overtone.csm import (
    BOUNDARIES,
    add_decoder_layers,
    add_encoder_layers,
    check_channels,
    crop_centre,
    pad_boundary,
)

__all__ = ["CKMDecoder2d", "CKMEncoder2d", "kernel_partition", "pi_resize", "resize_matrix"]

_PINV_CACHE: dict[tuple[tuple[int, int], tuple[int, int]], torch.Tensor] = {}


def _pair(name: str, value) -> tuple[int, int]:
    try:
        pair = tuple(int(v) for v in value)
    except (TypeError, ValueError):
        pair = ()
    if len(pair) != 2 or min(pair) <= 0:
        raise ValueError(f"{name} must be a pair of positive ints, got {value!r}")
    return pair  # type: ignore[return-value]


def resize_matrix(old_shape: Sequence[int], new_shape: Sequence[int]) -> torch.Tensor:
    """B (prod(new) x prod(old)), float64: column i is the bicubic resize (no antialiasing) of basis vector e_i."""
    old, new = _pair("old_shape", old_shape), _pair("new_shape", new_shape)
    eye = torch.eye(old[0] * old[1], dtype=torch.float64).reshape(-1, 1, *old)
    cols = F.interpolate(eye, size=new, mode="bicubic", align_corners=False, antialias=False)
    return cols.reshape(old[0] * old[1], -1).T.contiguous()


def _pinv(old: tuple[int, int], new: tuple[int, int]) -> torch.Tensor:
    key = (old, new)
    if key not in _PINV_CACHE:
        _PINV_CACHE[key] = torch.linalg.pinv(resize_matrix(old, new).T)  # (new numel, old numel)
    return _PINV_CACHE[key]


def pi_resize(weight: torch.Tensor, new_shape: Sequence[int]) -> torch.Tensor:
    """Kernels (..., h, w) resized to (..., h', w') by w' = pinv(B^T) vec(w); pinv matrices are cached per shape.

    >>> import torch
    >>> w = torch.randn(3, 2, 4, 4)
    >>> torch.equal(pi_resize(w, (4, 4)), w), pi_resize(w, (8, 8)).shape
    (True, torch.Size([3, 2, 8, 8]))
    """
    check_tensor("weight", weight, ndim=(2, 3, 4, 5, 6), floating=True)
    new = _pair("new_shape", new_shape)
    old = (int(weight.shape[-2]), int(weight.shape[-1]))
    if new == old:
        return weight
    pinv = _pinv(old, new).to(dtype=weight.dtype, device=weight.device)
    flat = weight.reshape(*weight.shape[:-2], old[0] * old[1])
    return (flat @ pinv.T).reshape(*weight.shape[:-2], *new)


def kernel_partition(patch, base_kernel: Sequence[int]) -> tuple[int, int]:
    """(k1', k2') for a patch size: a pair is used as given; an int p takes the largest k2' <= k2 that divides p
    with p / k2' >= k2' (4 -> (2, 2), 8 -> (4, 2), 16 -> (4, 4), 32 -> (8, 4) for the base (8, 4))."""
    if isinstance(patch, int) and not isinstance(patch, bool):
        check_int("patch", patch, low=1)
        for d in range(int(base_kernel[1]), 0, -1):
            if patch % d == 0 and patch // d >= d:
                return patch // d, d
        return patch, 1
    return _pair("patch", patch)


class _CKMBase(nn.Module):
    def _setup(self, base_kernel, trained_patches, groups, hidden_dim) -> None:
        self.base_kernel = _pair("base_kernel", base_kernel)
        self.trained_patches = tuple(check_int("trained_patches", int(p), low=1) for p in trained_patches)
        if not self.trained_patches:
            raise ValueError("trained_patches must list at least one patch size")
        if hidden_dim % 4 or (hidden_dim // 4) % check_int("groups", groups, low=1):
            raise ValueError(
                f"groups ({groups}) must divide hidden_dim // 4 ({hidden_dim // 4}), hidden_dim % 4 == 0"
            )

    def kernels(self, patch) -> tuple[int, int]:
        """(k1', k2') for ``patch``; warns when p = k1' k2' lies outside the trained range."""
        k = kernel_partition(patch, self.base_kernel)
        p = k[0] * k[1]
        lo, hi = min(self.trained_patches), max(self.trained_patches)
        if not lo <= p <= hi:
            warnings.warn(
                f"patch size {p} is outside the trained range [{lo}, {hi}]; the resized kernels are extrapolated",
                stacklevel=3,
            )
        return k


class CKMEncoder2d(_CKMBase):
    """The CKM tokenizer: (B, C, H, W) -> (B, D, H'/p, W'/p) with kernels resized to the patch (stride = kernel).

    The input is padded (circularly, or with zeros plus a learned padding token) to a multiple of p per axis.

    Example
    -------
    >>> import torch
    >>> enc = CKMEncoder2d(1, 32, base_kernel=(4, 4), groups=4)
    >>> enc(torch.randn(2, 1, 64, 64), 8).shape
    torch.Size([2, 32, 8, 8])
    """

    def __init__(
        self,
        in_channels: int,
        hidden_dim: int,
        base_kernel: Sequence[int] = (8, 4),
        trained_patches: Sequence[int] = (4, 8, 16, 32),
        groups: int = 12,
        boundary: str = "periodic",
    ) -> None:
        super().__init__()
        self.in_channels = check_int("in_channels", in_channels, low=1)
        self.hidden_dim = check_int("hidden_dim", hidden_dim, low=4)
        self._setup(base_kernel, trained_patches, groups, hidden_dim)
        self.boundary = check_choice("boundary", boundary, BOUNDARIES)
        add_encoder_layers(self, in_channels, hidden_dim, *self.base_kernel, groups)
        self.pad_token = nn.Parameter(torch.zeros(in_channels)) if boundary == "constant" else None

    def pad(self, x: torch.Tensor, p: int) -> torch.Tensor:
        ph, pw = (-x.shape[-2]) % p, (-x.shape[-1]) % p
        if ph % 2 or pw % 2:
            raise ValueError(f"padding ({ph}, {pw}) to a multiple of patch {p} is odd; choose an even size")
        return pad_boundary(x, ph, pw, self.boundary, self.pad_token)

    def forward(self, x: torch.Tensor, patch) -> torch.Tensor:
        check_channels(x, self.in_channels, "in_channels")
        k1, k2 = self.kernels(patch)
        x = self.pad(x, k1 * k2)
        w1 = pi_resize(self.proj1.weight, (k1, k1))
        w2 = pi_resize(self.proj2.weight, (k2, k2))
        x = F.gelu(self.norm1(F.conv2d(x, w1, stride=k1)))
        return F.gelu(self.norm2(F.conv2d(x, w2, stride=k2)))


class CKMDecoder2d(_CKMBase):
    """The mirrored CKM decoder: ConvTranspose(k2', stride k2') -> GroupNorm -> GELU -> ConvTranspose(k1', k1'),
    with the transposed kernels PI-resized like the encoder's; ``out_shape`` crops the padding."""

    def __init__(
        self,
        out_channels: int,
        hidden_dim: int,
        base_kernel: Sequence[int] = (8, 4),
        trained_patches: Sequence[int] = (4, 8, 16, 32),
        groups: int = 12,
    ) -> None:
        super().__init__()
        self.out_channels = check_int("out_channels", out_channels, low=1)
        self.hidden_dim = check_int("hidden_dim", hidden_dim, low=4)
        self._setup(base_kernel, trained_patches, groups, hidden_dim)
        add_decoder_layers(self, hidden_dim, out_channels, *self.base_kernel, groups)

    def forward(self, x: torch.Tensor, patch, out_shape: Sequence[int] | None = None) -> torch.Tensor:
        check_channels(x, self.hidden_dim, "hidden_dim")
        k1, k2 = self.kernels(patch)
        x = F.gelu(self.norm1(F.conv_transpose2d(x, pi_resize(self.proj1.weight, (k2, k2)), stride=k2)))
        x = F.conv_transpose2d(x, pi_resize(self.proj2.weight, (k1, k1)), self.proj2.bias, stride=k1)
        return x if out_shape is None else crop_centre(x, out_shape)
