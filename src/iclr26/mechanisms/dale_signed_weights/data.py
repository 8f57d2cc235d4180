"""Generated "digits on texture" images with ground-truth object masks.

scikit-learn's bundled 8x8 digits are upsampled to a random size, pasted at a random position onto a per-image
procedural background (a sum of random Gabor gratings plus pixel noise), and returned with the binary mask of
the pasted digit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from sklearn.datasets import load_digits

from iclr26.checks import check_float, check_int, check_tensor

__all__ = ["TextureDigits", "make_texture_digits"]

SCALES = (12, 16, 20, 24)


@dataclass(frozen=True)
class TextureDigits:
    """Images ``x`` (n, 1, size, size) in [0, 1], labels ``y`` (n,), object masks ``mask`` (n, size, size)."""

    x: torch.Tensor
    y: torch.Tensor
    mask: torch.Tensor
    alpha: torch.Tensor

    def __post_init__(self) -> None:
        check_tensor("x", self.x, ndim=4, floating=True, shape=(None, 1, None, None))
        n, _, h, w = self.x.shape
        check_tensor("y", self.y, floating=False, shape=(n,))
        check_tensor("mask", self.mask, shape=(n, h, w))
        if self.mask.dtype != torch.bool:
            raise TypeError(f"mask must be a bool tensor (the object masks), got {self.mask.dtype}")
        check_tensor("alpha", self.alpha, floating=True, shape=(n, h, w))


def _backgrounds(n: int, size: int, gen: torch.Generator, n_gabors: int = 3) -> torch.Tensor:
    coords = torch.arange(size, dtype=torch.float32) - size / 2
    yy, xx = torch.meshgrid(coords, coords, indexing="ij")
    bg = torch.zeros(n, size, size)
    for _ in range(n_gabors):
        theta = torch.rand(n, 1, 1, generator=gen) * np.pi
        freq = 0.15 + 0.6 * torch.rand(n, 1, 1, generator=gen)
        phase = torch.rand(n, 1, 1, generator=gen) * 2 * np.pi
        cx, cy = (torch.rand(2, n, 1, 1, generator=gen) - 0.5) * size
        sigma = size * (0.2 + 0.5 * torch.rand(n, 1, 1, generator=gen))
        u = xx * torch.cos(theta) + yy * torch.sin(theta)
        env = torch.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * sigma**2))
        bg = bg + env * torch.cos(freq * u + phase) * torch.rand(n, 1, 1, generator=gen)
    bg = bg + 0.3 * torch.randn(n, size, size, generator=gen) * torch.rand(n, 1, 1, generator=gen)
    lo = bg.amin(dim=(1, 2), keepdim=True)
    hi = bg.amax(dim=(1, 2), keepdim=True)
    return 0.7 * (bg - lo) / (hi - lo + 1e-8)


def make_texture_digits(n: int, seed: int, size: int = 32, mask_threshold: float = 0.25) -> TextureDigits:
    """Generate ``n`` digits-on-texture images from ``seed`` (deterministic).

    The digit's intensity alpha in [0, 1] blends it (value 1) over the background; ``mask`` is alpha >
    ``mask_threshold``.
    """
    check_int("n", n, low=1)
    check_int("seed", seed, low=0)
    check_int("size", size, low=max(SCALES))
    check_float("mask_threshold", mask_threshold, 0.0, 1.0, low_open=True, high_open=True)
    gen = torch.Generator().manual_seed(int(seed))
    digits = load_digits()
    src = torch.tensor(digits.images, dtype=torch.float32) / 16.0
    labels = torch.tensor(digits.target, dtype=torch.long)
    idx = torch.randint(0, len(labels), (n,), generator=gen)
    scale_id = torch.randint(0, len(SCALES), (n,), generator=gen)
    pos = torch.rand(n, 2, generator=gen)
    alpha = torch.zeros(n, size, size)
    for k, s in enumerate(SCALES):
        sel = torch.nonzero(scale_id == k).flatten()
        if sel.numel() == 0:
            continue
        up = F.interpolate(src[idx[sel]].unsqueeze(1), size=(s, s), mode="bilinear", align_corners=False)
        up = up.squeeze(1).clamp(0, 1)
        offs = (pos[sel] * (size - s + 1)).long().clamp(max=size - s)
        for j, i in enumerate(sel.tolist()):
            r, c = offs[j].tolist()
            alpha[i, r : r + s, c : c + s] = up[j]
    bg = _backgrounds(n, size, gen)
    x = (bg * (1 - alpha) + alpha).unsqueeze(1)
    return TextureDigits(x=x, y=labels[idx], mask=alpha > mask_threshold, alpha=alpha)
