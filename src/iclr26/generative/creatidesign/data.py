"""Procedural multi-condition designs (P, I_s, L) -> I_g, rendered with Pillow, with exact ground truth.

A design on a square canvas laid out on an 8 x 8 grid of cells: a background colour named by the global prompt,
1-2 *subjects* (seeded textured sprites, ``photo`` elements of :mod:`iclr26.lab.vision`, pasted opaque into
their 3 x 3-cell region) and 1-3 *layout elements* (a shape of a named colour filling its 2-3 x 2-3-cell box).
Nothing overlaps, so every box's pixels are exactly the element's. Text elements of the brief are not drawn
(see the README).

Token vocabulary (shared by prompts and layout descriptions): background colour words, the word ``poster``,
layout colour words, shape words. A prompt is ``[<background>, poster]``; a layout description is
``[<colour>, <shape>]``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import torch

from iclr26.checks import check_int
from iclr26.lab.vision import Box, Element, render_design

__all__ = [
    "BACKGROUNDS",
    "COLOURS",
    "SHAPES",
    "VOCAB",
    "Design",
    "ProceduralDesignDataset",
    "render_sprite",
]

GRID = 8  # layout cells per side
SUBJECT_CELLS = 3
BACKGROUNDS: dict[str, tuple[int, int, int]] = {
    "cream": (240, 230, 200),
    "sky": (200, 225, 245),
    "mint": (205, 240, 215),
    "rose": (245, 210, 220),
}
COLOURS: dict[str, tuple[int, int, int]] = {
    "red": (215, 40, 40),
    "green": (30, 150, 60),
    "blue": (40, 70, 210),
    "black": (30, 30, 30),
}
SHAPES = ("rect", "ellipse", "triangle")
VOCAB: tuple[str, ...] = (*BACKGROUNDS, "poster", *COLOURS, *SHAPES)
_ID = {w: i for i, w in enumerate(VOCAB)}


def render_sprite(seed: int, size: int) -> np.ndarray:
    """The ``(size, size, 3)`` uint8 sprite of subject `seed` (a smooth seeded texture on a seeded base colour)."""
    return _sprite(int(seed), int(size)).copy()


@lru_cache(maxsize=4096)
def _sprite(seed: int, size: int) -> np.ndarray:
    rng = np.random.default_rng(int(seed) + 7919)
    base = tuple(int(v) for v in rng.integers(0, 256, 3))
    img = render_design([Element("photo", Box(0, 0, 1, 1), fill=base, seed=int(seed))], canvas=size)
    return np.asarray(img, dtype=np.uint8).copy()


@dataclass(frozen=True)
class Design:
    """One design: ``background`` name, ``layout`` = ((colour, shape, Box), ...), ``subjects`` = ((sprite seed,
    Box), ...), on a ``canvas`` x ``canvas`` image."""

    background: str
    layout: tuple[tuple[str, str, Box], ...]
    subjects: tuple[tuple[int, Box], ...]
    canvas: int

    @property
    def prompt_ids(self) -> list[int]:
        return [_ID[self.background], _ID["poster"]]

    def desc_ids(self, k: int) -> list[int]:
        colour, shape, _ = self.layout[k]
        return [_ID[colour], _ID[shape]]

    @property
    def key(self) -> tuple:
        """What makes two layouts the same combination (colours, shapes and cells of the layout elements)."""
        return tuple(sorted((c, s, b.as_tuple()) for c, s, b in self.layout))

    def sprite(self, j: int) -> np.ndarray:
        seed, box = self.subjects[j]
        return render_sprite(seed, round(box.width * self.canvas))

    def render(self) -> np.ndarray:
        """``(canvas, canvas, 3)`` uint8 ground-truth image."""
        els = [Element(shape, box, fill=COLOURS[colour]) for colour, shape, box in self.layout]
        img = np.asarray(
            render_design(els, canvas=self.canvas, background=BACKGROUNDS[self.background])
        ).copy()
        for j, (_, box) in enumerate(self.subjects):
            x0, y0, x1, y1 = box.to_pixels(self.canvas)
            img[y0:y1, x0:x1] = self.sprite(j)
        return img

    def free_mask(self) -> np.ndarray:
        """``(canvas, canvas)`` bool: pixels covered by no element (pure background in the ground truth)."""
        free = np.ones((self.canvas, self.canvas), dtype=bool)
        for box in [b for *_, b in self.layout] + [b for _, b in self.subjects]:
            x0, y0, x1, y1 = box.to_pixels(self.canvas)
            free[y0:y1, x0:x1] = False
        return free


def _sample(
    rng: np.random.Generator, canvas: int, max_layout: int, max_subjects: int, n_sprites: int
) -> Design:
    while True:
        occ = np.zeros((GRID, GRID), dtype=bool)
        n_sub = int(rng.integers(1, max_subjects + 1)) if max_subjects else 0
        n_lay = int(rng.integers(1, max_layout + 1))
        sizes = [(SUBJECT_CELLS, SUBJECT_CELLS)] * n_sub + [
            tuple(rng.integers(2, 4, 2)) for _ in range(n_lay)
        ]
        cells = []
        for w, h in sizes:
            for _ in range(60):
                x, y = int(rng.integers(0, GRID - w + 1)), int(rng.integers(0, GRID - h + 1))
                if not occ[y : y + h, x : x + w].any():
                    occ[y : y + h, x : x + w] = True
                    cells.append(Box(x / GRID, y / GRID, w / GRID, h / GRID))
                    break
            else:
                break
        if len(cells) < len(sizes):
            continue
        subjects = tuple((int(rng.integers(0, n_sprites)), cells[j]) for j in range(n_sub))
        layout = tuple(
            (str(rng.choice(list(COLOURS))), str(rng.choice(SHAPES)), cells[n_sub + k]) for k in range(n_lay)
        )
        return Design(str(rng.choice(list(BACKGROUNDS))), layout, subjects, canvas)


class ProceduralDesignDataset:
    """`n` seeded designs rendered on a `canvas` x `canvas` image (32 quick, 64 full).

    Parameters
    ----------
    n : number of designs; seed : the generator's seed.
    canvas : image side in pixels, a multiple of 8 (the layout grid).
    max_layout : 1..3 layout elements per design; max_subjects : 0..2 subjects.
    n_sprites : subject sprites are drawn from this many seeded textures.
    exclude : layout keys (:attr:`Design.key`) that must not occur (held-out test combinations).

    ``images`` holds the ground truth as a float tensor ``(n, 3, canvas, canvas)`` in [-1, 1].
    """

    def __init__(
        self,
        n: int,
        seed: int,
        canvas: int = 32,
        *,
        max_layout: int = 3,
        max_subjects: int = 2,
        n_sprites: int = 64,
        exclude: Iterable[tuple] = (),
    ) -> None:
        self.n = check_int("n", n, 1)
        self.canvas = check_int("canvas", canvas, 16, 512)
        if self.canvas % GRID:
            raise ValueError(f"canvas must be a multiple of {GRID} (the layout grid), got {canvas}")
        self.max_layout = check_int("max_layout", max_layout, 1, 3)
        self.max_subjects = check_int("max_subjects", max_subjects, 0, 2)
        check_int("n_sprites", n_sprites, 1)
        banned = set(exclude)
        rng = np.random.default_rng(check_int("seed", seed, 0))
        designs: list[Design] = []
        while len(designs) < self.n:
            d = _sample(rng, self.canvas, self.max_layout, self.max_subjects, n_sprites)
            if d.key not in banned:
                designs.append(d)
        self.designs = designs
        arr = np.stack([d.render() for d in designs]).astype(np.float32)
        self.images = torch.from_numpy(arr).permute(0, 3, 1, 2) / 127.5 - 1.0

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> Design:
        return self.designs[i]

    def keys(self) -> set[tuple]:
        return {d.key for d in self.designs}

    def conditions(self, idx: Sequence[int]) -> tuple[torch.Tensor, list, list]:
        """``(prompt_ids (B, 2), layout, subjects)`` of designs `idx`, in the form
        :class:`~iclr26.generative.creatidesign.model.MultiConditionDiT` reads (sprites in [-1, 1])."""
        prompt = torch.tensor([self.designs[i].prompt_ids for i in idx], dtype=torch.long)
        layout = [
            [(torch.tensor(d.desc_ids(k)), d.layout[k][2]) for k in range(len(d.layout))]
            for d in (self.designs[i] for i in idx)
        ]
        subjects = [
            [
                (torch.from_numpy(d.sprite(j)).float().permute(2, 0, 1) / 127.5 - 1.0, d.subjects[j][1])
                for j in range(len(d.subjects))
            ]
            for d in (self.designs[i] for i in idx)
        ]
        return prompt, layout, subjects
