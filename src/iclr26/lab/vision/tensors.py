"""PIL images to the float tensors small trained backends read."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from PIL import Image

from iclr26.checks import check_int

__all__ = ["images_to_tensor"]


def images_to_tensor(images: Sequence[Image.Image], size: int | None = None) -> torch.Tensor:
    """``(N, 3, H, W)`` float32 in [0, 1]; with ``size``, each image is first resized to ``size x size``
    (bilinear, antialiased: the same pixels on every machine for the same Pillow)."""
    if not isinstance(images, Sequence) or not images:
        raise ValueError("images must be a non-empty sequence of PIL images")
    if size is not None:
        size = check_int("size", size, 4, 4096)
    arrs = []
    for i, im in enumerate(images):
        if not isinstance(im, Image.Image):
            raise ValueError(f"images[{i}] must be a PIL image, got {type(im).__name__}")
        im = im.convert("RGB")
        if size is not None and im.size != (size, size):
            im = im.resize((size, size), Image.Resampling.BILINEAR)
        arrs.append(np.asarray(im, dtype=np.float32))
    return torch.from_numpy(np.stack(arrs).transpose(0, 3, 1, 2) / 255.0).contiguous()
