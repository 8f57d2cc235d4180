"""Colour measures with stated definitions: WCAG relative luminance and contrast ratio, hue and hue distance.

>>> round(contrast_ratio((0, 0, 0), (255, 255, 255)), 6)
21.0
>>> contrast_ratio((120, 120, 120), (120, 120, 120))
1.0
>>> hue_distance(350.0, 10.0)
20.0
"""

from __future__ import annotations

import colorsys
from collections.abc import Sequence

from iclr26.checks import check_int

__all__ = ["check_rgb", "contrast_ratio", "hue", "hue_distance", "relative_luminance"]


def check_rgb(name: str, value: object) -> tuple[int, int, int]:
    """``value`` as an ``(r, g, b)`` tuple of ints in [0, 255]; errors name the argument and the value."""
    if not (isinstance(value, Sequence) and not isinstance(value, str) and len(value) == 3):
        raise ValueError(f"{name} must be an (r, g, b) tuple of ints in [0, 255], got {value!r}")
    return tuple(check_int(f"{name}[{i}] (r, g, b)", c, 0, 255) for i, c in enumerate(value))  # type: ignore[return-value]


def _linear(c: int) -> float:
    s = c / 255.0
    return s / 12.92 if s <= 0.04045 else ((s + 0.055) / 1.055) ** 2.4


def relative_luminance(rgb: Sequence[int]) -> float:
    """WCAG 2.x relative luminance of an sRGB colour, in [0, 1]."""
    r, g, b = check_rgb("rgb", rgb)
    return 0.2126 * _linear(r) + 0.7152 * _linear(g) + 0.0722 * _linear(b)


def contrast_ratio(fg: Sequence[int], bg: Sequence[int]) -> float:
    """WCAG contrast ratio ``(L1 + 0.05) / (L2 + 0.05)`` with ``L1 >= L2``, in [1, 21]."""
    a, b = relative_luminance(fg), relative_luminance(bg)
    hi, lo = max(a, b), min(a, b)
    return (hi + 0.05) / (lo + 0.05)


def hue(rgb: Sequence[int]) -> float:
    """Hue of an sRGB colour in degrees [0, 360) (HSV)."""
    r, g, b = check_rgb("rgb", rgb)
    return colorsys.rgb_to_hsv(r / 255, g / 255, b / 255)[0] * 360.0 % 360.0


def hue_distance(h1: float, h2: float) -> float:
    """Angular distance between two hues in degrees, in [0, 180]."""
    d = abs(float(h1) - float(h2)) % 360.0
    return min(d, 360.0 - d)
