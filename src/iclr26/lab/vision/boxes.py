"""Canvas-normalised boxes ``(left, top, width, height)`` in [0, 1], their validation and intersection over union.

Every renderer and benchmark in the lab speaks this one box type, so ground truth written by a generator and a box
parsed from a model's reply are compared the same way.

>>> iou(Box(0, 0, 0.5, 0.5), Box(0, 0, 0.5, 0.5))
1.0
>>> iou(Box(0, 0, 0.2, 0.2), Box(0.5, 0.5, 0.2, 0.2))
0.0
>>> round(iou(Box(0, 0, 0.4, 0.2), Box(0.2, 0, 0.4, 0.2)), 6)  # equal boxes overlapping by half
0.333333
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from iclr26.checks import check_float

__all__ = ["Box", "as_box", "iou", "pixel_box"]

_EPS = 1e-9


@dataclass(frozen=True)
class Box:
    """A box normalised to the canvas: ``left + width <= 1``, ``top + height <= 1``, positive size."""

    left: float
    top: float
    width: float
    height: float

    def __post_init__(self) -> None:
        vals = (self.left, self.top, self.width, self.height)
        for name, v in zip(("left", "top", "width", "height"), vals, strict=True):
            object.__setattr__(self, name, check_float(f"box {name}", v))
        ok = (
            self.width > 0
            and self.height > 0
            and self.left >= -_EPS
            and self.top >= -_EPS
            and self.left + self.width <= 1 + 1e-6
            and self.top + self.height <= 1 + 1e-6
        )
        if not ok:
            raise ValueError(
                "box must be (left, top, width, height) with width, height > 0 inside the unit canvas "
                f"(left >= 0, top >= 0, left + width <= 1, top + height <= 1), got {vals!r}"
            )

    @property
    def right(self) -> float:
        return self.left + self.width

    @property
    def bottom(self) -> float:
        return self.top + self.height

    @property
    def area(self) -> float:
        return self.width * self.height

    @property
    def centre(self) -> tuple[float, float]:
        return self.left + self.width / 2, self.top + self.height / 2

    def to_pixels(self, width: int, height: int | None = None) -> tuple[int, int, int, int]:
        """Integer pixel corners ``(x0, y0, x1, y1)`` (exclusive end, at least one pixel) on a ``width x height`` canvas."""
        height = width if height is None else height
        x0, y0 = round(self.left * width), round(self.top * height)
        x1 = max(x0 + 1, round(self.right * width))
        y1 = max(y0 + 1, round(self.bottom * height))
        return x0, y0, min(x1, width), min(y1, height)

    def as_tuple(self) -> tuple[float, float, float, float]:
        return self.left, self.top, self.width, self.height


def as_box(value: Any, name: str = "box") -> Box:
    """``value`` (a :class:`Box` or a sequence of four numbers) as a validated :class:`Box`; errors name ``name``."""
    if isinstance(value, Box):
        return value
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or len(value) != 4:
        raise ValueError(f"{name} must be a Box or four numbers (left, top, width, height), got {value!r}")
    try:
        return Box(*value)
    except ValueError as err:
        raise ValueError(f"{name}: {err}") from None


def pixel_box(left: float, top: float, width: float, height: float, canvas: tuple[int, int]) -> Box:
    """A box given in pixels on a ``(W, H)`` canvas, normalised (clipped to the canvas)."""
    cw, ch = canvas
    x0, y0 = max(0.0, left), max(0.0, top)
    x1, y1 = min(float(cw), left + width), min(float(ch), top + height)
    return Box(x0 / cw, y0 / ch, (x1 - x0) / cw, (y1 - y0) / ch)


def iou(a: Box | Sequence[float], b: Box | Sequence[float]) -> float:
    """Intersection over union of two boxes (0 for disjoint ones)."""
    a, b = as_box(a, "a"), as_box(b, "b")
    w = min(a.right, b.right) - max(a.left, b.left)
    h = min(a.bottom, b.bottom) - max(a.top, b.top)
    if w <= 0 or h <= 0:
        return 0.0
    inter = w * h
    return float(inter / (a.area + b.area - inter))
