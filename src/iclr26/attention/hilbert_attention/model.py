"""The accuracy study: a tiny hierarchical vision transformer whose first-stage attention is swappable.

Images of 32x32 are cut into 4x4 patches (an 8x8 token grid). Stage 1 runs two pre-norm blocks of the chosen local
attention (the second one shifted where the variant has a shift); a 2x2 patch merging gives a 4x4 grid, where
stage 2 runs two blocks of global attention (as Swin does once the window covers the whole grid). Every attention
layer carries a global relative-position table. The four variants differ only in stage 1:

- ``swin``: 4x4 windows in raster order, shifted by 2 in the second block;
- ``hwa``: 16-token Hilbert groups, rolled by 8 in the second block;
- ``nat``: 5x5 2D neighbourhood;
- ``hsa``: 25-token 1D neighbourhood along the Hilbert curve.

Data: sklearn's 8x8 digits upsampled bilinearly to 32x32 (70/30 stratified split per seed), and a generated
10-class "shapes and textures" set (:func:`shapes_data`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor, nn

from iclr26.attention.hilbert_attention.attention import (
    GlobalAttention,
    HilbertSlideAttention,
    HilbertWindowAttention,
    NeighborhoodAttention2d,
    SwinWindowAttention,
)
from iclr26.checks import check_choice, check_int

__all__ = ["VARIANTS", "TinyHierViT", "TrainSettings", "digits_data", "shapes_data", "train_and_evaluate"]

VARIANTS = ("swin", "hwa", "nat", "hsa")


def _stage1_attention(variant: str, dim: int, heads: int, grid: int, shifted: bool) -> nn.Module:
    if variant == "swin":
        return SwinWindowAttention(dim, heads, grid, grid, window=4, shift=shifted)
    if variant == "hwa":
        return HilbertWindowAttention(dim, heads, grid, grid, window_tokens=16, shift=shifted)
    if variant == "nat":
        return NeighborhoodAttention2d(dim, heads, grid, grid, kernel=5)
    if variant == "hsa":
        return HilbertSlideAttention(dim, heads, grid, grid, kernel_tokens=25)
    raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")


class _Block(nn.Module):
    def __init__(self, attn: nn.Module, dim: int, mlp_ratio: int) -> None:
        super().__init__()
        self.norm1, self.attn, self.norm2 = nn.LayerNorm(dim), attn, nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, mlp_ratio * dim), nn.GELU(), nn.Linear(mlp_ratio * dim, dim))

    def forward(self, x: Tensor) -> Tensor:
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class TinyHierViT(nn.Module):
    """Two-stage ViT on (B, 1, 32, 32) images: patch 4 -> 8x8 grid (local attention) -> 4x4 grid (global)."""

    def __init__(
        self,
        variant: str,
        dim: int = 64,
        heads: int = 4,
        mlp_ratio: int = 2,
        n_classes: int = 10,
        image: int = 32,
    ) -> None:
        super().__init__()
        check_choice("variant", variant, VARIANTS)
        grid = image // 4
        self.embed = nn.Conv2d(1, dim, 4, 4)
        self.norm0 = nn.LayerNorm(dim)
        self.stage1 = nn.Sequential(
            *[
                _Block(_stage1_attention(variant, dim, heads, grid, i % 2 == 1), dim, mlp_ratio)
                for i in range(2)
            ]
        )
        self.merge_norm = nn.LayerNorm(4 * dim)
        self.merge = nn.Linear(4 * dim, 2 * dim, bias=False)
        g2 = grid // 2
        self.stage2 = nn.Sequential(
            *[_Block(GlobalAttention(2 * dim, heads, g2, g2), 2 * dim, mlp_ratio) for _ in range(2)]
        )
        self.head_norm = nn.LayerNorm(2 * dim)
        self.head = nn.Linear(2 * dim, n_classes)

    def forward(self, img: Tensor) -> Tensor:
        """Class logits (B, n_classes)."""
        x = self.norm0(self.embed(img).permute(0, 2, 3, 1))  # (B, 8, 8, C)
        x = self.stage1(x)
        x = torch.cat([x[:, 0::2, 0::2], x[:, 1::2, 0::2], x[:, 0::2, 1::2], x[:, 1::2, 1::2]], dim=-1)
        x = self.stage2(self.merge(self.merge_norm(x)))
        return self.head(self.head_norm(x).mean(dim=(1, 2)))


def digits_data(seed: int) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """sklearn digits upsampled to 32x32 in [0, 1], a stratified 70/30 split drawn from ``seed``."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    d = load_digits()
    x = torch.tensor(d.images, dtype=torch.float32)[:, None] / 16.0
    x = nn.functional.interpolate(x, size=(32, 32), mode="bilinear", align_corners=False)
    idx_tr, idx_te = train_test_split(np.arange(len(x)), test_size=0.3, random_state=seed, stratify=d.target)
    y = torch.tensor(d.target, dtype=torch.long)
    return x[idx_tr], y[idx_tr], x[idx_te], y[idx_te]


def _shape_image(cls: int, rng: np.random.Generator) -> np.ndarray:
    yy, xx = np.mgrid[0:32, 0:32].astype(np.float32)
    cy, cx = rng.uniform(10, 22, size=2)
    r = rng.uniform(5, 9)
    ang = rng.uniform(0, np.pi)
    period = rng.uniform(4, 7)
    phase = rng.uniform(0, 2 * np.pi)
    u = (xx - cx) * np.cos(ang) + (yy - cy) * np.sin(ang)
    w = -(xx - cx) * np.sin(ang) + (yy - cy) * np.cos(ang)
    dist = np.hypot(yy - cy, xx - cx)
    if cls == 0:  # disc
        img = dist < r
    elif cls == 1:  # ring
        img = np.abs(dist - r) < 1.5
    elif cls == 2:  # rotated square
        img = np.maximum(np.abs(u), np.abs(w)) < r * 0.8
    elif cls == 3:  # cross
        img = ((np.abs(u) < 1.6) | (np.abs(w) < 1.6)) & (np.maximum(np.abs(u), np.abs(w)) < r)
    elif cls == 4:  # triangle
        img = (w < r * 0.6) & (w > -r * 0.9 + 1.8 * np.abs(u))
    elif cls == 5:  # oriented stripes
        img = np.sin(2 * np.pi * u / period + phase) > 0.3
    elif cls == 6:  # checkerboard
        img = (np.sin(2 * np.pi * u / period + phase) * np.sin(2 * np.pi * w / period)) > 0
    elif cls == 7:  # concentric rings texture
        img = np.sin(2 * np.pi * dist / period + phase) > 0.3
    elif cls == 8:  # random dots
        img = rng.random((32, 32)) < 0.12
    else:  # two small blobs
        c2y, c2x = rng.uniform(6, 26, size=2)
        img = (dist < r * 0.45) | (np.hypot(yy - c2y, xx - c2x) < r * 0.45)
    return img.astype(np.float32) + rng.normal(0, 0.25, size=(32, 32)).astype(np.float32)


def shapes_data(seed: int, n: int = 10_000) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """A generated 10-class shapes-and-textures set at 32x32 (balanced classes, 70/30 split), from ``seed``."""
    check_int("n", n, low=20)
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 10
    rng.shuffle(y)
    x = np.stack([_shape_image(int(c), rng) for c in y])[:, None]
    cut = int(0.7 * n)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y).long()
    return xt[:cut], yt[:cut], xt[cut:], yt[cut:]


@dataclass(frozen=True)
class TrainSettings:
    """Optimisation of one accuracy-study run."""

    epochs: int = 30
    batch: int = 64
    lr: float = 2e-3
    weight_decay: float = 0.05
    dim: int = 64
    heads: int = 4


def train_and_evaluate(
    variant: str,
    data: tuple[Tensor, Tensor, Tensor, Tensor],
    settings: TrainSettings,
    seed: int,
    device: str | torch.device = "cpu",
) -> float:
    """Train one variant (init and batch order from ``seed``, shared by all variants) and return test accuracy.

    The model is initialised on the CPU (the same weights on every device), then it and the data move to
    ``device``; the batch order is drawn on the CPU.
    """
    torch.manual_seed(seed)
    model = TinyHierViT(variant, dim=settings.dim, heads=settings.heads).to(device)
    x_tr, y_tr, x_te, y_te = (t.to(device) for t in data)
    opt = torch.optim.AdamW(model.parameters(), lr=settings.lr, weight_decay=settings.weight_decay)
    steps_per_epoch = math.ceil(len(x_tr) / settings.batch)
    total = settings.epochs * steps_per_epoch
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / max(1, total // 10)) * 0.5 * (1 + math.cos(math.pi * s / total))
    )
    gen = torch.Generator().manual_seed(seed)
    model.train()
    for _ in range(settings.epochs):
        perm = torch.randperm(len(x_tr), generator=gen)
        for i in range(steps_per_epoch):
            idx = perm[i * settings.batch : (i + 1) * settings.batch].to(x_tr.device)
            loss = nn.functional.cross_entropy(model(x_tr[idx]), y_tr[idx])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
    model.eval()
    with torch.no_grad():
        pred = torch.cat([model(x_te[i : i + 256]).argmax(1) for i in range(0, len(x_te), 256)])
    return float((pred == y_te).float().mean().cpu())
