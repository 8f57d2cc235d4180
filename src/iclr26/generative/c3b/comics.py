"""``ComicGenerator``: deterministic three-panel comic strips over fictional cultures, with exact answers.

A scene graph fixes a host culture (panel 1: the host's building, with its wall colour, pattern and festival
symbol), three characters Kai, Lumi and Noor at a table with a dish (panel 2: each with clothing colour and
pattern, headgear, a greeting gesture and a held flower), and an arriving guest with an empty speech bubble at the
host's door (panel 3). ``n_cultures_per_image`` is the number of distinct cultures among the host, the dish, the
three characters and the guest, so a 3-culture strip cannot be read from one global colour cue.

Questions (the brief's three levels, same semantics in en/zh/es/fr, options permuted per item):

* L1 Extraction: which culture the dish belongs to (4 culture names; answer = the dish's culture);
* L2 Conflict: which character's action conflicts with the host culture's custom (Kai, Lumi, Noor or "none";
  a conflict = the host's taboo gesture or a flower of the host's taboo colour; at most one character conflicts);
* L3 Generation: the greeting the guest should use (free text; reference = the host's greeting word in the
  target language's template sentence).

Every answer is recomputed from the scene graph by :func:`answer_from_scene`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from PIL import Image, ImageDraw

from iclr26.checks import check_int
from iclr26.generative.c3b.cultures import (
    CHARACTERS,
    CULTURES,
    FLOWER_COLOURS,
    GESTURES,
    LANGUAGES,
    NONE_WORD,
    QUESTIONS,
    check_language,
    greeting_reference,
)
from iclr26.lab.vision import Box, Element, VQAItem, element_kinds, register_kind, render_design, tile_panels

__all__ = [
    "GAP",
    "ComicGenerator",
    "Scene",
    "answer_from_scene",
    "conflicts",
    "downsize_strip",
    "split_panels",
]

GAP = 4  # pixels between panels of a strip (tile_panels)
_KEYS = [c.key for c in CULTURES]
_BY_KEY = {c.key: c for c in CULTURES}


@dataclass(frozen=True)
class Scene:
    """The scene graph of one strip: culture keys per element and each character's gesture and flower."""

    host: str
    dish: str
    characters: tuple[str, str, str]
    guest: str
    gestures: tuple[str, str, str]
    flowers: tuple[str, str, str]
    n_cultures: int

    @property
    def cultures(self) -> frozenset[str]:
        return frozenset((self.host, self.dish, *self.characters, self.guest))


def conflicts(scene: Scene) -> list[int]:
    """Indices of the characters whose gesture or flower breaks the host culture's norm."""
    host = _BY_KEY[scene.host]
    return [
        i
        for i in range(3)
        if scene.gestures[i] == host.taboo_gesture or scene.flowers[i] == host.taboo_colour
    ]


def answer_from_scene(scene: Scene, level: int, language: str = "en") -> str:
    """The answer text of a level's question, recomputed from the scene graph alone."""
    language = check_language(language)
    if level == 1:
        return _BY_KEY[scene.dish].name
    if level == 2:
        hits = conflicts(scene)
        if len(hits) > 1:
            raise ValueError(f"scene has {len(hits)} conflicting characters; at most one is allowed")
        return CHARACTERS[hits[0]] if hits else NONE_WORD[language]
    if level == 3:
        return greeting_reference(_BY_KEY[scene.host], language)
    raise ValueError(f"level must be 1, 2 or 3, got {level!r}")


# ---------------------------------------------------------------- drawing (own element kinds)


def _shade(rgb: Sequence[int], f: float) -> tuple[int, int, int]:
    return tuple(int(np.clip(c * f, 0, 255)) for c in rgb)  # type: ignore[return-value]


def _pattern(d: ImageDraw.ImageDraw, xy: tuple[int, int, int, int], kind: str, rgb: Sequence[int]) -> None:
    """Fill a box with the culture colour and its pattern in a darker tone."""
    x0, y0, x1, y1 = xy
    d.rectangle([x0, y0, x1 - 1, y1 - 1], fill=tuple(rgb))
    ink = _shade(rgb, 0.45)
    step = max(4, (x1 - x0) // 5)
    w = max(2, step // 3)
    if kind == "stripes":
        for y in range(y0 + step // 2, y1, step):
            d.rectangle([x0, y, x1 - 1, min(y1 - 1, y + w)], fill=ink)
    elif kind == "dots":
        for y in range(y0 + step // 2, y1 - w, step):
            for x in range(x0 + step // 2, x1 - w, step):
                d.ellipse([x - w, y - w, x + w, y + w], fill=ink)
    elif kind == "checks":
        for j, y in enumerate(range(y0, y1, step)):
            for i, x in enumerate(range(x0, x1, step)):
                if (i + j) % 2:
                    d.rectangle([x, y, min(x1 - 1, x + step - 1), min(y1 - 1, y + step - 1)], fill=ink)
    elif kind == "zigzag":
        for y in range(y0 + step // 2, y1, step):
            pts = [(x, y + (w if k % 2 else -w)) for k, x in enumerate(range(x0, x1 + step, step // 2))]
            d.line(pts, fill=ink, width=w)


def _symbol(d: ImageDraw.ImageDraw, cx: float, cy: float, r: float, kind: str) -> None:
    gold = (250, 220, 90)
    if kind == "star":
        pts = []
        for k in range(10):
            a = -np.pi / 2 + k * np.pi / 5
            rr = r if k % 2 == 0 else r * 0.45
            pts.append((cx + rr * np.cos(a), cy + rr * np.sin(a)))
        d.polygon(pts, fill=gold)
    elif kind == "moon":
        d.ellipse([cx - r, cy - r, cx + r, cy + r], fill=gold)
        d.ellipse([cx - r * 0.4, cy - r, cx + r * 1.4, cy + r * 0.9], fill=(30, 30, 60))
    elif kind == "sun":
        d.ellipse([cx - r * 0.6, cy - r * 0.6, cx + r * 0.6, cy + r * 0.6], fill=gold)
        for k in range(8):
            a = k * np.pi / 4
            d.line([(cx + 0.7 * r * np.cos(a), cy + 0.7 * r * np.sin(a)),
                    (cx + r * np.cos(a), cy + r * np.sin(a))], fill=gold, width=max(2, int(r / 5)))  # fmt: skip
    elif kind == "leaf":
        d.ellipse([cx - r * 0.5, cy - r, cx + r * 0.5, cy + r], fill=(90, 200, 90))
        d.line([(cx, cy - r), (cx, cy + r)], fill=(20, 90, 20), width=max(2, int(r / 6)))


def _building(img: Image.Image, el: Element, xy: tuple[int, int, int, int]) -> None:
    """A house: a dark roof, the wall in the culture's colour and pattern, the festival symbol and a door."""
    c = _BY_KEY[el.attrs["culture"]]
    d = ImageDraw.Draw(img)
    x0, y0, x1, y1 = xy
    roof = y0 + (y1 - y0) // 3
    d.polygon([(x0, roof), ((x0 + x1) / 2, y0), (x1 - 1, roof)], fill=_shade(c.palette, 0.5))
    _pattern(d, (x0, roof, x1, y1), c.pattern, c.palette)
    w = x1 - x0
    d.rectangle([x0 + 0.4 * w, y1 - 0.35 * (y1 - roof), x0 + 0.6 * w, y1 - 1], fill=(70, 45, 25))
    s = 0.13 * w
    d.rectangle([x0 + 0.5 * w - s * 1.2, roof + 0.1 * (y1 - roof), x0 + 0.5 * w + s * 1.2,
                 roof + 0.1 * (y1 - roof) + 2.4 * s], fill=(30, 30, 60))  # fmt: skip
    _symbol(d, x0 + 0.5 * w, roof + 0.1 * (y1 - roof) + 1.2 * s, s, c.symbol)


def _headgear(d: ImageDraw.ImageDraw, cx: float, top: float, r: float, kind: str, rgb) -> None:
    ink = _shade(rgb, 0.6)
    if kind == "cone":
        d.polygon(
            [(cx - 1.2 * r, top + 0.3 * r), (cx + 1.2 * r, top + 0.3 * r), (cx, top - 1.6 * r)], fill=ink
        )
    elif kind == "flat":
        d.rectangle([cx - 1.6 * r, top - 0.1 * r, cx + 1.6 * r, top + 0.35 * r], fill=ink)
        d.rectangle([cx - 0.8 * r, top - 0.8 * r, cx + 0.8 * r, top], fill=ink)
    elif kind == "band":
        d.rectangle([cx - 1.05 * r, top + 0.3 * r, cx + 1.05 * r, top + 0.75 * r], fill=ink)
    elif kind == "crown":
        pts = [(cx - r, top + 0.4 * r), (cx - r, top - 0.7 * r), (cx - 0.5 * r, top - 0.1 * r), (cx, top - 0.9 * r),
               (cx + 0.5 * r, top - 0.1 * r), (cx + r, top - 0.7 * r), (cx + r, top + 0.4 * r)]  # fmt: skip
        d.polygon(pts, fill=ink)


def _figure(img: Image.Image, el: Element, xy: tuple[int, int, int, int]) -> None:
    """A stick figure: headgear, head, patterned shirt, legs, arms posed by the gesture, a held flower."""
    c = _BY_KEY[el.attrs["culture"]]
    gesture, flower = el.attrs["gesture"], el.attrs.get("flower")
    d = ImageDraw.Draw(img)
    x0, y0, x1, y1 = xy
    w, h = x1 - x0, y1 - y0
    cx = (x0 + x1) / 2
    lw = max(2, round(w / 9))
    r = 0.16 * w
    head_y = y0 + 0.22 * h + (0.12 * h if gesture == "bow" else 0.0)
    head_x = cx + (0.22 * w if gesture == "bow" else 0.0)
    ink = (30, 30, 30)
    shoulder = y0 + 0.38 * h
    hip = y0 + 0.68 * h
    # legs
    d.line([(cx, hip), (cx - 0.22 * w, y1 - 1)], fill=ink, width=lw)
    d.line([(cx, hip), (cx + 0.22 * w, y1 - 1)], fill=ink, width=lw)
    # shirt in the culture's colour and pattern
    _pattern(d, (round(cx - 0.25 * w), round(shoulder - 0.02 * h), round(cx + 0.25 * w), round(hip)), c.pattern,
             c.palette)  # fmt: skip
    # arms
    left_hand = (cx - 0.45 * w, hip - 0.02 * h)
    right_hand = (cx + 0.45 * w, hip - 0.02 * h)
    if gesture == "wave":
        right_hand = (cx + 0.48 * w, y0 + 0.12 * h)
    elif gesture == "raise":
        left_hand = (cx - 0.48 * w, y0 + 0.12 * h)
        right_hand = (cx + 0.48 * w, y0 + 0.12 * h)
    d.line([(cx - 0.22 * w, shoulder), left_hand], fill=ink, width=lw)
    d.line([(cx + 0.22 * w, shoulder), right_hand], fill=ink, width=lw)
    # head and headgear
    d.ellipse(
        [head_x - r, head_y - r, head_x + r, head_y + r],
        fill=(245, 215, 180),
        outline=ink,
        width=max(1, lw // 2),
    )
    _headgear(d, head_x, head_y - r, r, c.headgear, c.palette)
    if flower is not None:
        fr = 0.15 * w
        fx, fy = left_hand
        d.ellipse([fx - fr, fy - fr, fx + fr, fy + fr], fill=FLOWER_COLOURS[flower], outline=ink, width=1)


def _dish(img: Image.Image, el: Element, xy: tuple[int, int, int, int]) -> None:
    """A food icon: the culture's dish shape in its colour, on a white plate."""
    c = _BY_KEY[el.attrs["culture"]]
    d = ImageDraw.Draw(img)
    x0, y0, x1, y1 = xy
    w, h = x1 - x0, y1 - y0
    d.ellipse([x0, y0 + 0.55 * h, x1 - 1, y1 - 1], fill=(250, 250, 250), outline=(90, 90, 90))
    col, dark = c.palette, _shade(c.palette, 0.5)
    if c.dish == "bowl":
        d.chord(
            [x0 + 0.1 * w, y0 + 0.1 * h, x1 - 0.1 * w, y0 + 0.9 * h], 0, 180, fill=col, outline=dark, width=2
        )
    elif c.dish == "cake":
        d.rectangle(
            [x0 + 0.2 * w, y0 + 0.15 * h, x1 - 0.2 * w, y0 + 0.75 * h], fill=col, outline=dark, width=2
        )
    elif c.dish == "skewer":
        d.line([(x0 + 0.1 * w, y0 + 0.45 * h), (x1 - 0.1 * w, y0 + 0.45 * h)], fill=(90, 60, 30), width=2)
        for k in range(3):
            cx = x0 + (0.28 + 0.22 * k) * w
            d.ellipse([cx - 0.1 * w, y0 + 0.25 * h, cx + 0.1 * w, y0 + 0.65 * h], fill=col, outline=dark)
    elif c.dish == "pie":
        d.polygon([(x0 + 0.15 * w, y0 + 0.75 * h), (x1 - 0.15 * w, y0 + 0.75 * h), ((x0 + x1) / 2, y0 + 0.1 * h)],
                  fill=col, outline=dark)  # fmt: skip


def _bubble(img: Image.Image, el: Element, xy: tuple[int, int, int, int]) -> None:
    """An empty speech bubble with a tail and a question mark (the greeting to write)."""
    d = ImageDraw.Draw(img)
    x0, y0, x1, y1 = xy
    d.ellipse([x0, y0, x1 - 1, y0 + 0.8 * (y1 - y0)], fill=(255, 255, 255), outline=(20, 20, 20), width=2)
    d.polygon([(x0 + 0.3 * (x1 - x0), y0 + 0.7 * (y1 - y0)), (x0 + 0.45 * (x1 - x0), y0 + 0.7 * (y1 - y0)),
               (x0 + 0.2 * (x1 - x0), y1 - 1)], fill=(255, 255, 255), outline=(20, 20, 20))  # fmt: skip


for _name, _fn in (
    ("c3b_building", _building),
    ("c3b_figure", _figure),
    ("c3b_dish", _dish),
    ("c3b_bubble", _bubble),
):
    if _name not in element_kinds():
        register_kind(_name, _fn)


# ---------------------------------------------------------------- the generator


def split_panels(image: Image.Image, n_panels: int = 3, gap: int = GAP) -> list[Image.Image]:
    """The panels of a strip made by :meth:`ComicGenerator.render` (equal square panels, ``gap`` apart)."""
    w, h = image.size
    size = h - 2 * gap
    if size < 8 or w != n_panels * size + (n_panels + 1) * gap:
        raise ValueError(
            f"image of size {image.size} is not a strip of {n_panels} square panels {gap} px apart"
        )
    return [
        image.crop((gap + k * (size + gap), gap, gap + k * (size + gap) + size, gap + size))
        for k in range(n_panels)
    ]


class ComicGenerator:
    """Deterministic comic strips and their L1/L2/L3 items over the fictional cultures C1..C8.

    Parameters
    ----------
    panel_size : pixels per square panel (the brief: 256).
    n_cultures_per_image : the allowed numbers of distinct cultures per strip, drawn uniformly (subset of 1..3).
    languages : the question languages, drawn uniformly per item.

    Example
    -------
    >>> import numpy as np
    >>> gen = ComicGenerator(panel_size=64)
    >>> scene = gen.sample_scene(np.random.default_rng(0), n_cultures=3)
    >>> len(scene.cultures)
    3
    >>> image = gen.render(scene)
    >>> items = gen.items(scene, image, np.random.default_rng(1), item_id="s0")
    >>> [it.meta["level"] for it in items]
    [1, 2, 3]
    """

    def __init__(
        self,
        panel_size: int = 256,
        n_cultures_per_image: Sequence[int] = (1, 2, 3),
        languages: Sequence[str] = LANGUAGES,
    ) -> None:
        self.panel_size = check_int("panel_size", panel_size, 32, 1024)
        ncs = tuple(n_cultures_per_image)
        if not ncs or any(n not in (1, 2, 3) for n in ncs) or len(set(ncs)) != len(ncs):
            raise ValueError(
                f"n_cultures_per_image must be distinct values among 1, 2, 3, got {n_cultures_per_image!r}"
            )
        self.n_cultures_per_image = ncs
        langs = tuple(languages)
        if not langs:
            raise ValueError("languages must be a non-empty sequence of language codes")
        self.languages = tuple(check_language(lang) for lang in langs)

    # scene graph ---------------------------------------------------------------
    def sample_scene(self, rng: np.random.Generator, n_cultures: int | None = None) -> Scene:
        """A scene with exactly ``n_cultures`` distinct cultures (drawn from the allowed ones if None)."""
        if n_cultures is None:
            n_cultures = int(rng.choice(self.n_cultures_per_image))
        n_cultures = check_int("n_cultures", n_cultures, 1, 3)
        pool = list(rng.choice(_KEYS, size=n_cultures, replace=False))
        while True:  # host, dish, 3 characters, guest; every culture of the pool appears
            roles = [str(pool[int(k)]) for k in rng.integers(n_cultures, size=6)]
            if len(set(roles)) == n_cultures:
                break
        host = _BY_KEY[roles[0]]
        ok_g = [g for g in GESTURES if g != host.taboo_gesture]
        ok_f = [f for f in FLOWER_COLOURS if f != host.taboo_colour]
        gestures = [ok_g[int(rng.integers(len(ok_g)))] for _ in range(3)]
        flowers = [ok_f[int(rng.integers(len(ok_f)))] for _ in range(3)]
        answer = int(rng.integers(4))  # Kai, Lumi, Noor, none: uniform
        if answer < 3:
            if rng.random() < 0.5:
                gestures[answer] = host.taboo_gesture
            else:
                flowers[answer] = host.taboo_colour
        return Scene(
            roles[0],
            roles[1],
            (roles[2], roles[3], roles[4]),
            roles[5],
            tuple(gestures),
            tuple(flowers),
            n_cultures,
        )

    # rendering -----------------------------------------------------------------
    def panels(self, scene: Scene) -> list[list[Element]]:
        """The elements of the three panels (canvas-normalised boxes; ground truth in ``attrs``)."""
        p1 = [
            Element("rect", Box(0, 0.8, 1, 0.2), fill=(120, 170, 90)),
            Element("c3b_building", Box(0.15, 0.12, 0.7, 0.7), attrs={"culture": scene.host}, z=1),
        ]
        p2 = [Element("rect", Box(0, 0.72, 1, 0.28), fill=(200, 190, 170))]
        for k, (cul, g, f) in enumerate(zip(scene.characters, scene.gestures, scene.flowers, strict=True)):
            left = 0.04 + 0.32 * k
            p2.append(Element("text", Box(left + 0.06, 0.02, 0.2, 0.08), fill=(0, 0, 0), text=CHARACTERS[k],
                              font_size=0.07))  # fmt: skip
            p2.append(
                Element(
                    "c3b_figure",
                    Box(left, 0.1, 0.26, 0.56),
                    attrs={"culture": cul, "gesture": g, "flower": f},
                )
            )
        p2.append(Element("rect", Box(0.25, 0.8, 0.5, 0.08), fill=(110, 75, 40), z=1))
        p2.append(Element("c3b_dish", Box(0.38, 0.62, 0.24, 0.22), attrs={"culture": scene.dish}, z=2))
        host = _BY_KEY[scene.host]
        p3 = [
            Element("rect", Box(0, 0, 0.5, 1), fill=(235, 235, 225)),
            Element("rect", Box(0.55, 0.15, 0.45, 0.85), fill=host.palette),
            Element("rect", Box(0.65, 0.4, 0.25, 0.6), fill=(70, 45, 25), z=1),
            Element(
                "c3b_figure",
                Box(0.12, 0.38, 0.3, 0.6),
                attrs={"culture": scene.guest, "gesture": "wave", "flower": None},
            ),  # fmt: skip
            Element("c3b_bubble", Box(0.05, 0.04, 0.42, 0.3), z=2),
        ]
        return [p1, p2, p3]

    def render(self, scene: Scene) -> Image.Image:
        """The strip: three ``panel_size`` panels tiled ``GAP`` pixels apart."""
        bgs = [(170, 210, 240), (245, 240, 225), (245, 245, 245)]
        imgs = [
            render_design(els, self.panel_size, bg) for els, bg in zip(self.panels(scene), bgs, strict=True)
        ]
        return tile_panels(imgs, gap=GAP)[0]

    # items ---------------------------------------------------------------------
    def items(
        self,
        scene: Scene,
        image: Any,
        rng: np.random.Generator,
        item_id: str,
        languages: Sequence[str] | None = None,
    ) -> list[VQAItem]:
        """The L1, L2, L3 items of one scene, each in a language drawn from ``languages`` (default: this
        generator's); options permuted uniformly; ``meta`` holds the level, language, scene and a language-neutral
        ``answer_key``."""
        langs = self.languages if languages is None else tuple(check_language(x) for x in languages)
        out = []
        for level in (1, 2, 3):
            lang = langs[int(rng.integers(len(langs)))]
            out.append(self.item(scene, image, level, lang, rng, f"{item_id}-L{level}"))
        return out

    def item(
        self, scene: Scene, image: Any, level: int, language: str, rng: np.random.Generator, item_id: str
    ) -> VQAItem:
        """One item of ``level`` in ``language``."""
        language = check_language(language)
        answer = answer_from_scene(scene, level, language)
        meta: dict[str, Any] = {
            "level": level,
            "language": language,
            "scene": scene,
            "n_cultures": scene.n_cultures,
        }
        if level == 1:
            others = [c.name for c in CULTURES if c.key != scene.dish]
            pick = [others[i] for i in rng.choice(len(others), size=3, replace=False)]
            choices = [answer, *pick]
            meta["answer_key"] = scene.dish
            meta["culture"] = scene.dish
        elif level == 2:
            choices = [*CHARACTERS, NONE_WORD[language]]
            hits = conflicts(scene)
            meta["answer_key"] = CHARACTERS[hits[0]] if hits else "none"
            meta["culture"] = scene.host
        else:
            meta["answer_key"] = scene.host
            meta["culture"] = scene.host
            meta["keyword"] = _BY_KEY[scene.host].greeting
            return VQAItem(item_id, image, QUESTIONS[3][language], answer, None, meta)
        order = rng.permutation(4)
        return VQAItem(
            item_id, image, QUESTIONS[level][language], answer, tuple(choices[i] for i in order), meta
        )

    def split(
        self, n_scenes: int, seed: int, name: str = "split", panel_size: int | None = None
    ) -> list[VQAItem]:
        """``3 * n_scenes`` items (L1, L2, L3 per scene) from ``n_scenes`` strips, seeded; the three items of a
        scene share one image object; the strips cycle through ``n_cultures_per_image``. ``panel_size`` (optional) downsizes the stored strips (training sets)."""
        n_scenes = check_int("n_scenes", n_scenes, 1)
        rng = np.random.default_rng([check_int("seed", seed, 0), 3_00041])
        out: list[VQAItem] = []
        for k in range(n_scenes):  # cultures per image cycle through the allowed values: balanced groups
            scene = self.sample_scene(rng, self.n_cultures_per_image[k % len(self.n_cultures_per_image)])
            image = self.render(scene)
            if panel_size is not None and panel_size != self.panel_size:
                image = downsize_strip(image, panel_size)
            out.extend(self.items(scene, image, rng, f"{name}-{k}"))
        return out


def downsize_strip(image: Image.Image, panel_size: int, n_panels: int = 3) -> Image.Image:
    """A strip with each panel resized to ``panel_size`` (bilinear, as :func:`images_to_tensor` does)."""
    panels = [
        p.resize((panel_size, panel_size), Image.Resampling.BILINEAR) for p in split_panels(image, n_panels)
    ]
    return tile_panels(panels, gap=GAP)[0]
