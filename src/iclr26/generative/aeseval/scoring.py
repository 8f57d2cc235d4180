"""AesEval-Bench prompts, reply parsers and aggregation, with the official evaluator's rules and quirks.

The three task modes of AesEval-Bench (An et al., ICLR 2026, arXiv 2603.01083; official code
arctanxarc/AesEval-Bench, ``tasks/base_task.py`` and ``evaluator.py``):

* ``text-preview`` (aesthetic judgment): score 1 iff the parsed reply equals the ground truth ``yes``/``no``;
  the parser takes ``yes`` if it occurs anywhere (case-insensitive), else ``no`` if it occurs anywhere, else the
  raw reply; a missing reply or the literal ``"None"`` scores 0.
* ``text-preview-choice`` (region selection): the reply is upper-cased and its first character in ``ABCD``
  is the answer, wherever it stands (so ``"Answer: B"`` reads as ``A``: the official quirk, kept for parity).
* ``text-preview-bbox`` (precise localisation): ``score = IoU(pred, gt)`` with ``gt`` the element's pixel box
  divided by the preview's size and ``pred`` the first four numbers of the reply (regex
  ``[-+]?\\d*\\.\\d+|\\d+``); a ground truth ``None`` scores 1 iff the reply is missing or contains ``none``
  (case-insensitive); a reply containing ``none`` scores 0 against a box; fewer than four numbers score 0.

In every mode a reply holding both ``<think>`` and ``</think>`` is cut to what follows the last ``</think>``.
Aggregation: accuracy per indicator (mean score), the dimension average over its indicators, ``overall`` the mean
of the dimension averages, the sample-level accuracy (mean over samples of the per-sample mean) and, in bbox mode,
the mean score over non-``None`` ground truths (mean IoU).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from iclr26.checks import check_choice

__all__ = [
    "BBOX_SUFFIX",
    "CHOICE_PREFIX",
    "DIMENSIONS",
    "EVAL_MODES",
    "PROMPTS",
    "QA_SUFFIX",
    "aggregate",
    "box_iou",
    "parse_choice",
    "parse_yes_no",
    "question_for",
    "score_bbox",
    "score_choice",
    "score_reply",
    "score_yes_no",
    "split_key",
    "strip_think",
]

EVAL_MODES = ("text-preview", "text-preview-choice", "text-preview-bbox")
DIMENSIONS = ("layout", "font", "graphic", "color")

# the official prompt sentences (definition + question) per indicator; only their role matters offline
PROMPTS = {
    "layout-balance": "Balance is the distribution of visual weight in design. Does element have balance issue?",
    "layout-layering": "Layering uses size, colour, contrast and order to build a hierarchy of elements. "
    "Does element have layering issue?",
    "layout-whitespace": "White space is the blank area around the elements in a design. "
    "Does element have whitespace issue?",
    "layout-alignment": "Alignment is the arrangement of elements relative to each other or an axis or grid. "
    "Does element have alignment issue?",
    "font-legibility": "Legibility is how easily single characters and their arrangement are recognised. "
    "Does element have legibility issue?",
    "font-hierarchy": "Type hierarchy lets a reader scan the text for its key information. "
    "Does element have hierarchy issue?",
    "graphic-quality": "Resolution measures image detail; the right resolution keeps pictures sharp. "
    "Does element have quality issue?",
    "graphic-relevance": "Relevance is the link between a graphic and the meaning it conveys. "
    "Does element have relevance issue?",
    "color-harmony": "Colour harmony is the overall coordination of two or more colours in an image. "
    "Does element have harmony issue?",
    "color-contrast": "Colour contrast is the difference between the colours used. "
    "Does element have contrast issue?",
    "color-appeal": "Colour appeal is how the choice of colours attracts the audience. "
    "Does element have appeal issue?",
    "color-psychology": "Colour psychology is how colour triggers feelings and behaviour. "
    "Does element have psychology issue?",
}
QA_SUFFIX = "Answer it with one word 'yes' or 'no'."
BBOX_SUFFIX = (
    "Return the bounding box of the element with the issue as 'left,top,width,height' normalised to 0~1, "
    "or 'None' if there is no problem."
)
CHOICE_PREFIX = (
    "Some region may not be aesthetic given the preview and question. Choose the most likely one from the "
    "options, or the option 'None' if there is no problem."
)
_NUM = re.compile(r"[-+]?\d*\.\d+|\d+")


def split_key(key: Any) -> tuple[str, str]:
    """``"dimension-indicator"`` as ``(dimension, indicator)``; anything else is a ``ValueError`` naming the key
    (the official evaluator silently skips such keys; :func:`~iclr26.generative.aeseval.load_official` warns)."""
    parts = key.split("-") if isinstance(key, str) else []
    if len(parts) != 2 or parts[0] not in DIMENSIONS or not parts[1]:
        raise ValueError(
            f"GT key must be 'dimension-indicator' with dimension one of {', '.join(DIMENSIONS)}, got {key!r}"
        )
    return parts[0], parts[1]


def question_for(key: str, mode: str, option_text: str = "") -> str:
    """The question for indicator ``key`` in ``mode`` (the choice question lists ``option_text``)."""
    split_key(key)
    prompt = PROMPTS.get(key, f"Does element have {key.split('-')[1]} issue?")
    if mode == "text-preview":
        return f"{prompt} {QA_SUFFIX}"
    if mode == "text-preview-choice":
        return f"{CHOICE_PREFIX} {prompt}\n{option_text}Please answer with only the letter (A, B, C, or D)."
    if mode == "text-preview-bbox":
        return f"{prompt} {BBOX_SUFFIX}"
    raise ValueError(f"eval_mode must be one of {', '.join(EVAL_MODES)}, got {mode!r}")


def strip_think(reply: Any) -> Any:
    """The part after the last ``</think>`` when the reply holds both tags (the official rule), else the reply."""
    if isinstance(reply, str) and "<think>" in reply and "</think>" in reply:
        return reply.split("</think>")[-1].strip()
    return reply


def parse_yes_no(reply: Any) -> str | None:
    """``"yes"`` if it occurs in the reply, else ``"no"`` if it does, else the raw reply (None stays None)."""
    if reply is None:
        return None
    low = str(reply).lower()
    return "yes" if "yes" in low else ("no" if "no" in low else str(reply))


def score_yes_no(reply: Any, gt: str) -> float:
    reply = strip_think(reply)
    if reply is None or reply == "None":
        return 0.0
    return float(parse_yes_no(reply) == gt)


def parse_choice(reply: Any) -> str:
    """The first character of the upper-cased reply that is one of ``ABCD`` (``""`` when none)."""
    return next((ch for ch in str(reply or "").strip().upper() if ch in "ABCD"), "")


def score_choice(reply: Any, gt: str) -> float:
    return float(parse_choice(strip_think(reply)) == gt.strip().upper())


def box_iou(a: Sequence[float], b: Sequence[float]) -> float:
    """IoU of two ``[left, top, width, height]`` boxes, with no validation (a parsed reply may be any numbers)."""
    x0, y0 = max(a[0], b[0]), max(a[1], b[1])
    x1, y1 = min(a[0] + a[2], b[0] + b[2]), min(a[1] + a[3], b[1] + b[3])
    if x1 <= x0 or y1 <= y0:
        return 0.0
    inter = (x1 - x0) * (y1 - y0)
    union = a[2] * a[3] + b[2] * b[3] - inter
    return float(inter / union) if union > 0 else 0.0


def score_bbox(reply: Any, gt: Sequence[float] | str, size: tuple[int, int] | None = None) -> float:
    """Score a bbox reply against ``gt`` (pixel box, normalised by ``size = (W, H)``; or ``"None"``)."""
    reply = strip_think(reply)
    if isinstance(gt, str):
        if gt != "None":
            raise ValueError(f"bbox ground truth must be a box or 'None', got {gt!r}")
        return float(reply is None or "none" in str(reply).lower())
    if reply is None or "none" in str(reply).lower():
        return 0.0
    g = [float(v) for v in gt]
    if size is not None:
        w, h = size
        g = [g[0] / w, g[1] / h, g[2] / w, g[3] / h]
    nums = _NUM.findall(str(reply))
    if len(nums) < 4:
        return 0.0
    return box_iou(g, [float(v) for v in nums[:4]])


def score_reply(mode: str, reply: Any, gt: Any, size: tuple[int, int] | None = None) -> float:
    """The official score of ``reply`` against ``gt`` in ``mode``."""
    if mode == "text-preview":
        return score_yes_no(reply, gt)
    if mode == "text-preview-choice":
        return score_choice(reply, gt)
    if mode == "text-preview-bbox":
        return score_bbox(reply, gt, size)
    raise ValueError(f"eval_mode must be one of {', '.join(EVAL_MODES)}, got {mode!r}")


def aggregate(records: Sequence[Mapping[str, Any]], mode: str) -> dict[str, Any]:
    """The official aggregation of per-question records ``{"sample", "key", "score", "failed", "gt"}``.

    Returns ``{dimension: {indicator: {"accuracy", "total"[, "failed"]}, "average": {"accuracy"}}, "overall":
    {"accuracy", "sample_level_accuracy"}}`` plus ``"api_failures"`` (when any) and, in bbox mode,
    ``"bbox_non_none_gt_iou_mean"``; dimensions and indicators in order of first appearance.
    """
    check_choice("eval_mode", mode, EVAL_MODES)
    cells: dict[str, dict[str, list[float]]] = {}
    per_sample: dict[str, list[float]] = {}
    failed = 0
    for r in records:
        dim, ind = split_key(r["key"])
        cell = cells.setdefault(dim, {}).setdefault(ind, [0, 0.0, 0])
        cell[0] += 1
        cell[1] += float(r["score"])
        cell[2] += int(bool(r["failed"]))
        failed += int(bool(r["failed"]))
        per_sample.setdefault(r["sample"], []).append(float(r["score"]))
    out: dict[str, Any] = {}
    dims = []
    for dim, inds in cells.items():
        out[dim] = {}
        accs = []
        for ind, (total, correct, fails) in inds.items():
            acc = correct / total if total else 0.0
            out[dim][ind] = {"accuracy": acc, "total": total, **({"failed": fails} if fails else {})}
            accs.append(acc)
        out[dim]["average"] = {"accuracy": sum(accs) / len(accs) if accs else 0.0}
        dims.append(out[dim]["average"]["accuracy"])
    samples = [sum(v) / len(v) for v in per_sample.values() if v]
    out["overall"] = {
        "accuracy": sum(dims) / len(dims) if dims else 0.0,
        "sample_level_accuracy": sum(samples) / len(per_sample) if per_sample else 0.0,
    }
    if failed:
        out["api_failures"] = failed
    if mode == "text-preview-bbox":
        boxed = [float(r["score"]) for r in records if r["gt"] != "None"]
        out["bbox_non_none_gt_iou_mean"] = sum(boxed) / len(boxed) if boxed else 0.0
    return out
