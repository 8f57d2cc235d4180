"""``C3BHarness``: ask a backend every item of a split, score it and aggregate by level, language, culture and
cultures per image, with bootstrap intervals; ``load_official`` reads a released item file into the same items.

Scoring (inferred; the paper's exact formats were not recoverable): L1 and L2 are multiple choice, scored 1 when
the reply names exactly one option and it is the answer (:func:`parse_option`: the whole reply equals an option, or
exactly one option letter A-D stands alone, or exactly one option's text occurs); a reply that is empty, names
no option or names several scores 0 and is logged in ``failures``. L3 is free text scored by chrF (0-100) against
the reference, and by an exact keyword hit (the host's greeting word occurs in the reply). ``overall`` is the mean
over tasks of the per-task score on [0, 1] (accuracy, accuracy, chrF / 100).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from iclr26.checks import check_array, check_int
from iclr26.generative.c3b.chrf import chrf
from iclr26.generative.c3b.cultures import check_language
from iclr26.lab.vision import VLMBackend, VQAItem, evaluate, match_choice, strip_reasoning, validate_split

__all__ = ["TASKS", "C3BHarness", "C3BReport", "bootstrap_mean", "load_official", "parse_option"]

TASKS = {1: "Extraction@Culture", 2: "Conflict@Culture", 3: "Generation@Culture"}


def parse_option(reply: str | None, choices: Sequence[str]) -> int | None:
    """The index of the one option a reply names, or None (empty, no option, or several)."""
    return match_choice(reply, choices)


def bootstrap_mean(
    scores: Sequence[float] | np.ndarray, n_boot: int = 1000, seed: int = 0, level: float = 0.95
) -> tuple[float, float, float]:
    """Mean of ``scores`` and its percentile bootstrap interval over items ``(mean, lo, hi)``."""
    x = check_array("scores", scores, ndim=1)
    if x.size == 0:
        return float("nan"), float("nan"), float("nan")
    n_boot = check_int("n_boot", n_boot, 1)
    rng = np.random.default_rng(seed)
    means = x[rng.integers(x.size, size=(n_boot, x.size))].mean(axis=1)
    a = (1 - level) / 2
    return float(x.mean()), float(np.quantile(means, a)), float(np.quantile(means, 1 - a))


@dataclass
class C3BReport:
    """Per-item scores of one backend on one split, and the aggregates the paper reports."""

    backend: str
    item_ids: list[str]
    replies: list[str | None]
    scores: np.ndarray  # L1/L2: 0/1; L3: chrF / 100
    keyword: np.ndarray  # L3 keyword hit (NaN on L1/L2)
    meta: list[dict[str, Any]]
    failures: dict[str, str] = field(default_factory=dict)

    def _select(self, **where: Any) -> np.ndarray:
        keep = [all(m.get(k) == v for k, v in where.items()) for m in self.meta]
        return np.asarray(keep, dtype=bool)

    def mean(self, **where: Any) -> float:
        """Mean score over the items whose meta matches ``where`` (e.g. ``level=1, n_cultures=3``); NaN if none."""
        sel = self._select(**where)
        return float(self.scores[sel].mean()) if sel.any() else float("nan")

    def correct(self, **where: Any) -> np.ndarray:
        return self.scores[self._select(**where)]

    def interval(self, n_boot: int = 1000, seed: int = 0, **where: Any) -> tuple[float, float, float]:
        return bootstrap_mean(self.correct(**where), n_boot, seed)

    def by(self, key: str, **where: Any) -> dict[Any, float]:
        """Mean score per value of ``meta[key]`` (``language``, ``culture``, ``n_cultures``) among ``where``."""
        values = sorted({m[key] for m, s in zip(self.meta, self._select(**where), strict=True) if s})
        return {v: self.mean(**where, **{key: v}) for v in values}

    @property
    def per_task(self) -> dict[str, float]:
        return {TASKS[lv]: self.mean(level=lv) for lv in TASKS}

    @property
    def overall(self) -> float:
        """Mean over the tasks present of the per-task score."""
        vals = [v for v in self.per_task.values() if np.isfinite(v)]
        return float(np.mean(vals)) if vals else float("nan")

    @property
    def keyword_hit(self) -> float:
        k = self.keyword[np.isfinite(self.keyword)]
        return float(k.mean()) if k.size else float("nan")


def _score(item: VQAItem, reply: str) -> float:
    if item.choices is not None:
        return float(parse_option(reply, item.choices) == item.answer_index)
    return chrf(strip_reasoning(reply), item.answer) / 100.0


class C3BHarness:
    """Runs a :class:`~iclr26.lab.vision.VLMBackend` over a split of C3B items.

    Parameters
    ----------
    backend : any VLMBackend (``predict(image, question, *, choices=None, max_tokens=64)``).
    split : the items; each ``meta`` has ``level`` (1-3) and ``language``; ``culture`` and ``n_cultures`` are
        optional grouping keys; L3 items may carry ``keyword``.
    judge : optional LLM-judge hook for L3, ``judge(item, reply) -> float in [0, 1]``, used instead of chrF.

    Example
    -------
    >>> from iclr26.generative.c3b import ComicGenerator
    >>> from iclr26.lab.vision import OracleBackend
    >>> items = ComicGenerator(panel_size=64).split(4, seed=0)
    >>> report = C3BHarness(OracleBackend(items), items).run()
    >>> report.mean(level=1), report.mean(level=2), round(report.mean(level=3) * 100, 6)
    (1.0, 1.0, 100.0)
    """

    def __init__(
        self,
        backend: VLMBackend,
        split: Sequence[VQAItem],
        judge: Callable[[VQAItem, str], float] | None = None,
    ) -> None:
        if not isinstance(backend, VLMBackend):
            raise ValueError(f"backend must be a VLMBackend, got {type(backend).__name__}")
        self.split = validate_split(split, "split", open_images=False)
        for it in self.split:
            level = it.meta.get("level")
            if level not in TASKS:
                raise ValueError(f"split item {it.item_id!r}: meta['level'] must be 1, 2 or 3, got {level!r}")
            check_language(it.meta.get("language"))
            if (level == 3) != (it.choices is None):
                raise ValueError(f"split item {it.item_id!r}: levels 1-2 need choices and level 3 none")
        if judge is not None and not callable(judge):
            raise ValueError(f"judge must be callable(item, reply) -> float, got {judge!r}")
        self.backend = backend
        self.judge = judge

    def _score(self, item: VQAItem, reply: str) -> float:
        if item.choices is None and self.judge is not None:
            return float(self.judge(item, reply))
        return _score(item, reply)

    def run(self, max_tokens: int = 64) -> C3BReport:
        rep = evaluate(self.backend, self.split, self._score, max_tokens=max_tokens)
        failures = dict(rep.failures)
        keyword = np.full(len(self.split), np.nan)
        for k, (it, reply) in enumerate(zip(self.split, rep.replies, strict=True)):
            if not reply:
                if it.choices is None:
                    keyword[k] = 0.0
                continue
            if it.choices is not None and parse_option(reply, it.choices) is None:
                failures[it.item_id] = f"reply names no option or several: {reply[:80]!r}"
            if it.choices is None:
                word = it.meta.get("keyword")
                keyword[k] = float(bool(word) and str(word) in strip_reasoning(reply))
        meta = [{k: v for k, v in it.meta.items() if k != "scene"} for it in self.split]
        return C3BReport(self.backend.name, rep.item_ids, rep.replies, rep.scores, keyword, meta, failures)


_TASK_LEVEL = {name.lower(): lv for lv, name in TASKS.items()}
_TASK_LEVEL.update({"extraction": 1, "conflict": 2, "generation": 3})


def load_official(path: str | Path) -> list[VQAItem]:
    """Items from a released C3B file (JSON list or JSON lines), in the format we *assume* until it is known.

    Each record: ``id``, ``image`` (a path, relative to the file's folder), ``question``, ``answer``, ``task``
    (``Extraction@Culture``/``Conflict@Culture``/``Generation@Culture`` or ``extraction``/``conflict``/
    ``generation``), ``language`` (``en``/``zh``/``es``/``fr``), ``options`` (a list, for the two choice tasks;
    the answer may be the option text or its letter). Images are checked to exist.
    """
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"path: no C3B item file at {str(p)!r}")
    text = p.read_text(encoding="utf-8")
    try:
        records = (
            json.loads(text)
            if text.lstrip().startswith("[")
            else [json.loads(x) for x in text.splitlines() if x.strip()]
        )
    except json.JSONDecodeError as err:
        raise ValueError(f"path: {str(p)!r} is neither a JSON list nor JSON lines ({err})") from None
    items = []
    for k, r in enumerate(records):
        missing = [f for f in ("id", "image", "question", "answer", "task", "language") if f not in r]
        if missing:
            raise ValueError(f"record {k} of {str(p)!r} lacks field(s) {missing}")
        level = _TASK_LEVEL.get(str(r["task"]).lower())
        if level is None:
            raise ValueError(
                f"record {k}: task must be one of {', '.join(TASKS.values())}, got {r['task']!r}"
            )
        opts = tuple(r["options"]) if r.get("options") else None
        answer = str(r["answer"])
        if (
            opts is not None
            and answer not in opts
            and len(answer) == 1
            and "A" <= answer.upper() < chr(65 + len(opts))
        ):
            answer = opts[ord(answer.upper()) - 65]
        meta = {"level": level, "language": check_language(r["language"])}
        meta.update({k2: r[k2] for k2 in ("culture", "n_cultures", "keyword") if k2 in r})
        items.append(
            VQAItem(str(r["id"]), str(p.parent / r["image"]), str(r["question"]), answer, opts, meta)
        )
    return validate_split(items, str(p))
