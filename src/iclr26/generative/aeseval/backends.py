"""Reference backends of the AesEval-Bench harness: random, majority and the metadata oracle.

All speak :class:`~iclr26.lab.vision.VLMBackend` (``predict(image, question, *, choices=None, max_tokens=64)``)
and read the task from the question itself (its official suffix) and the indicator from its ``... have <indicator>
issue?`` sentence, as a real model would.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from iclr26.checks import check_float, check_int
from iclr26.generative.aeseval.designs import AesEvalSample
from iclr26.generative.aeseval.scoring import BBOX_SUFFIX, CHOICE_PREFIX, QA_SUFFIX
from iclr26.lab.vision import VLMBackend

__all__ = [
    "MajorityBackend",
    "MetadataOracle",
    "RandomBackend",
    "format_box",
    "indicator_of",
    "option_boxes",
    "random_box",
    "task_of",
]

_INDICATOR = re.compile(r"have (\w+) issue\?")


def task_of(question: str) -> str:
    """The eval mode a question belongs to (from its official suffix/prefix)."""
    if CHOICE_PREFIX in question:
        return "text-preview-choice"
    if BBOX_SUFFIX in question:
        return "text-preview-bbox"
    if QA_SUFFIX in question:
        return "text-preview"
    raise ValueError(f"question is not an AesEval-Bench question: {question[:60]!r}")


def indicator_of(question: str) -> str:
    """The indicator name asked about (``"alignment"``, ``"contrast"``...)."""
    m = _INDICATOR.search(question)
    if m is None:
        raise ValueError(f"question names no indicator ('... have <indicator> issue?'): {question[:60]!r}")
    return m.group(1)


def option_boxes(choices: Sequence[str] | None) -> list[list[float] | None]:
    """The pixel boxes of the option texts (``None`` for the ``"None"`` option)."""
    out: list[list[float] | None] = []
    for c in choices or ():
        nums = re.findall(r"[-+]?\d*\.\d+|\d+", c)
        out.append(None if c == "None" or len(nums) < 4 else [float(v) for v in nums[:4]])
    return out


def format_box(box: Sequence[float]) -> str:
    """A normalised box as the reply ``"left,top,width,height"`` (full float precision)."""
    return ",".join(repr(float(v)) for v in box)


def random_box(rng: np.random.Generator) -> tuple[float, float, float, float]:
    """A uniform random box: ``left, top ~ U(0, 1)``, ``width ~ U(0, 1 - left)``, ``height ~ U(0, 1 - top)``."""
    left, top = rng.uniform(0, 1, size=2)
    return float(left), float(top), float(rng.uniform(0, 1 - left)), float(rng.uniform(0, 1 - top))


class RandomBackend(VLMBackend):
    """Chance: ``yes``/``no`` uniformly; a uniform option letter; in bbox mode ``"None"`` with probability
    ``p_none`` and otherwise :func:`random_box`. Expected scores: 1/2, 1/len(options), and
    ``q * p_none + (1 - q) * (1 - p_none) * E[IoU(random box, gt)]`` with ``q`` the share of None ground truths."""

    name = "random"

    def __init__(self, seed: int = 0, p_none: float = 0.5) -> None:
        self.rng = np.random.default_rng(check_int("seed", seed, 0))
        self.p_none = check_float("p_none", p_none, 0.0, 1.0)

    def predict(
        self, image: Any, question: str, *, choices: Sequence[str] | None = None, max_tokens: int = 64
    ):
        mode = task_of(question)
        if mode == "text-preview":
            return ("yes", "no")[int(self.rng.integers(2))]
        if mode == "text-preview-choice":
            return "ABCD"[int(self.rng.integers(len(choices or "ABCD")))]
        return "None" if self.rng.random() < self.p_none else format_box(random_box(self.rng))


class MajorityBackend(VLMBackend):
    """The training split's majority: ``yes`` or ``no``; the ``None`` option (or the first) in choice mode;
    ``"None"`` or the mean ground-truth box in bbox mode."""

    name = "majority"

    def __init__(self) -> None:
        self.issue_share = 0.0
        self.mean_box = (0.0, 0.0, 1.0, 1.0)

    def fit(self, split: Sequence[AesEvalSample]) -> MajorityBackend:
        flags = [bool(v) for s in split for v in s.gt.values()]
        self.issue_share = float(np.mean(flags)) if flags else 0.0
        boxes = [s.box(c[0]["element_index"]).as_tuple() for s in split for c in s.gt.values() if c]
        if boxes:
            self.mean_box = tuple(float(v) for v in np.mean(boxes, axis=0))  # type: ignore[assignment]
        return self

    def predict(
        self, image: Any, question: str, *, choices: Sequence[str] | None = None, max_tokens: int = 64
    ):
        issue = self.issue_share > 0.5
        mode = task_of(question)
        if mode == "text-preview":
            return "yes" if issue else "no"
        if mode == "text-preview-choice":
            opts = list(choices or ())
            return "ABCD"[opts.index("None")] if not issue and "None" in opts else "A"
        return format_box(self.mean_box) if issue else "None"


class MetadataOracle(VLMBackend):
    """Reads the perturbation log of the sample being asked (through ``observe``): scores 100% in every mode."""

    name = "oracle"

    def __init__(self) -> None:
        self.sample: AesEvalSample | None = None

    def observe(self, sample: AesEvalSample) -> None:
        self.sample = sample

    def _changes(self, question: str) -> list[dict[str, Any]]:
        if self.sample is None:
            raise RuntimeError("MetadataOracle has observed no sample (use it through AesEvalHarness)")
        ind = indicator_of(question)
        return next((v for k, v in self.sample.gt.items() if k.split("-")[1] == ind), [])

    def predict(
        self, image: Any, question: str, *, choices: Sequence[str] | None = None, max_tokens: int = 64
    ):
        changes = self._changes(question)
        mode = task_of(question)
        if mode == "text-preview":
            return "yes" if changes else "no"
        idx = changes[0]["element_index"] if changes else None
        idx = idx[0] if isinstance(idx, list) else idx
        element = self.sample.element(idx) if idx is not None else None  # type: ignore[union-attr]
        if mode == "text-preview-choice":
            if element is None:
                return "None" if choices is None else "ABCD"[list(choices).index("None")]
            box = [float(element[k]) for k in ("left", "top", "width", "height")]
            return "ABCD"[option_boxes(choices).index(box)]
        if element is None:
            return "None"
        w, h = image.size
        return format_box(
            (element["left"] / w, element["top"] / h, element["width"] / w, element["height"] / h)
        )
