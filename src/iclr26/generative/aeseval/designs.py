"""Procedural graphic designs with indicator-specific perturbations and exact ground truth (AesEval-Bench analogue).

AesEval-Bench (An et al., ICLR 2026, arXiv 2603.01083) perturbs Crello designs per aesthetic indicator and records
which element changed. Offline, :class:`ProceduralDesignGenerator` draws clean designs with Pillow (a left-aligned
column inside margins: headline, divider bar, photo, two body lines, a decorative circle in the bottom-right
corner; a palette of analogous hues) and applies one of nine objectively defined perturbations, each changing
exactly one element and pushing one measurable property across a stated threshold:

==================  ==============================================================  =========================
key                 perturbation                                                    measured property
==================  ==============================================================  =========================
layout-alignment    one element shifted right off the shared left edge by 2-8%      ``left - margin`` in [.02, .08]
layout-whitespace   one element stretched to within 1.5% of both canvas sides       edge distance < 0.015
layout-balance      the photo (heaviest element) halved and pushed right            area centroid off-centre >= .03
layout-layering     the decorative circle moved over the headline                   >= 50% of it on the headline
font-hierarchy      the headline set smaller than the body text                     headline size < body size
font-legibility     one body line set in a tiny font                                font < 7/256 of the height
graphic-quality     the photo down- then up-sampled (blocky)                        equal-neighbour share >= 0.8
color-contrast      one text element recoloured towards the background              WCAG contrast ratio < 2
color-harmony       one coloured element given a hue outside the palette            hue distance > 90 degrees
==================  ==============================================================  =========================

A sample carries its preview, its element metadata in the official ``simplified_meta_info`` form (pixel
``left, top, width, height``, ``element_index``, ``type``...) and its ground truth ``{"dimension-indicator":
[change, ...]}`` with an empty list for a clean design.
"""

from __future__ import annotations

import colorsys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from PIL import Image

from iclr26.checks import check_array, check_choice, check_float, check_int
from iclr26.lab.vision import Box, Element, hue, hue_distance, register_kind, render_design
from iclr26.lab.vision.render import element_kinds

__all__ = [
    "INDICATORS",
    "OFFLINE_INDICATORS",
    "AesEvalSample",
    "ProceduralDesignGenerator",
    "balance_offset",
    "equal_neighbour_share",
]

# the twelve indicators of the benchmark, keyed as in the official GT.json (dimension part: layout/font/graphic/color)
INDICATORS = (
    "layout-balance",
    "layout-layering",
    "layout-whitespace",
    "layout-alignment",
    "font-legibility",
    "font-hierarchy",
    "graphic-quality",
    "graphic-relevance",
    "color-harmony",
    "color-contrast",
    "color-appeal",
    "color-psychology",
)
# the nine with an objective procedural definition (relevance, appeal and psychology are not generated offline)
OFFLINE_INDICATORS = (
    "layout-alignment",
    "layout-whitespace",
    "layout-balance",
    "layout-layering",
    "font-hierarchy",
    "font-legibility",
    "graphic-quality",
    "color-contrast",
    "color-harmony",
)
_WORDS = "sale design spring coffee studio modern summer event music garden fresh night market open".split()
_BLOCK = 10  # pixel block of the low-quality photo


def _texture(el: Element, w: int, h: int) -> np.ndarray:
    """A seeded grey texture in [0.55, 1] modulating the fill (hue kept: value changes only)."""
    rng = np.random.default_rng(el.seed)
    coarse = (rng.uniform(0, 255, size=(10, 10))).astype(np.uint8)
    tex = np.asarray(Image.fromarray(coarse, "L").resize((w, h), Image.Resampling.BICUBIC), dtype=np.float32)
    return 0.55 + 0.45 * tex[..., None] / 255.0


def _draw_photo(img: Image.Image, el: Element, xy: tuple[int, int, int, int]) -> None:
    x0, y0, x1, y1 = xy
    arr = np.asarray(el.fill, dtype=np.float32) * _texture(el, x1 - x0, y1 - y0)
    img.paste(Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8), "RGB"), (x0, y0))


def _draw_lowres_photo(img: Image.Image, el: Element, xy: tuple[int, int, int, int]) -> None:
    """The same photo down-sampled by ``_BLOCK`` (box) and up-sampled (nearest): blocky, detail lost."""
    x0, y0, x1, y1 = xy
    w, h = x1 - x0, y1 - y0
    arr = np.asarray(el.fill, dtype=np.float32) * _texture(el, w, h)
    sharp = Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8), "RGB")
    small = sharp.resize((max(1, w // _BLOCK), max(1, h // _BLOCK)), Image.Resampling.BOX)
    img.paste(small.resize((w, h), Image.Resampling.NEAREST), (x0, y0))


for _name, _fn in (("aes_photo", _draw_photo), ("aes_photo_lowres", _draw_lowres_photo)):
    if _name not in element_kinds():
        register_kind(_name, _fn)


def _rgb(h: float, s: float, v: float) -> tuple[int, int, int]:
    r, g, b = colorsys.hsv_to_rgb((h % 360.0) / 360.0, s, v)
    return round(r * 255), round(g * 255), round(b * 255)


@dataclass
class AesEvalSample:
    """One benchmark sample: ``image`` (the preview), ``elements`` (official metadata dicts, pixel boxes), ``gt``
    (``{"dimension-indicator": [change, ...]}``; an empty list: no issue) and the design's renderer elements."""

    sample_id: str
    image: Image.Image
    elements: list[dict[str, Any]]
    gt: dict[str, list[dict[str, Any]]]
    design: list[Element] = field(default_factory=list, repr=False)

    @property
    def size(self) -> tuple[int, int]:
        return self.image.size

    def element(self, index: int) -> dict[str, Any] | None:
        return next((e for e in self.elements if e["element_index"] == index), None)

    def box(self, index: int) -> Box:
        """The normalised box of element ``index``."""
        e = self.element(index)
        if e is None:
            raise KeyError(f"sample {self.sample_id!r} has no element_index {index}")
        w, h = self.size
        return Box(e["left"] / w, e["top"] / h, e["width"] / w, e["height"] / h)


def balance_offset(boxes: Sequence[Box]) -> float:
    """``|x_c - 1/2|`` of the area-weighted horizontal centroid of ``boxes`` (0: balanced)."""
    area = sum(b.area for b in boxes)
    return abs(sum(b.area * b.centre[0] for b in boxes) / area - 0.5)


def equal_neighbour_share(pixels: np.ndarray) -> float:
    """Share of horizontally adjacent pixel pairs with identical RGB (blockiness; a smooth photo is near 0)."""
    a = check_array("pixels", pixels, ndim=3)
    return float(np.all(a[:, 1:] == a[:, :-1], axis=-1).mean())


class ProceduralDesignGenerator:
    """Seeded clean designs and the nine indicator perturbations, with exact ground truth.

    Parameters
    ----------
    canvas : preview size in pixels (square).
    p_issue : probability that a sample is perturbed (for its indicator); otherwise it is clean.
    indicators : the indicator keys sampled (balanced: sample ``i`` asks about ``indicators[i % k]``).

    Example
    -------
    >>> gen = ProceduralDesignGenerator(canvas=128)
    >>> s = gen.sample(0, "layout-alignment", perturb=True)
    >>> key, = s.gt; key, s.gt[key][0]["element_index"] in {e["element_index"] for e in s.elements}
    ('layout-alignment', True)
    """

    def __init__(
        self, canvas: int = 256, p_issue: float = 0.5, indicators: Sequence[str] = OFFLINE_INDICATORS
    ) -> None:
        self.canvas = check_int("canvas", canvas, 64, 2048)
        self.p_issue = check_float("p_issue", p_issue, 0.0, 1.0)
        if isinstance(indicators, str) or not indicators:
            raise ValueError(
                f"indicators must be a non-empty sequence of {OFFLINE_INDICATORS}, got {indicators!r}"
            )
        for k in indicators:
            if k not in OFFLINE_INDICATORS:
                raise ValueError(
                    f"indicator must be one of the offline indicators {', '.join(OFFLINE_INDICATORS)}, got {k!r}"
                )
        self.indicators = tuple(indicators)

    # -- clean design ---------------------------------------------------------------------------------------
    def clean(self, rng: np.random.Generator) -> tuple[list[Element], tuple[int, int, int], dict[str, float]]:
        """A clean design: elements, background colour and its layout parameters (margin, palette hue)."""
        h0 = float(rng.uniform(0, 360))
        m = float(rng.uniform(0.08, 0.11))
        width = 1 - 2 * m
        bg = _rgb(h0, float(rng.uniform(0.03, 0.1)), 0.98)
        ink = _rgb(h0 + rng.uniform(-15, 15), 0.6, float(rng.uniform(0.15, 0.3)))
        body_fs = float(rng.uniform(0.045, 0.055))
        head_fs = body_fs * float(rng.uniform(1.7, 2.0))
        words = rng.choice(_WORDS, size=5, replace=False)
        y = m
        els: list[Element] = []

        def add(kind: str, height: float, gap: float, **kw: Any) -> None:
            nonlocal y
            els.append(Element(kind, Box(m, y, width, height), seed=int(rng.integers(1 << 30)), **kw))
            y += height + gap

        add(
            "text",
            head_fs * 1.25,
            0.02,
            fill=ink,
            text=f"{words[0]} {words[1]}".upper(),
            font_size=head_fs,
            attrs={"role": "headline"},
        )
        add("rect", 0.02, 0.03, fill=_rgb(h0 + rng.uniform(-20, 20), 0.75, 0.85), attrs={"role": "divider"})
        add(
            "aes_photo",
            float(rng.uniform(0.22, 0.28)),
            0.03,
            fill=_rgb(h0 + rng.uniform(-20, 20), 0.55, 0.95),
            attrs={"role": "photo"},
        )
        for k in (2, 3):
            add(
                "text",
                body_fs * 1.3,
                0.012,
                fill=ink,
                text=f"{words[k]} {words[4]} {words[0]}",
                font_size=body_fs,
                attrs={"role": "body"},
            )
        s = 0.08
        els.append(
            Element(
                "ellipse",
                Box(1 - m - s, 1 - m - s, s, s),
                fill=_rgb(h0 + rng.uniform(-20, 20), 0.7, 0.9),
                z=1,
                seed=int(rng.integers(1 << 30)),
                attrs={"role": "decoration"},
            )
        )
        return els, bg, {"margin": m, "hue": h0}

    # -- perturbations ---------------------------------------------------------------------------------------
    def perturb(
        self,
        els: list[Element],
        bg: tuple[int, int, int],
        params: dict[str, float],
        key: str,
        rng: np.random.Generator,
    ) -> tuple[list[Element], dict[str, Any]]:
        """``els`` with one element changed for indicator ``key``, and the change record."""
        m, h0 = params["margin"], params["hue"]
        role = [e.attrs["role"] for e in els]
        idx_of = {r: i for i, r in reversed(list(enumerate(role)))}
        texts = [i for i, r in enumerate(role) if r in ("headline", "body")]
        out = list(els)
        if key == "layout-alignment":
            i = int(rng.choice([i for i, r in enumerate(role) if r != "decoration"]))
            d = float(rng.uniform(0.02, 0.08))
            b = els[i].box
            out[i] = els[i].replace(box=Box(b.left + d, b.top, b.width - d, b.height))
            prop = {"shift": d}
        elif key == "layout-whitespace":
            i = int(rng.choice([idx_of["divider"], idx_of["photo"]]))
            e = float(rng.uniform(0.0, 0.012))
            b = els[i].box
            out[i] = els[i].replace(box=Box(e, b.top, 1 - 2 * e, b.height))
            prop = {"edge_distance": e}
        elif key == "layout-balance":
            i = idx_of["photo"]
            b = els[i].box
            w = b.width * 0.5
            out[i] = els[i].replace(box=Box(1 - m - w, b.top, w, b.height))
            prop = {}
        elif key == "layout-layering":
            i = idx_of["decoration"]
            head = els[idx_of["headline"]].box
            s = els[i].box.width
            cx = head.left + float(rng.uniform(0.1, 0.5)) * head.width
            top = max(0.0, head.top + head.height / 2 - s / 2)
            out[i] = els[i].replace(box=Box(cx - s / 2, top, s, s))
            prop = {}
        elif key == "font-hierarchy":
            i = idx_of["headline"]
            body = els[texts[1]].font_size
            out[i] = els[i].replace(font_size=body * float(rng.uniform(0.6, 0.8)))
            prop = {}
        elif key == "font-legibility":
            i = int(rng.choice([i for i in texts if role[i] == "body"]))
            out[i] = els[i].replace(font_size=float(rng.uniform(5.0, 6.5)) / 256.0)
            prop = {}
        elif key == "graphic-quality":
            i = idx_of["photo"]
            out[i] = els[i].replace(kind="aes_photo_lowres")
            prop = {"block": _BLOCK}
        elif key == "color-contrast":
            i = int(rng.choice(texts))
            target = float(rng.uniform(1.2, 1.8))
            fg = _toward(els[i].fill, bg, target)
            out[i] = els[i].replace(fill=fg)
            prop = {"target_ratio": target}
        elif key == "color-harmony":
            i = int(rng.choice([idx_of["divider"], idx_of["photo"], idx_of["decoration"]]))
            off = h0 + 180 + float(rng.uniform(-60, 60))
            h, s, v = colorsys.rgb_to_hsv(*(c / 255 for c in els[i].fill))
            out[i] = els[i].replace(fill=_rgb(off, max(s, 0.6), max(v, 0.7)))
            prop = {"hue_distance": hue_distance(hue(out[i].fill), h0)}
        else:
            raise ValueError(f"indicator must be one of {', '.join(OFFLINE_INDICATORS)}, got {key!r}")
        change = {"element_index": i, "indicator": key, "role": role[i], **prop}
        return out, change

    # -- samples ----------------------------------------------------------------------------------------------
    def sample(self, seed: int, key: str, perturb: bool, sample_id: str | None = None) -> AesEvalSample:
        """The design drawn from ``seed``, perturbed for ``key`` when ``perturb``; ``gt = {key: [...]}``."""
        rng = np.random.default_rng([check_int("seed", seed, 0), 0xAE5])
        check_choice("indicator", key, OFFLINE_INDICATORS)
        els, bg, params = self.clean(rng)
        changes: list[dict[str, Any]] = []
        if perturb:
            els, change = self.perturb(els, bg, params, key, rng)
            changes.append(change)
        img = render_design(els, canvas=self.canvas, background=bg)
        meta = []
        for i, e in enumerate(els):
            x0, y0, x1, y1 = e.box.to_pixels(self.canvas)
            meta.append(
                {
                    "element_index": i,
                    "left": x0,
                    "top": y0,
                    "width": x1 - x0,
                    "height": y1 - y0,
                    "type": "textElement"
                    if e.kind == "text"
                    else ("imageElement" if "photo" in e.kind else "svgElement"),
                    "text": e.text,
                    "color": list(e.fill),
                    "font_size": round(e.font_size * self.canvas, 2) if e.kind == "text" else None,
                }
            )
        return AesEvalSample(sample_id or f"design{seed:06d}", img, meta, {key: changes}, design=els)

    def split(self, n: int, seed: int, prefix: str = "s") -> list[AesEvalSample]:
        """``n`` samples, indicators balanced (sample ``i`` asks ``indicators[i % k]``), each perturbed with
        probability ``p_issue``; the same ``(n, seed)`` always gives the same split, and a shorter split is a prefix."""
        n = check_int("n", n, 1)
        seed = check_int("seed", seed, 0)
        k = len(self.indicators)
        out = []
        for i in range(n):  # per-sample streams: split(m, seed) is split(n, seed)[:m]
            rng = np.random.default_rng([seed, 0x5B1, i])
            flag = bool(rng.random() < self.p_issue)
            out.append(
                self.sample(
                    int(rng.integers(2**31 - 1)), self.indicators[i % k], flag, f"{prefix}{i:05d}_new"
                )
            )
        return out


def _toward(fg: tuple[int, int, int], bg: tuple[int, int, int], target: float) -> tuple[int, int, int]:
    """``fg`` blended towards ``bg`` until the WCAG contrast ratio first drops to ``target`` or below."""
    from iclr26.lab.vision import contrast_ratio

    a, b = np.asarray(fg, dtype=float), np.asarray(bg, dtype=float)
    for t in np.linspace(0, 1, 201):
        c = tuple(int(round(v)) for v in (1 - t) * a + t * b)
        if contrast_ratio(c, bg) <= target:
            return c  # type: ignore[return-value]
    return tuple(int(v) for v in b)  # type: ignore[return-value]
