"""A deterministic procedural renderer of designs and scenes (Pillow), with exact ground truth per element.

A design is a list of :class:`Element` (a kind, a canvas-normalised :class:`~iclr26.lab.vision.boxes.Box`, colours,
optional text and a drawing order ``z``). :func:`render_design` draws them in ``(z, list position)`` order on a
background; :func:`element_mask` and :func:`visible_mask` give the exact pixels an element covers and the part of
them left visible by the elements drawn above it, so a benchmark's regions and occlusions are known, not estimated.
The same list always renders to the same pixels (no global random state: textures are seeded per element).

Kinds: ``rect``, ``ellipse``, ``triangle``, ``line`` (the box diagonal), ``text`` (Pillow's scalable default font,
``font_size`` as a fraction of the canvas height), ``photo`` (a smooth seeded texture standing in for an image),
``gradient`` (left-to-right from ``fill`` to ``outline``). A paper adds its own kinds (a stick figure, a food icon)
with :func:`register_kind` instead of editing this module.

>>> from iclr26.lab.vision import Box, Element, render_design, visible_mask
>>> els = [Element("rect", Box(0.1, 0.1, 0.5, 0.5), fill=(200, 0, 0)),
...        Element("ellipse", Box(0.4, 0.4, 0.5, 0.5), fill=(0, 0, 200), z=1)]
>>> img = render_design(els, canvas=(64, 64))
>>> img.size, img.getpixel((10, 10))
((64, 64), (200, 0, 0))
>>> bool(visible_mask(els, 0, (64, 64)).sum() < visible_mask(els[:1], 0, (64, 64)).sum())  # occluded
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from iclr26.checks import check_choice, check_float, check_int
from iclr26.lab.vision.boxes import Box, as_box
from iclr26.lab.vision.colour import check_rgb

__all__ = [
    "Element",
    "check_canvas",
    "draw_element",
    "element_kinds",
    "element_mask",
    "font",
    "register_kind",
    "render_design",
    "tile_panels",
    "visible_mask",
]

DrawFn = Callable[[Image.Image, "Element", tuple[int, int, int, int]], None]
_KINDS: dict[str, DrawFn] = {}


@dataclass(frozen=True)
class Element:
    """One element of a design: ``kind``, ``box`` (normalised), ``fill``/``outline`` colours, optional ``text``.

    ``font_size`` is a fraction of the canvas height (text only); ``z`` orders drawing (higher is drawn later, on
    top; ties keep list order); ``seed`` seeds the texture of ``photo`` elements; ``attrs`` carries a generator's
    own ground truth (a role, a culture, a perturbation tag) and is never read by the renderer.
    """

    kind: str
    box: Box
    fill: tuple[int, int, int] = (128, 128, 128)
    outline: tuple[int, int, int] | None = None
    text: str = ""
    font_size: float = 0.08
    z: int = 0
    seed: int = 0
    attrs: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self) -> None:
        check_choice("element kind", self.kind, _KINDS)
        object.__setattr__(self, "box", as_box(self.box, "element box"))
        object.__setattr__(self, "fill", check_rgb("element fill", self.fill))
        if self.outline is not None:
            object.__setattr__(self, "outline", check_rgb("element outline", self.outline))
        if not isinstance(self.text, str):
            raise ValueError(f"element text must be a str, got {self.text!r}")
        if self.kind == "text" and not self.text:
            raise ValueError("a text element needs a non-empty text")
        check_float("element font_size", self.font_size, 0.0, 1.0, low_open=True)
        check_int("element z", self.z)
        check_int("element seed", self.seed, 0)

    def replace(self, **changes: Any) -> Element:
        values = {f: getattr(self, f) for f in self.__dataclass_fields__}
        values.update(changes)
        return Element(**values)


def register_kind(name: str, draw: DrawFn, *, replace: bool = False) -> None:
    """Add an element kind: ``draw(image, element, (x0, y0, x1, y1))`` paints it inside the pixel box."""
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"kind name must be an identifier string, got {name!r}")
    if name in _KINDS and not replace:
        raise ValueError(f"element kind {name!r} is already registered (pass replace=True to override)")
    _KINDS[name] = draw


def element_kinds() -> tuple[str, ...]:
    """The registered element kinds."""
    return tuple(sorted(_KINDS))


def check_canvas(canvas: Any) -> tuple[int, int]:
    """``canvas`` as ``(width, height)`` in pixels, each in [8, 4096] (an int gives a square)."""
    if isinstance(canvas, int) and not isinstance(canvas, bool):
        canvas = (canvas, canvas)
    if not isinstance(canvas, Sequence) or len(canvas) != 2:
        raise ValueError(f"canvas must be an int or (width, height), got {canvas!r}")
    return check_int("canvas width", canvas[0], 8, 4096), check_int("canvas height", canvas[1], 8, 4096)


@lru_cache(maxsize=64)
def font(pixels: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's built-in scalable font at ``pixels`` height (the same glyphs on every machine)."""
    return ImageFont.load_default(size=max(4, int(pixels)))


def _shape(img: Image.Image, el: Element, xy: tuple[int, int, int, int]) -> None:
    d = ImageDraw.Draw(img)
    x0, y0, x1, y1 = xy
    box = [x0, y0, x1 - 1, y1 - 1]
    width = max(1, round(min(img.size) / 64))
    if el.kind == "rect":
        d.rectangle(box, fill=el.fill, outline=el.outline, width=width)
    elif el.kind == "ellipse":
        d.ellipse(box, fill=el.fill, outline=el.outline, width=width)
    elif el.kind == "triangle":
        d.polygon([((x0 + x1 - 1) / 2, y0), (x1 - 1, y1 - 1), (x0, y1 - 1)], fill=el.fill, outline=el.outline)
    elif el.kind == "line":
        d.line([(x0, y0), (x1 - 1, y1 - 1)], fill=el.fill, width=width)


def _text(img: Image.Image, el: Element, xy: tuple[int, int, int, int]) -> None:
    d = ImageDraw.Draw(img)
    if el.outline is not None:  # a text box with a background
        d.rectangle([xy[0], xy[1], xy[2] - 1, xy[3] - 1], fill=el.outline)
    f = font(round(el.font_size * img.size[1]))
    d.text((xy[0], xy[1]), el.text, fill=el.fill, font=f)


def _photo(img: Image.Image, el: Element, xy: tuple[int, int, int, int]) -> None:
    x0, y0, x1, y1 = xy
    w, h = x1 - x0, y1 - y0
    rng = np.random.default_rng(el.seed)
    coarse = rng.uniform(0, 1, size=(4, 4, 3)).astype(np.float32)
    small = Image.fromarray((coarse * 255).astype(np.uint8), "RGB").resize((w, h), Image.Resampling.BICUBIC)
    base = np.asarray(el.fill, dtype=np.float32)
    tex = 0.5 * base + 0.5 * np.asarray(small, dtype=np.float32)
    img.paste(Image.fromarray(np.clip(tex, 0, 255).astype(np.uint8), "RGB"), (x0, y0))


def _gradient(img: Image.Image, el: Element, xy: tuple[int, int, int, int]) -> None:
    x0, y0, x1, y1 = xy
    end = np.asarray(el.outline if el.outline is not None else (255, 255, 255), dtype=np.float32)
    t = np.linspace(0.0, 1.0, x1 - x0, dtype=np.float32)[None, :, None]
    row = (1 - t) * np.asarray(el.fill, dtype=np.float32) + t * end
    arr = np.repeat(row, y1 - y0, axis=0)
    img.paste(Image.fromarray(np.round(arr).astype(np.uint8), "RGB"), (x0, y0))


for _k in ("rect", "ellipse", "triangle", "line"):
    register_kind(_k, _shape)
register_kind("text", _text)
register_kind("photo", _photo)
register_kind("gradient", _gradient)


def _order(elements: Sequence[Element]) -> list[int]:
    return sorted(range(len(elements)), key=lambda i: (elements[i].z, i))


def _as_elements(elements: Any) -> list[Element]:
    if isinstance(elements, Element) or not isinstance(elements, Sequence):
        raise ValueError(f"elements must be a sequence of Element, got {type(elements).__name__}")
    for i, e in enumerate(elements):
        if not isinstance(e, Element):
            raise ValueError(f"elements[{i}] must be an Element, got {type(e).__name__}")
    return list(elements)


def draw_element(img: Image.Image, element: Element) -> None:
    """Paint one element onto ``img`` in place."""
    _KINDS[element.kind](img, element, element.box.to_pixels(*img.size))


def render_design(
    elements: Sequence[Element], canvas: Any = 256, background: tuple[int, int, int] = (255, 255, 255)
) -> Image.Image:
    """The RGB image of a design: the background, then each element in ``(z, position)`` order."""
    els = _as_elements(elements)
    w, h = check_canvas(canvas)
    img = Image.new("RGB", (w, h), check_rgb("background", background))
    for i in _order(els):
        draw_element(img, els[i])
    return img


def element_mask(element: Element, canvas: Any) -> np.ndarray:
    """Boolean ``(H, W)`` mask of the pixels ``element`` paints when drawn alone."""
    w, h = check_canvas(canvas)
    # two renders on contrasting grounds: a pixel is painted iff it differs from the ground in one of them
    masks = []
    for ground in ((0, 0, 0), (255, 255, 255)):
        img = Image.new("RGB", (w, h), ground)
        draw_element(img, element)
        masks.append(np.any(np.asarray(img) != np.asarray(ground, dtype=np.uint8), axis=-1))
    return masks[0] | masks[1]


def visible_mask(elements: Sequence[Element], index: int, canvas: Any) -> np.ndarray:
    """Pixels of ``elements[index]`` not covered by any element drawn after it."""
    els = _as_elements(elements)
    index = check_int("index", index, 0, len(els) - 1)
    order = _order(els)
    mask = element_mask(els[index], canvas)
    for j in order[order.index(index) + 1 :]:
        mask &= ~element_mask(els[j], canvas)
    return mask


def tile_panels(
    panels: Sequence[Image.Image],
    cols: int | None = None,
    gap: int = 4,
    background: tuple[int, int, int] = (255, 255, 255),
) -> tuple[Image.Image, list[Box]]:
    """Panels of equal size tiled into a strip or grid (a comic page), with each panel's normalised box."""
    if not isinstance(panels, Sequence) or not panels or not all(isinstance(p, Image.Image) for p in panels):
        raise ValueError("panels must be a non-empty sequence of PIL images")
    size = panels[0].size
    if any(p.size != size for p in panels):
        raise ValueError(f"panels must share one size, got {[p.size for p in panels]}")
    n = len(panels)
    cols = n if cols is None else check_int("cols", cols, 1, n)
    gap = check_int("gap", gap, 0, 256)
    rows = -(-n // cols)
    w, h = cols * size[0] + (cols + 1) * gap, rows * size[1] + (rows + 1) * gap
    page = Image.new("RGB", (w, h), check_rgb("background", background))
    boxes = []
    for k, p in enumerate(panels):
        r, c = divmod(k, cols)
        x, y = gap + c * (size[0] + gap), gap + r * (size[1] + gap)
        page.paste(p.convert("RGB"), (x, y))
        boxes.append(Box(x / w, y / h, size[0] / w, size[1] / h))
    return page, boxes
