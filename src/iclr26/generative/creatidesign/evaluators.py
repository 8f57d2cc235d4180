"""Evaluators of generated designs, trained here on ground-truth renders (stand-ins for the paper's detector,
DINO/CLIP-I and FID).

* :class:`CropClassifier`: a tiny CNN on a box's crop (resized to 12 x 12) with a colour head and a shape head;
  its pooled 32-d features serve the Frechet distance.
* :func:`layout_scores`: per layout box, whether colour and shape are both right (layout attribute accuracy) and
  whether the box shows an attribute requested for *another* box of the design and not for itself (leakage).
* :func:`subject_fidelity`: Pearson correlation of the generated region's pixels with the given sprite.
* :func:`background_accuracy`: the free pixels' mean colour is nearest the prompt's background colour.
* :func:`frechet_distance`: between Gaussian fits of two feature sets.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from iclr26.checks import check_array, check_int, check_tensor
from iclr26.generative.creatidesign.data import BACKGROUNDS, COLOURS, SHAPES, Design
from iclr26.lab.vision import Box

__all__ = [
    "CROP",
    "CropClassifier",
    "background_accuracy",
    "crop_boxes",
    "frechet_distance",
    "layout_scores",
    "subject_fidelity",
    "train_crop_classifier",
]

CROP = 12
_COLOUR_IDX = {c: i for i, c in enumerate(COLOURS)}
_SHAPE_IDX = {s: i for i, s in enumerate(SHAPES)}


def crop_boxes(
    images: torch.Tensor, boxes: Sequence[Box], index: Sequence[int], size: int = CROP
) -> torch.Tensor:
    """Bilinear ``size x size`` crops of ``images[index[i]]`` inside ``boxes[i]`` (normalised), ``(N, 3, s, s)``."""
    images = check_tensor("images", images, ndim=4, floating=True, finite=True)
    if len(boxes) != len(index):
        raise ValueError(f"boxes and index must have the same length, got {len(boxes)} and {len(index)}")
    if not boxes:
        return images.new_zeros(0, 3, size, size)
    b = torch.tensor([[x.left, x.top, x.width, x.height] for x in boxes], dtype=images.dtype)
    theta = torch.zeros(len(boxes), 2, 3, dtype=images.dtype)
    theta[:, 0, 0] = b[:, 2]
    theta[:, 0, 2] = 2 * b[:, 0] + b[:, 2] - 1
    theta[:, 1, 1] = b[:, 3]
    theta[:, 1, 2] = 2 * b[:, 1] + b[:, 3] - 1
    grid = F.affine_grid(theta, [len(boxes), 3, size, size], align_corners=False)
    return F.grid_sample(images[torch.as_tensor(list(index))], grid, align_corners=False)


class CropClassifier(nn.Module):
    """Tiny CNN: crop ``(N, 3, 12, 12)`` in [-1, 1] -> (colour logits, shape logits); :meth:`features` 32-d."""

    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1),
            nn.ReLU(),
            nn.Conv2d(32, 32, 3, stride=2, padding=1),
            nn.ReLU(),
        )
        self.colour = nn.Linear(32, len(COLOURS))
        self.shape = nn.Linear(32, len(SHAPES))

    def features(self, x: torch.Tensor) -> torch.Tensor:
        return self.body(x).mean((2, 3))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        check_tensor("x", x, ndim=4, floating=True, shape=(None, 3, None, None))
        f = self.features(x)
        return self.colour(f), self.shape(f)


def _layout_crops(
    images: torch.Tensor, designs: Sequence[Design]
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    boxes, index, colour, shape = [], [], [], []
    for i, d in enumerate(designs):
        for c, s, box in d.layout:
            boxes.append(box)
            index.append(i)
            colour.append(_COLOUR_IDX[c])
            shape.append(_SHAPE_IDX[s])
    return crop_boxes(images, boxes, index), torch.tensor(colour), torch.tensor(shape)


def train_crop_classifier(
    images: torch.Tensor, designs: Sequence[Design], steps: int = 300, batch: int = 128, seed: int = 0
) -> CropClassifier:
    """Train :class:`CropClassifier` on the exact layout boxes of ground-truth renders (Adam, light pixel noise
    and +-1-pixel box jitter so that slightly imprecise generations are still read)."""
    steps = check_int("steps", steps, 1)
    _check_images(images, designs)
    x, yc, ys = _layout_crops(images, designs)
    # jittered copies: the boxes shifted by one pixel in each direction
    px = 1.0 / images.shape[-1]
    extra = []
    for dx, dy in ((px, 0), (-px, 0), (0, px), (0, -px)):
        boxes, index = [], []
        for i, d in enumerate(designs):
            for *_, b in d.layout:
                left = min(max(b.left + dx, 0.0), 1 - b.width)
                top = min(max(b.top + dy, 0.0), 1 - b.height)
                boxes.append(Box(left, top, b.width, b.height))
                index.append(i)
        extra.append(crop_boxes(images, boxes, index))
    x = torch.cat([x, *extra])
    yc, ys = yc.repeat(5), ys.repeat(5)
    torch.manual_seed(seed)
    net = CropClassifier()
    opt = torch.optim.Adam(net.parameters(), lr=3e-3)
    g = torch.Generator().manual_seed(seed)
    for _ in range(steps):
        i = torch.randint(0, x.shape[0], (batch,), generator=g)
        xb = x[i] + 0.05 * torch.randn(x[i].shape, generator=g)
        lc, ls = net(xb)
        loss = F.cross_entropy(lc, yc[i]) + F.cross_entropy(ls, ys[i])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    return net.eval()


def _check_images(images: torch.Tensor, designs: Sequence[Design]) -> None:
    """Finite float renders ``(len(designs), 3, canvas, canvas)`` of the designs, in order."""
    canvas = designs[0].canvas if len(designs) else None
    check_tensor(
        "images", images, ndim=4, floating=True, finite=True, shape=(len(designs), 3, canvas, canvas)
    )


@torch.no_grad()
def layout_scores(
    net: CropClassifier, images: torch.Tensor, designs: Sequence[Design]
) -> dict[str, np.ndarray]:
    """Per layout box (in design order): ``correct`` (colour and shape right), ``leak`` (the box shows a colour
    or shape requested for another box of its design and not for itself; NaN in single-element designs),
    ``n_layout`` (elements in its design), ``design`` (its design's index) and the crops' ``features``."""
    _check_images(images, designs)
    x, yc, ys = _layout_crops(images, designs)
    lc, ls = net(x)
    pc, ps = lc.argmax(-1), ls.argmax(-1)
    correct = ((pc == yc) & (ps == ys)).numpy().astype(float)
    leak, n_layout, design = [], [], []
    pos = 0
    for i, d in enumerate(designs):
        n = len(d.layout)
        for k in range(n):
            others_c = {_COLOUR_IDX[c] for j, (c, _, _) in enumerate(d.layout) if j != k} - {int(yc[pos + k])}
            others_s = {_SHAPE_IDX[s] for j, (_, s, _) in enumerate(d.layout) if j != k} - {int(ys[pos + k])}
            if n < 2:
                leak.append(float("nan"))
            else:
                leak.append(float(int(pc[pos + k]) in others_c or int(ps[pos + k]) in others_s))
            n_layout.append(n)
            design.append(i)
        pos += n
    return {
        "correct": correct,
        "leak": np.asarray(leak),
        "n_layout": np.asarray(n_layout),
        "design": np.asarray(design),
        "features": net.features(x).numpy(),
    }


def subject_fidelity(images: torch.Tensor, designs: Sequence[Design], shift: int = 0) -> np.ndarray:
    """Per design: mean over its subjects of the Pearson correlation between the generated region's pixels and
    the sprite (1 = the sprite pasted exactly). ``shift`` compares with the sprite of design ``i + shift``'s
    first subject instead (a mismatched-sprite baseline)."""
    _check_images(images, designs)
    out = []
    arr = images.numpy()
    for i, d in enumerate(designs):
        vals = []
        for j, (_, box) in enumerate(d.subjects):
            x0, y0, x1, y1 = box.to_pixels(d.canvas)
            region = arr[i, :, y0:y1, x0:x1].transpose(1, 2, 0).ravel()
            if shift:
                other = designs[(i + shift) % len(designs)]
                sprite = other.sprite(0) if other.subjects else d.sprite(j)
                sprite = sprite[: y1 - y0, : x1 - x0]
            else:
                sprite = d.sprite(j)
            ref = sprite.astype(np.float64).ravel()
            a, b = region - region.mean(), ref - ref.mean()
            den = np.sqrt((a * a).sum() * (b * b).sum())
            vals.append(float((a * b).sum() / den) if den > 0 else 0.0)
        out.append(np.mean(vals) if vals else np.nan)
    return np.asarray(out)


def background_accuracy(images: torch.Tensor, designs: Sequence[Design]) -> np.ndarray:
    """Per design: 1 when the mean colour of the pixels no element covers is nearest the prompt's background."""
    _check_images(images, designs)
    names = list(BACKGROUNDS)
    pal = np.asarray([BACKGROUNDS[n] for n in names], dtype=np.float64)
    arr = ((images.clamp(-1, 1).numpy() + 1) * 127.5).transpose(0, 2, 3, 1)
    out = []
    for i, d in enumerate(designs):
        free = d.free_mask()
        mean = arr[i][free].mean(0) if free.any() else arr[i].reshape(-1, 3).mean(0)
        out.append(float(names[int(np.argmin(((pal - mean) ** 2).sum(-1)))] == d.background))
    return np.asarray(out)


def frechet_distance(a: np.ndarray, b: np.ndarray) -> float:
    """``|mu_a - mu_b|^2 + tr(S_a + S_b - 2 (S_a S_b)^(1/2))`` between Gaussian fits of the rows of `a`, `b`."""
    a, b = check_array("a", a, ndim=2, finite=True), check_array("b", b, ndim=2, finite=True)
    if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[1] or min(len(a), len(b)) < 2:
        raise ValueError(
            f"a and b must be (n >= 2, d) feature arrays of equal d, got {a.shape} and {b.shape}"
        )
    mu = a.mean(0) - b.mean(0)
    sa, sb = np.cov(a, rowvar=False), np.cov(b, rowvar=False)
    w, v = np.linalg.eigh(sa)
    ra = (v * np.sqrt(np.clip(w, 0, None))) @ v.T
    cross = np.linalg.eigvalsh(ra @ sb @ ra)
    return float(mu @ mu + np.trace(sa) + np.trace(sb) - 2 * np.sqrt(np.clip(cross, 0, None)).sum())
