"""Parsed scenes (part lists), the planted composition paradigms, a Pillow renderer and the synthetic rating.

Paper: the ICLR 2026 compositional AND-OR template for art and design (title unknown; a reconstruction after
Si & Zhu, PAMI 2013 and Jin et al., arXiv 2410.06124). A scene is a list of :class:`Part` with geometry
normalised to the canvas: centre (cx, cy) in [0, 1], linear size ``scale`` in (0, 1], ``aspect`` (width over
height) and ``angle`` (radians). Paradigms: rule of thirds (OR over the four thirds points), centred symmetry,
diagonal pair (OR over the two diagonals), horizon at 1/3 or 2/3 (OR), frame within frame, the never-labelled
golden spiral, and "amateur" scenes with uniform random placement (also the reference distribution q).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from PIL import Image, ImageDraw

from iclr26.checks import check_choice, check_float, check_int

__all__ = [
    "CATEGORIES",
    "LABELLED_PARADIGMS",
    "PARADIGMS",
    "CompositionRenderer",
    "Part",
    "as_parts",
    "rating",
    "sample_scene",
]

CATEGORIES = ("subject", "secondary", "horizon", "frame")
LABELLED_PARADIGMS = ("thirds", "centred", "diagonal", "horizon", "frame")
PARADIGMS = (*LABELLED_PARADIGMS, "golden", "amateur")
PHI = (math.sqrt(5) - 1) / 2  # 0.618


@dataclass(frozen=True)
class Part:
    """One parsed part: a category and its canvas-normalised geometry (validated)."""

    category: str
    cx: float
    cy: float
    scale: float = 0.2
    aspect: float = 1.0
    angle: float = 0.0

    def __post_init__(self) -> None:
        check_choice("part category", self.category, CATEGORIES)
        for name in ("cx", "cy"):
            check_float(f"part {name}", getattr(self, name), 0.0, 1.0)
        check_float("part scale", self.scale, 0.0, 1.0, low_open=True)
        check_float("part aspect", self.aspect, 0.0, 100.0, low_open=True)
        check_float("part angle", self.angle, -math.pi, math.pi)

    def moved(self, **geometry: float) -> Part:
        return replace(self, **{k: float(v) for k, v in geometry.items()})


def as_parts(parts, name: str = "parts") -> list[Part]:
    """A non-empty list of :class:`Part` from Parts or dicts with the same keys."""
    if isinstance(parts, (str, bytes)) or not hasattr(parts, "__iter__"):
        raise TypeError(f"{name} must be a list of Part or dicts, got {type(parts).__name__}")
    out = []
    for p in parts:
        if isinstance(p, Part):
            out.append(p)
        elif isinstance(p, dict):
            unknown = set(p) - {"category", "cx", "cy", "scale", "aspect", "angle"}
            if unknown or "category" not in p:
                raise ValueError(f"{name}: a part dict needs 'category', cx, cy (got keys {sorted(p)})")
            out.append(Part(**p))
        else:
            raise TypeError(f"{name} must hold Part or dict items, got {type(p).__name__}")
    if not out:
        raise ValueError(f"{name} must be a non-empty list of parts, got an empty list")
    return out


def _clip(x: float) -> float:
    return float(min(1.0, max(0.0, x)))


def sample_scene(paradigm: str, rng: np.random.Generator) -> list[Part]:
    """One scene of `paradigm` with geometric jitter (amateur: uniform random placement)."""
    check_choice("paradigm", paradigm, PARADIGMS)
    n = rng.normal
    if paradigm == "thirds":
        x, y = rng.choice([1 / 3, 2 / 3]), rng.choice([1 / 3, 2 / 3])
        return [Part("subject", _clip(x + n(0, 0.02)), _clip(y + n(0, 0.02)), rng.uniform(0.15, 0.25))]
    if paradigm == "centred":
        return [Part("subject", _clip(0.5 + n(0, 0.02)), _clip(0.5 + n(0, 0.02)), rng.uniform(0.3, 0.45))]
    if paradigm == "diagonal":
        s = rng.choice([0, 1])
        a, b = (0.3, 0.7) if s == 0 else (0.7, 0.3)
        return [
            Part("subject", _clip(0.3 + n(0, 0.02)), _clip(a + n(0, 0.02)), rng.uniform(0.18, 0.24)),
            Part("secondary", _clip(0.7 + n(0, 0.02)), _clip(b + n(0, 0.02)), rng.uniform(0.1, 0.14)),
        ]
    if paradigm == "horizon":
        h = _clip(rng.choice([1 / 3, 2 / 3]) + n(0, 0.015))
        x = rng.choice([1 / 3, 2 / 3])
        return [
            Part("horizon", 0.5, h, 1.0, 20.0, float(n(0, 0.01))),
            Part("subject", _clip(x + n(0, 0.02)), _clip(h - 0.08 + n(0, 0.01)), rng.uniform(0.08, 0.12)),
        ]
    if paradigm == "frame":
        return [
            Part("frame", _clip(0.5 + n(0, 0.01)), _clip(0.5 + n(0, 0.01)), rng.uniform(0.55, 0.7)),
            Part("subject", _clip(0.5 + n(0, 0.02)), _clip(0.5 + n(0, 0.02)), rng.uniform(0.12, 0.18)),
        ]
    if paradigm == "golden":
        x, y = rng.choice([1 - PHI, PHI]), rng.choice([1 - PHI, PHI])
        cx, cy = _clip(x + n(0, 0.012)), _clip(y + n(0, 0.012))
        sx, sy = math.copysign(0.15, cx - 0.5), math.copysign(0.15, cy - 0.5)
        return [
            Part("subject", cx, cy, rng.uniform(0.12, 0.18)),
            Part(
                "secondary", _clip(cx + sx + n(0, 0.01)), _clip(cy + sy + n(0, 0.01)), rng.uniform(0.05, 0.08)
            ),
        ]
    # amateur / the reference model q: every geometry uniform, optional parts
    parts = [Part("subject", rng.uniform(0.05, 0.95), rng.uniform(0.05, 0.95), rng.uniform(0.08, 0.6))]
    if rng.random() < 0.5:
        parts.append(
            Part("secondary", rng.uniform(0.05, 0.95), rng.uniform(0.05, 0.95), rng.uniform(0.05, 0.3))
        )
    if rng.random() < 0.5:
        parts.append(Part("horizon", 0.5, rng.uniform(0.15, 0.85), 1.0, 20.0, float(rng.uniform(-0.3, 0.3))))
    if rng.random() < 0.2:
        parts.append(Part("frame", rng.uniform(0.3, 0.7), rng.uniform(0.3, 0.7), rng.uniform(0.4, 0.8)))
    return parts


THIRDS = np.array([(a, b) for a in (1 / 3, 2 / 3) for b in (1 / 3, 2 / 3)])


def rating(parts, noise: float = 0.0) -> float:
    """The synthetic "human" rating: classic heuristics, independent of the template family.

    rating = 5 - 4 d3 - 2 imbalance - 3 |tilt| - 0.5 violations (+ noise), with d3 the subject's distance to the
    nearest thirds point, imbalance the left-right visual-mass moment (mass = scale^2 of subject and secondary)
    over the total mass, tilt the horizon's angle, violations the subject/secondary boxes within 0.02 of an edge.
    """
    parts = as_parts(parts)
    subj = [p for p in parts if p.category == "subject"]
    d3 = float(np.min(np.hypot(*(THIRDS - [subj[0].cx, subj[0].cy]).T))) if subj else 0.5
    objs = [p for p in parts if p.category in ("subject", "secondary")]
    mass = sum(p.scale**2 for p in objs)
    imbalance = abs(sum(p.scale**2 * (p.cx - 0.5) for p in objs)) / mass if mass else 0.0
    tilt = sum(abs(p.angle) for p in parts if p.category == "horizon")
    viol = 0
    for p in objs:
        h = p.scale / 2
        viol += int(p.cx - h < 0.02 or p.cx + h > 0.98 or p.cy - h < 0.02 or p.cy + h > 0.98)
    return 5.0 - 4.0 * d3 - 2.0 * imbalance - 3.0 * tilt - 0.5 * viol + noise


class CompositionRenderer:
    """Deterministic Pillow renderer of part lists, and a sampler of scenes with their images.

    Example
    -------
    >>> import numpy as np
    >>> r = CompositionRenderer(size=32)
    >>> img, parts = r.sample("thirds", np.random.default_rng(0))
    >>> img.size, parts[0].category
    ((32, 32), 'subject')
    """

    def __init__(self, size: int = 64) -> None:
        self.size = check_int("size", size, 8, 1024)

    def render(self, parts) -> Image.Image:
        parts = as_parts(parts)
        s = self.size
        img = Image.new("RGB", (s, s), (200, 220, 240))
        d = ImageDraw.Draw(img)
        order = {"horizon": 0, "frame": 1, "secondary": 2, "subject": 3}
        for p in sorted(parts, key=lambda p: (order[p.category], p.cx, p.cy, p.scale)):
            x, y = p.cx * s, p.cy * s
            if p.category == "horizon":
                t = math.tan(p.angle)
                d.polygon([(0, y - t * s / 2), (s, y + t * s / 2), (s, s), (0, s)], fill=(90, 140, 70))
            elif p.category == "frame":
                h = p.scale * s / 2
                d.rectangle([x - h, y - h, x + h, y + h], outline=(60, 40, 20), width=max(1, s // 32))
            else:
                hw = p.scale * s / 2 * math.sqrt(p.aspect)
                hh = p.scale * s / 2 / math.sqrt(p.aspect)
                color = (180, 40, 40) if p.category == "subject" else (40, 60, 170)
                if p.category == "subject":
                    d.ellipse([x - hw, y - hh, x + hw, y + hh], fill=color)
                else:
                    d.rectangle([x - hw, y - hh, x + hw, y + hh], fill=color)
        return img

    def sample(self, paradigm: str, rng: np.random.Generator) -> tuple[Image.Image, list[Part]]:
        parts = sample_scene(paradigm, rng)
        return self.render(parts), parts

    def pixels(self, scenes) -> np.ndarray:
        """(n, 3, size, size) float32 in [0, 1]."""
        return np.stack(
            [np.asarray(self.render(p), dtype=np.float32).transpose(2, 0, 1) / 255 for p in scenes]
        )
