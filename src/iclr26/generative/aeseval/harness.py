"""The AesEval-Bench harness: questions per sample and mode, backend calls, official scoring and aggregation.

:class:`AesEvalHarness` asks a :class:`~iclr26.lab.vision.VLMBackend` every (sample, indicator) question of a split
in one of the three modes and scores the replies with :mod:`~iclr26.generative.aeseval.scoring`. The
region-selection options are built as the official ``tasks/base_task.py`` builds them (the ground-truth element's
pixel box and three other elements, or three elements and ``None``, shuffled), with a seeded
:class:`random.Random` in place of the official unseeded module-level ``random``: the same seed gives the same
call sequence as ``random.seed(seed)`` before the official loop. :func:`load_official` reads the released layout
(``{sample_id}-perturbs_new/`` folders with ``preview.png``, ``simplified_meta_info.json`` and ``GT.json``).
"""

from __future__ import annotations

import json
import logging
import os
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PIL import Image

from iclr26.checks import check_choice, check_int
from iclr26.generative.aeseval.designs import AesEvalSample
from iclr26.generative.aeseval.scoring import EVAL_MODES, aggregate, question_for, score_reply, split_key
from iclr26.lab.vision import VLMBackend, load_image

__all__ = ["AesEvalHarness", "build_question", "check_split", "load_official"]

logger = logging.getLogger(__name__)
LABELS = "ABCD"


def _gt_index(changes: Sequence[Any]) -> int | None:
    """The first change's ``element_index`` (an int, or a list whose first entry is used); None when empty."""
    if not changes:
        return None
    idx = changes[0].get("element_index") if isinstance(changes[0], dict) else None
    if isinstance(idx, list):
        return idx[0] if idx else None
    return None if idx is None else int(idx)


def _pixel_box(e: dict[str, Any]) -> list[Any]:
    return [e["left"], e["top"], e["width"], e["height"]]


def build_question(sample: AesEvalSample, key: str, mode: str, rng: random.Random) -> dict[str, Any]:
    """One question: ``{"question", "choices", "gt"}`` for indicator ``key`` of ``sample`` in ``mode``.

    ``choices`` (choice mode) is the tuple of option texts (``"[l, t, w, h]"`` in pixels, or ``"None"``), also
    listed in the question; ``gt`` is ``"yes"``/``"no"``, a letter, or a pixel box / ``"None"``.
    """
    changes = sample.gt.get(key, [])
    if mode == "text-preview":
        return {"question": question_for(key, mode), "choices": None, "gt": "yes" if changes else "no"}
    idx = _gt_index(changes)
    target = sample.element(idx) if idx is not None else None
    if mode == "text-preview-bbox":
        gt = _pixel_box(target) if target is not None else "None"
        return {"question": question_for(key, mode), "choices": None, "gt": gt}
    check_choice("eval_mode", mode, EVAL_MODES)
    elements = sample.elements
    if idx is None:
        options: list[Any] = [_pixel_box(e) for e in rng.sample(elements, min(3, len(elements)))]
        options.append("None")
        rng.shuffle(options)
        gt = LABELS[options.index("None")]
    elif target is None:  # the official fallback: the changed element is missing from the metadata
        return {"question": question_for(key, mode), "choices": None, "gt": "None"}
    else:
        others = [e for e in elements if e["element_index"] != idx]
        box = _pixel_box(target)
        options = [box] + [_pixel_box(e) for e in rng.sample(others, min(3, len(others)))]
        rng.shuffle(options)
        gt = LABELS[options.index(box)]
    texts = tuple("None" if o == "None" else f"[{o[0]}, {o[1]}, {o[2]}, {o[3]}]" for o in options)
    listing = "\n" + "".join(f"{LABELS[i]}: {t}\n" for i, t in enumerate(texts))
    return {"question": question_for(key, mode, listing), "choices": texts, "gt": gt}


def check_split(split: Any, name: str = "split") -> list[AesEvalSample]:
    """``split`` as a list of samples; a non-sample, a GT key not of the form ``dimension-indicator`` (dimension
    in layout/font/graphic/color) or a GT value that is not a list of changes is a ``ValueError`` naming it."""
    if isinstance(split, (str, bytes)) or not isinstance(split, Sequence) or not split:
        raise ValueError(f"{name} must be a non-empty sequence of AesEvalSample, got {type(split).__name__}")
    for k, s in enumerate(split):
        if not isinstance(s, AesEvalSample):
            raise ValueError(f"{name}[{k}] must be an AesEvalSample, got {type(s).__name__}")
        if not isinstance(s.gt, dict):
            raise ValueError(f"{name} sample {s.sample_id!r}: gt must be a dict, got {type(s.gt).__name__}")
        for key, changes in s.gt.items():
            try:
                split_key(key)
            except ValueError as err:
                raise ValueError(f"{name} sample {s.sample_id!r}: {err}") from None
            if not isinstance(changes, list):
                raise ValueError(
                    f"{name} sample {s.sample_id!r}: gt[{key!r}] must be a list, got {changes!r}"
                )
    return list(split)


class AesEvalHarness:
    """Run ``backend`` over ``split`` in ``mode`` and score it exactly as the official evaluator does.

    Parameters
    ----------
    backend : a :class:`~iclr26.lab.vision.VLMBackend`; if it has ``observe(sample)``, that is called before the
        sample's questions (the metadata oracle reads the perturbation log there; trained backends read only
        the element boxes, as region proposals).
    split : a sequence of :class:`~iclr26.generative.aeseval.AesEvalSample`.
    mode : ``"text-preview"``, ``"text-preview-choice"`` or ``"text-preview-bbox"``.
    seed : seeds the option shuffling of the choice mode.

    A backend that raises or returns ``None`` is a counted failure (``api_failures``), scored by the official
    rule for a missing reply: 0, except a ``None`` ground truth in bbox mode, where a missing reply scores 1.

    Example
    -------
    >>> from iclr26.generative.aeseval import MetadataOracle, ProceduralDesignGenerator
    >>> split = ProceduralDesignGenerator(canvas=96).split(9, seed=0)
    >>> AesEvalHarness(MetadataOracle(), split, "text-preview-bbox").run()["overall"]["accuracy"]
    1.0
    """

    def __init__(self, backend: VLMBackend, split: Sequence[AesEvalSample], mode: str, seed: int = 0) -> None:
        if not isinstance(backend, VLMBackend):
            raise ValueError(f"backend must be a VLMBackend, got {type(backend).__name__}")
        self.backend = backend
        self.split = check_split(split)
        self.mode = check_choice("eval_mode", mode, EVAL_MODES)
        self.seed = check_int("seed", seed, 0)

    def run(self) -> dict[str, Any]:
        """The results: the official aggregate plus ``prediction_details`` and flat ``records`` per question."""
        rng = random.Random(self.seed)
        records = []
        observe = getattr(self.backend, "observe", None)
        for s in self.split:
            image = load_image(s.image, f"sample {s.sample_id!r} image")
            if observe is not None:
                observe(s)
            for key in s.gt:
                q = build_question(s, key, self.mode, rng)
                try:
                    reply = self.backend.predict(image, q["question"], choices=q["choices"])
                except Exception as err:  # a backend failure is a scored failure, not a crash
                    logger.warning("backend failed on %s %s: %s", s.sample_id, key, err)
                    reply = None
                if reply is not None and not isinstance(reply, str):
                    reply = None
                records.append(
                    {
                        "sample": s.sample_id,
                        "key": key,
                        "reply": reply,
                        "gt": q["gt"],
                        "choices": q["choices"],
                        "score": score_reply(self.mode, reply, q["gt"], image.size),
                        "failed": reply is None,
                    }
                )
        out = aggregate(records, self.mode)
        out["records"] = records
        return out


def load_official(path: str | os.PathLike[str]) -> list[AesEvalSample]:
    """The samples of a released AesEval-Bench directory, in the official evaluator's order.

    Scans the sub-folders whose name contains ``_new`` (sorted), skips those without ``GT.json``, and drops GT keys
    that are not ``dimension-indicator`` with a known dimension, with a logged warning (the official evaluator
    skips them silently), so aggregates match the official ones. A preview that cannot be opened is an error.
    """
    root = Path(path)
    if not root.is_dir():
        raise FileNotFoundError(f"path: no benchmark directory at {str(root)!r}")
    samples = []
    for d in sorted(p for p in root.iterdir() if p.is_dir() and "_new" in p.name):
        if not (d / "GT.json").exists():
            continue
        gt = json.loads((d / "GT.json").read_text())
        meta = json.loads((d / "simplified_meta_info.json").read_text())
        kept = {}
        for key, changes in gt.items():
            try:
                split_key(key)
            except ValueError:
                logger.warning(
                    "%s: skipping GT key %r (not dimension-indicator with a known dimension)", d.name, key
                )
                continue
            kept[key] = changes if isinstance(changes, list) else []
        image = load_image(d / "preview.png", f"{d.name} preview")
        samples.append(AesEvalSample(d.name, image, list(meta["elements"]), kept))
    if not samples:
        raise ValueError(f"path: no sample folder with '_new' in its name and a GT.json under {str(root)!r}")
    return samples


def write_official(samples: Sequence[AesEvalSample], path: str | os.PathLike[str]) -> Path:
    """Write ``samples`` in the released layout (for fixtures and the official-code comparison)."""
    root = Path(path)
    for s in check_split(samples, "samples"):
        d = root / (s.sample_id if "_new" in s.sample_id else f"{s.sample_id}-perturbs_new")
        d.mkdir(parents=True, exist_ok=True)
        img = s.image if isinstance(s.image, Image.Image) else load_image(s.image)
        img.save(d / "preview.png")
        (d / "simplified_meta_info.json").write_text(json.dumps({"elements": s.elements}))
        (d / "GT.json").write_text(json.dumps(s.gt))
    return root
