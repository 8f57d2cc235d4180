"""A metadata-free pixel-rule backend: edge alignment, margins, contrast, blockiness and hue rules on the preview.

:class:`PixelHeuristicBackend` never reads the element list. It segments the preview into horizontal bands of
foreground (rows that differ from the border colour), measures each band, and scores each band's *badness* for
the asked indicator so that 1 is the decision threshold:

* alignment: ``|left - median left| / (1.2% W)`` over the column's bands;
* whitespace: ``4% W / distance to the nearer side``;
* balance: ``|centre_x - W/2| / (10% W)`` of the largest band;
* layering: the share of bright saturated pixels inside a dark-ink (text) band, over 5%;
* hierarchy: the tallest other text band's height over the top text band's height;
* legibility: ``(9 px at 256 px) / height`` of a text band;
* quality: the share of equal horizontal neighbours in a solid band at least 10% of H tall (a photo), over 0.5;
* contrast: ``2 / WCAG ratio`` of a text band's ink against the background;
* harmony: the hue distance of a solid coloured band from the background's hue, over 60 degrees.

Judgment: yes iff a band's badness exceeds 1. Choice: each option box takes the badness of the band it overlaps
most; ``None`` when no band exceeds 1 (and it is offered), else the worst option. Bbox: the worst band's box, or
``None``. The band box covers the drawn pixels (a text line's glyphs), not the element's layout box.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from iclr26.generative.aeseval.backends import format_box, indicator_of, option_boxes, task_of
from iclr26.lab.vision import VLMBackend, contrast_ratio, hue, hue_distance, image_fingerprint, load_image

__all__ = ["PixelHeuristicBackend", "bands"]

_RULES = (
    "alignment",
    "whitespace",
    "balance",
    "layering",
    "hierarchy",
    "legibility",
    "quality",
    "contrast",
    "harmony",
)


def bands(arr: np.ndarray, threshold: int = 12) -> tuple[list[dict[str, Any]], np.ndarray]:
    """The foreground bands of an ``(H, W, 3)`` uint8 image and its background colour (the border's median)."""
    a = np.asarray(arr, dtype=np.int16)
    border = np.concatenate([a[0], a[-1], a[:, 0], a[:, -1]])
    bg = np.median(border, axis=0)
    fg = np.abs(a - bg).max(-1) > threshold
    rows = fg.any(1)
    out, y, h = [], 0, len(rows)
    while y < h:
        if not rows[y]:
            y += 1
            continue
        y0 = y
        while y < h and rows[y]:
            y += 1
        cols = np.flatnonzero(fg[y0:y].any(0))
        x0, x1 = int(cols[0]), int(cols[-1]) + 1
        m = fg[y0:y, x0:x1]
        px = a[y0:y, x0:x1][m]
        out.append({"y0": y0, "y1": y, "x0": x0, "x1": x1, "fill": float(m.mean()), "pixels": px,
                    "patch": a[y0:y, x0:x1]})  # fmt: skip
    return out, bg


def _sat_val(px: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """HSV saturation and value of ``(N, 3)`` RGB pixels."""
    hi, lo = px.max(-1).astype(float), px.min(-1).astype(float)
    return np.where(hi > 0, (hi - lo) / np.maximum(hi, 1), 0.0), hi / 255.0


def _badness(rule: str, bs: list[dict[str, Any]], bg: np.ndarray, size: tuple[int, int]) -> list[float]:
    W, H = size
    bgc = tuple(int(v) for v in bg)
    for b in bs:
        if "ink" not in b:
            sat, val = _sat_val(b["pixels"])
            b["bright_sat"] = float(((sat > 0.35) & (val > 0.55)).sum() / max(len(sat), 1) * b["fill"])
            far = np.abs(b["pixels"].astype(int) - bg).max(-1)
            b["ink"] = tuple(int(v) for v in b["pixels"][int(np.argmax(far))])
    text = [b for b in bs if b["fill"] < 0.6 and b["x0"] < W / 2]
    solid = [b for b in bs if b["fill"] >= 0.6]
    column = [b for b in bs if b["x0"] < W / 2]
    scores = []
    for b in bs:
        s = 0.0
        if rule == "alignment" and b in column and len(column) > 2:
            s = abs(b["x0"] - float(np.median([c["x0"] for c in column]))) / (0.012 * W)
        elif rule == "whitespace":
            s = 0.04 * W / max(min(b["x0"], W - b["x1"]), 0.5)
        elif rule == "balance" and b is max(bs, key=lambda c: (c["y1"] - c["y0"]) * (c["x1"] - c["x0"])):
            s = abs((b["x0"] + b["x1"]) / 2 - W / 2) / (0.1 * W)
        elif rule == "layering" and b in text:
            s = b["bright_sat"] / 0.05
        elif rule == "hierarchy" and b in text and b is text[0] and len(text) > 1:
            s = max(c["y1"] - c["y0"] for c in text[1:]) / max(b["y1"] - b["y0"], 1)
        elif rule == "legibility" and b in text:
            s = (9 * H / 256) / max(b["y1"] - b["y0"], 1)
        elif rule == "quality" and b in solid and b["y1"] - b["y0"] >= 0.1 * H and b["patch"].shape[1] > 1:
            p = b["patch"]
            s = float(np.all(p[:, 1:] == p[:, :-1], axis=-1).mean()) / 0.5
        elif rule == "contrast" and b in text:
            s = 2.0 / contrast_ratio(b["ink"], bgc)
        elif rule == "harmony" and b in solid:
            s = hue_distance(hue(b["ink"]), hue(bgc)) / 60.0
        scores.append(float(s))
    return scores


class PixelHeuristicBackend(VLMBackend):
    """Hand-written pixel rules (no metadata, no training); see the module text."""

    name = "pixel-heuristic"

    def __init__(self) -> None:
        self._cache: dict[str, tuple[list[dict[str, Any]], np.ndarray]] = {}

    def _bands(self, image: Any) -> tuple[list[dict[str, Any]], np.ndarray]:
        key = image_fingerprint(image)
        if key not in self._cache:
            self._cache = {key: bands(np.asarray(image))}
        return self._cache[key]

    def predict(
        self, image: Any, question: str, *, choices: Sequence[str] | None = None, max_tokens: int = 64
    ):
        image = load_image(image)
        mode, rule = task_of(question), indicator_of(question)
        bs, bg = self._bands(image)
        if rule not in _RULES or not bs:
            return {"text-preview": "no", "text-preview-bbox": "None"}.get(mode, "A")
        bad = _badness(rule, bs, bg, image.size)
        issue = max(bad) > 1.0
        if mode == "text-preview":
            return "yes" if issue else "no"
        W, H = image.size
        if mode == "text-preview-bbox":
            if not issue:
                return "None"
            b = bs[int(np.argmax(bad))]
            return format_box((b["x0"] / W, b["y0"] / H, (b["x1"] - b["x0"]) / W, (b["y1"] - b["y0"]) / H))
        opts = option_boxes(choices)
        if not issue and None in opts:
            return "ABCD"[opts.index(None)]
        best, best_s = 0, -1.0
        for i, o in enumerate(opts):
            if o is None:
                continue
            ov = [
                max(0, min(o[1] + o[3], b["y1"]) - max(o[1], b["y0"]))
                * max(0, min(o[0] + o[2], b["x1"]) - max(o[0], b["x0"]))
                for b in bs
            ]
            s = bad[int(np.argmax(ov))] if max(ov) > 0 else 0.0
            if s > best_s:
                best, best_s = i, s
        return "ABCD"[best]
