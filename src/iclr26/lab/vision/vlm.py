"""One question-answering interface for vision-language benchmarks, its reference backends and its scorer.

A benchmark item is a :class:`VQAItem` (an image, a question, optional answer choices, the answer, and the
generator's ground truth in ``meta``); :func:`validate_split` checks a whole split before anything runs (a missing
image, an answer that is not one of the choices, a malformed box are errors naming the item). A model answers
through :class:`VLMBackend`::

    backend.predict(image, question, *, choices=None, max_tokens=64) -> str | None

The reference backends bound what any model's score means: :class:`OracleBackend` (reads the answers; must score
100%), :class:`RandomBackend` (uniform over the choices: chance), :class:`MajorityBackend` (the most frequent
training answer), :class:`TextOnlyBackend` (sees the question and choices, never the image: any score above chance is
answer-prior leakage in the benchmark) and :class:`TransformersVLMBackend` (a local vision-language checkpoint
through transformers; optional, never downloads). :func:`evaluate` runs a backend over a split; a backend that raises
or returns ``None``/empty is a counted failure scoring 0, never a crash.

>>> from PIL import Image
>>> img = Image.new("RGB", (8, 8), (255, 0, 0))
>>> items = [VQAItem("q0", img, "Which colour?", "red", ("red", "green", "blue"))]
>>> evaluate(OracleBackend(items), items).accuracy
1.0
>>> match_choice("(B)", ("red", "green", "blue")), match_choice("A or C", ("red", "green", "blue"))
(1, None)
"""

from __future__ import annotations

import hashlib
import math
import os
import re
from abc import ABC, abstractmethod
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, UnidentifiedImageError

from iclr26.checks import check_int
from iclr26.lab.vision.boxes import as_box

__all__ = [
    "MajorityBackend",
    "OracleBackend",
    "RandomBackend",
    "TextOnlyBackend",
    "TransformersVLMBackend",
    "VLMBackend",
    "VQAItem",
    "VQAReport",
    "evaluate",
    "format_prompt",
    "image_fingerprint",
    "load_image",
    "match_choice",
    "strip_reasoning",
    "validate_split",
    "within_chance",
]

LABELS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)


def strip_reasoning(reply: str) -> str:
    """``reply`` without ``<think>...</think>`` traces (an unclosed trace drops everything after ``<think>``)."""
    text = _THINK.sub("", reply)
    cut = text.lower().find("<think>")
    return (text[:cut] if cut >= 0 else text).strip()


def load_image(image: Any, name: str = "image") -> Image.Image:
    """``image`` (a PIL image or a path) as an RGB PIL image; a missing or unreadable file is a clear error."""
    if isinstance(image, Image.Image):
        return image.convert("RGB") if image.mode != "RGB" else image
    if isinstance(image, (str, os.PathLike)):
        path = Path(image)
        if not path.is_file():
            raise FileNotFoundError(f"{name}: no image file at {str(path)!r}")
        try:
            with Image.open(path) as im:
                return im.convert("RGB")
        except (UnidentifiedImageError, OSError) as err:
            raise ValueError(f"{name}: cannot open {str(path)!r} as an image ({err})") from None
    raise ValueError(f"{name} must be a PIL image or a path to one, got {type(image).__name__}")


def image_fingerprint(image: Image.Image) -> str:
    """A hash of an image's mode, size and pixels (equal images, equal fingerprints)."""
    h = hashlib.sha1(f"{image.mode}{image.size}".encode())
    h.update(image.tobytes())
    return h.hexdigest()


@dataclass(frozen=True)
class VQAItem:
    """One benchmark item. ``choices`` is None for free-form answers; ``meta`` holds the generator's ground truth
    (``meta["boxes"]``, if present, maps names to boxes and is validated)."""

    item_id: str
    image: Any
    question: str
    answer: str
    choices: tuple[str, ...] | None = None
    meta: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def answer_index(self) -> int | None:
        return None if self.choices is None else self.choices.index(self.answer)


def validate_split(
    items: Sequence[VQAItem], name: str = "split", *, open_images: bool = True
) -> list[VQAItem]:
    """Check every item of a split; the first problem raises ``ValueError`` (or ``FileNotFoundError``) naming the
    split, the item and what is wrong. Returns the items as a list."""
    if isinstance(items, (str, bytes)) or not isinstance(items, Sequence) or not items:
        raise ValueError(f"{name} must be a non-empty sequence of VQAItem")
    seen: set[str] = set()
    for k, it in enumerate(items):
        if not isinstance(it, VQAItem):
            raise ValueError(f"{name}[{k}] must be a VQAItem, got {type(it).__name__}")
        where = f"{name} item {it.item_id!r}"
        if not isinstance(it.item_id, str) or not it.item_id or it.item_id in seen:
            raise ValueError(f"{name}[{k}]: item_id must be a unique non-empty str, got {it.item_id!r}")
        seen.add(it.item_id)
        if it.image is None:
            raise ValueError(f"{where}: image is missing")
        if open_images:
            load_image(it.image, f"{where} image")
        if not isinstance(it.question, str) or not it.question.strip():
            raise ValueError(f"{where}: question must be a non-empty str, got {it.question!r}")
        if not isinstance(it.answer, str):
            raise ValueError(f"{where}: answer must be a str, got {it.answer!r}")
        if it.choices is not None:
            ch = it.choices
            if not isinstance(ch, tuple) or len(ch) < 2 or not all(isinstance(c, str) and c for c in ch):
                raise ValueError(f"{where}: choices must be a tuple of >= 2 non-empty str, got {ch!r}")
            if len(set(ch)) != len(ch):
                raise ValueError(f"{where}: choices must be distinct, got {ch!r}")
            if it.answer not in ch:
                raise ValueError(f"{where}: answer {it.answer!r} is not one of the choices {ch!r}")
        boxes = it.meta.get("boxes", {}) if isinstance(it.meta, Mapping) else None
        if not isinstance(boxes, Mapping):
            raise ValueError(f"{where}: meta must be a mapping and meta['boxes'] a mapping of boxes")
        for key, box in boxes.items():
            as_box(box, f"{where} box {key!r}")
    return list(items)


def match_choice(reply: str | None, choices: Sequence[str]) -> int | None:
    """The index of the choice a reply names, or None when it names none or several.

    In order: the whole reply equals a choice (case-insensitive); exactly one distinct option label (``A``,
    ``(B)``, ``C.``) among the first ``len(choices)`` letters stands alone in it; exactly one choice's text occurs
    in it. ``<think>`` traces are ignored.
    """
    if not reply:
        return None
    text = strip_reasoning(str(reply))
    low = text.casefold().strip(" .")
    exact = [i for i, c in enumerate(choices) if c.casefold() == low]
    if len(exact) == 1:
        return exact[0]
    labels = set(re.findall(r"(?<![A-Za-z])([A-Z])(?![A-Za-z])", text)) & set(LABELS[: len(choices)])
    if len(labels) == 1:
        return LABELS.index(labels.pop())
    if labels:
        return None
    hits = [i for i, c in enumerate(choices) if c.casefold() in text.casefold()]
    return hits[0] if len(hits) == 1 else None


def format_prompt(question: str, choices: Sequence[str] | None) -> str:
    """The question with its options lettered ``A. ...`` on separate lines (as sent to a real model)."""
    if not choices:
        return question
    opts = "\n".join(f"{LABELS[i]}. {c}" for i, c in enumerate(choices))
    return f"{question}\n{opts}\nAnswer with the letter of one option."


class VLMBackend(ABC):
    """Answers a question about an image; ``fit`` (optional) sees the training split first."""

    name = "backend"

    def fit(self, items: Sequence[VQAItem]) -> VLMBackend:  # noqa: B027 - optional hook
        return self

    @abstractmethod
    def predict(
        self, image: Image.Image, question: str, *, choices: Sequence[str] | None = None, max_tokens: int = 64
    ) -> str | None: ...


class RandomBackend(VLMBackend):
    """Uniform over the choices (seeded); on free-form items, uniform over the training answers (``fit``)."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.rng = np.random.default_rng(check_int("seed", seed, 0))
        self.answers: list[str] = []

    def fit(self, items: Sequence[VQAItem]) -> RandomBackend:
        self.answers = sorted({it.answer for it in items if it.choices is None})
        return self

    def predict(self, image, question, *, choices=None, max_tokens=64):
        pool = list(choices) if choices else self.answers
        return pool[int(self.rng.integers(len(pool)))] if pool else None


class MajorityBackend(VLMBackend):
    """The most frequent training answer among the offered choices (ties: alphabetical)."""

    name = "majority"

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()

    def fit(self, items: Sequence[VQAItem]) -> MajorityBackend:
        self.counts = Counter(it.answer for it in items)
        return self

    def predict(self, image, question, *, choices=None, max_tokens=64):
        pool = list(choices) if choices else list(self.counts)
        if not pool:
            return None
        return min(pool, key=lambda c: (-self.counts.get(c, 0), c))


def _key(
    image: Image.Image, question: str, choices: Sequence[str] | None
) -> tuple[str, str, tuple[str, ...]]:
    return image_fingerprint(image), question, tuple(choices or ())


class OracleBackend(VLMBackend):
    """Answers from the items themselves (keyed by image pixels, question and choices): scores 100% on them.

    ``answer_fn(item) -> str`` overrides the reply (a benchmark whose answers are boxes or free text renders its
    ground truth in the form its parser expects).
    """

    name = "oracle"

    def __init__(self, items: Sequence[VQAItem], answer_fn: Callable[[VQAItem], str] | None = None) -> None:
        self.table: dict[tuple[str, str, tuple[str, ...]], str] = {}
        for it in items:
            reply = answer_fn(it) if answer_fn is not None else it.answer
            self.table[_key(load_image(it.image), it.question, it.choices)] = reply

    def predict(self, image, question, *, choices=None, max_tokens=64):
        return self.table.get(_key(load_image(image), question, choices))


class TextOnlyBackend(VLMBackend):
    """Never looks at the image: picks the choice that was most often correct when offered with this question
    in training (ties broken by a seeded draw). Above-chance accuracy means the answers leak through the text."""

    name = "text-only"

    def __init__(self, seed: int = 0) -> None:
        self.rng = np.random.default_rng(check_int("seed", seed, 0))
        self.offered: dict[tuple[str, str], int] = defaultdict(int)
        self.correct: dict[tuple[str, str], int] = defaultdict(int)
        self.free: dict[str, Counter[str]] = defaultdict(Counter)

    def fit(self, items: Sequence[VQAItem]) -> TextOnlyBackend:
        for it in items:
            if it.choices is None:
                self.free[it.question][it.answer] += 1
                continue
            for c in it.choices:
                self.offered[it.question, c] += 1
            self.correct[it.question, it.answer] += 1
        return self

    def predict(self, image, question, *, choices=None, max_tokens=64):
        if not choices:
            common = self.free.get(question)
            return common.most_common(1)[0][0] if common else None
        rate = [self.correct[question, c] / max(1, self.offered[question, c]) for c in choices]
        best = [i for i, r in enumerate(rate) if r == max(rate)]
        return choices[best[int(self.rng.integers(len(best)))]]


class TransformersVLMBackend(VLMBackend):
    """A local vision-language checkpoint (e.g. a Qwen2.5-VL directory) through transformers; greedy decoding.

    Loads with ``local_files_only=True``: it never downloads. The prompt is :func:`format_prompt` inside the
    processor's chat template with one image; ``list_choices=False`` sends the question alone (for a benchmark
    whose questions already spell out their options).
    """

    name = "transformers"

    def __init__(
        self,
        model_path: str | os.PathLike[str],
        device: str = "cpu",
        dtype: Any = None,
        *,
        list_choices: bool = True,
    ) -> None:
        path = Path(model_path)
        if not path.is_dir():
            raise FileNotFoundError(f"model_path: no local checkpoint directory at {str(path)!r}")
        import transformers

        auto = (
            getattr(transformers, "AutoModelForImageTextToText", None) or transformers.AutoModelForVision2Seq
        )
        self.processor = transformers.AutoProcessor.from_pretrained(path, local_files_only=True)
        self.model = auto.from_pretrained(path, local_files_only=True, torch_dtype=dtype).to(device).eval()
        self.device = device
        self.list_choices = list_choices
        self.name = f"transformers:{path.name}"

    def predict(self, image, question, *, choices=None, max_tokens=64):
        import torch

        messages = [
            {
                "role": "user",
                "content": [
                    {"type": "image"},
                    {"type": "text", "text": format_prompt(question, choices if self.list_choices else None)},
                ],
            }
        ]
        prompt = self.processor.apply_chat_template(messages, add_generation_prompt=True)
        inputs = self.processor(images=[load_image(image)], text=[prompt], return_tensors="pt").to(
            self.device
        )
        with torch.no_grad():
            out = self.model.generate(**inputs, max_new_tokens=max_tokens, do_sample=False)
        new = out[:, inputs["input_ids"].shape[1] :]
        return self.processor.batch_decode(new, skip_special_tokens=True)[0]


@dataclass
class VQAReport:
    """What :func:`evaluate` measured: per-item replies and scores, the failures (id -> reason), and the multiple-choice
    items whose reply named no option or several (``unparsed``; scored 0 by the default scorer)."""

    item_ids: list[str]
    replies: list[str | None]
    scores: np.ndarray
    failures: dict[str, str]
    unparsed: list[str] = field(default_factory=list)

    @property
    def accuracy(self) -> float:
        return float(self.scores.mean()) if len(self.scores) else math.nan

    def mean_over(self, ids: Sequence[str]) -> float:
        index = {k: i for i, k in enumerate(self.item_ids)}
        sel = [index[k] for k in ids]
        return float(self.scores[sel].mean()) if sel else math.nan


def _default_score(item: VQAItem, reply: str) -> float:
    if item.choices is not None:
        return float(match_choice(reply, item.choices) == item.answer_index)
    return float(strip_reasoning(reply).casefold() == item.answer.casefold())


def evaluate(
    backend: VLMBackend,
    items: Sequence[VQAItem],
    score: Callable[[VQAItem, str], float] | None = None,
    *,
    max_tokens: int = 64,
    missing_score: Callable[[VQAItem], float] | None = None,
) -> VQAReport:
    """Ask ``backend`` every item; ``score(item, reply) -> float`` (default: the matched choice equals the answer,
    or the free-form reply equals it). A reply of ``None``/empty, or an exception, is recorded as a failure and
    scores ``missing_score(item)`` (default 0; a benchmark whose official scorer credits a missing reply in some
    cases, e.g. "no box" when the answer is no box, says so here)."""
    if not isinstance(backend, VLMBackend):
        raise ValueError(f"backend must be a VLMBackend, got {type(backend).__name__}")
    score = score or _default_score
    ids, replies, scores, failures, unparsed = [], [], [], {}, []
    for it in items:
        try:
            reply = backend.predict(
                load_image(it.image), it.question, choices=it.choices, max_tokens=max_tokens
            )
        except Exception as err:  # a backend failure is a scored failure, not a crash
            reply, failures[it.item_id] = None, f"{type(err).__name__}: {err}"
        if reply is not None and not isinstance(reply, str):
            failures[it.item_id] = f"reply is not a str: {type(reply).__name__}"
            reply = None
        if not reply:
            failures.setdefault(it.item_id, "no reply")
            s = 0.0 if missing_score is None else float(missing_score(it))
        else:
            s = float(score(it, reply))
            if it.choices is not None and match_choice(reply, it.choices) is None:
                unparsed.append(it.item_id)
        ids.append(it.item_id)
        replies.append(reply)
        scores.append(s)
    return VQAReport(ids, replies, np.asarray(scores, dtype=np.float64), failures, unparsed)


def within_chance(accuracy: float, n: int, p: float, k: float = 3.0) -> bool:
    """``accuracy`` over ``n`` items lies within ``k`` binomial standard errors of the chance rate ``p``."""
    return abs(accuracy - p) <= k * math.sqrt(p * (1 - p) / n)
