"""Evaluation metrics of AFD-Instruction, with the released scripts' definitions (``eval/`` of the official code).

Paper: "AFD-Instruction" (ICLR 2026, arXiv 2602.04916).

Sequences (``eval/srr.py``): both sides cleaned (upper case, whitespace removed, every character outside the 20
standard amino acids dropped); ``L = min(len(a), len(b))``;

    SRR_left  = #{i < L : a[i] == b[i]} / L                       (first L residues)
    SRR_right = #{i < L : a[-L + i] == b[-L + i]} / L             (last L residues)
    SRR_best  = max_o #{i < Ls : short[i] == long[o + i]} / Ls,   o = 0 .. Ll - Ls

an empty side gives NaN (left out of the means); sequence exact match = equal cleaned strings.
Text (``eval/exact_match.py``, ``bleu.py``, ``rouge.py``, ``meteor.py``): both sides ``strip().lower()`` and
nothing else; corpus BLEU through ``sacrebleu`` (exp smoothing, effective order, 4-grams), ROUGE-1/2/L F1 through
``rouge-score`` (no stemmer), METEOR through ``nltk`` (alpha 0.9, beta 3, gamma 0.5). These three need their
packages (imported when called).

>>> srr_left("ACDE", "ACDF"), srr_best("CDE", "ACDEF"), exact_match(["  Virus "], ["virus"])
(0.75, 1.0, 1.0)
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from iclr26.agents.afd_instruction.schema import clean_sequence

__all__ = [
    "accuracy",
    "corpus_bleu",
    "exact_match",
    "meteor",
    "normalize_text",
    "rouge_f1",
    "sequence_exact_match",
    "srr_best",
    "srr_best_reference",
    "srr_left",
    "srr_right",
    "srr_summary",
]


def _pair(a: str | None, b: str | None) -> tuple[str, str]:
    return clean_sequence(a), clean_sequence(b)


def srr_left(a: str | None, b: str | None) -> float:
    """Identity of the first ``min(len)`` residues of the cleaned sequences; NaN if either is empty."""
    a, b = _pair(a, b)
    n = min(len(a), len(b))
    if n == 0:
        return math.nan
    return sum(x == y for x, y in zip(a[:n], b[:n])) / n


def srr_right(a: str | None, b: str | None) -> float:
    """Identity of the last ``min(len)`` residues of the cleaned sequences; NaN if either is empty."""
    a, b = _pair(a, b)
    n = min(len(a), len(b))
    if n == 0:
        return math.nan
    return sum(x == y for x, y in zip(a[-n:], b[-n:])) / n


def srr_best(a: str | None, b: str | None) -> float:
    """Best identity of the shorter cleaned sequence at every offset along the longer (vectorised); NaN if empty."""
    a, b = _pair(a, b)
    if not a or not b:
        return math.nan
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    s = np.frombuffer(short.encode(), dtype=np.uint8)
    w = np.lib.stride_tricks.sliding_window_view(np.frombuffer(long_.encode(), dtype=np.uint8), len(s))
    return float((w == s).sum(1).max() / len(s))


def srr_best_reference(a: str | None, b: str | None) -> float:
    """The same as :func:`srr_best` written as the plain double loop of the released script (the oracle)."""
    a, b = _pair(a, b)
    if not a or not b:
        return math.nan
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    best = 0.0
    for start in range(len(long_) - len(short) + 1):
        hits = 0
        for i, ch in enumerate(short):
            hits += ch == long_[start + i]
        best = max(best, hits / len(short))
    return best


def sequence_exact_match(a: str | None, b: str | None) -> bool:
    """Equal cleaned sequences."""
    a, b = _pair(a, b)
    return a == b


def srr_summary(refs: Sequence[str], preds: Sequence[str]) -> dict[str, float]:
    """Means of SRR left/right/best (NaN pairs left out) and sequence exact match over pairs with both sides
    non-empty, as ``calculate_srr_metrics`` of the released script (exact match here a fraction, not a percent)."""
    if len(refs) != len(preds):
        raise ValueError(f"refs and preds must have the same length, got {len(refs)} and {len(preds)}")
    pairs = [_pair(r, p) for r, p in zip(refs, preds)]
    valid = [(r, p) for r, p in pairs if r and p]

    def mean(fn) -> float:
        v = [fn(r, p) for r, p in valid]
        return float(np.mean(v)) if v else math.nan

    return {
        "n_total": float(len(pairs)),
        "n_valid": float(len(valid)),
        "exact_match": float(np.mean([r == p for r, p in valid])) if valid else 0.0,
        "srr_left": mean(srr_left),
        "srr_right": mean(srr_right),
        "srr_best": mean(srr_best),
    }


def normalize_text(s: str | None) -> str:
    """The released normalisation: strip the ends and lower-case, nothing else (inner whitespace counts)."""
    return (s or "").strip().lower()


def exact_match(preds: Sequence[str], refs: Sequence[str]) -> float:
    """Fraction of predictions equal to their reference after :func:`normalize_text` (0 for no references)."""
    if len(preds) != len(refs):
        raise ValueError(f"preds and refs must have the same length, got {len(preds)} and {len(refs)}")
    if not refs:
        return 0.0
    return sum(normalize_text(p) == normalize_text(r) for p, r in zip(preds, refs)) / len(refs)


def accuracy(preds: Sequence[object], labels: Sequence[object]) -> float:
    """Classification accuracy: the fraction of equal (prediction, label) pairs."""
    if len(preds) != len(labels):
        raise ValueError(f"preds and labels must have the same length, got {len(preds)} and {len(labels)}")
    if not labels:
        raise ValueError("labels must be non-empty")
    return sum(p == y for p, y in zip(preds, labels)) / len(labels)


def _need(module: str, package: str):
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(
            f"this metric needs the {package!r} package (the released scripts use it); install it"
        ) from exc


def corpus_bleu(preds: Sequence[str], refs: Sequence[str], n: int = 4) -> float:
    """Corpus BLEU (0-100) via ``sacrebleu``: exp smoothing, effective order, ``n``-grams, normalised text."""
    sacrebleu = _need("sacrebleu", "sacrebleu")
    bleu = sacrebleu.metrics.BLEU(smooth_method="exp", effective_order=True, max_ngram_order=n)
    return float(
        bleu.corpus_score([normalize_text(p) for p in preds], [[normalize_text(r) for r in refs]]).score
    )


def rouge_f1(refs: Sequence[str], preds: Sequence[str]) -> tuple[float, float, float]:
    """Mean ROUGE-1, ROUGE-2, ROUGE-L F1 (0-100) via ``rouge-score`` without stemming, normalised text."""
    if len(refs) != len(preds) or not refs:
        raise ValueError(f"refs and preds must be non-empty and equally long, got {len(refs)}, {len(preds)}")
    scorer = _need("rouge_score.rouge_scorer", "rouge-score").RougeScorer(
        ["rouge1", "rouge2", "rougeL"], use_stemmer=False
    )
    tot = np.zeros(3)
    for r, p in zip(refs, preds):
        s = scorer.score(normalize_text(r), normalize_text(p))
        tot += [s["rouge1"].fmeasure, s["rouge2"].fmeasure, s["rougeL"].fmeasure]
    r1, r2, rl = (tot / len(refs) * 100).tolist()
    return r1, r2, rl


def meteor(preds: Sequence[str], refs: Sequence[str]) -> float:
    """Mean METEOR via ``nltk`` (alpha 0.9, beta 3, gamma 0.5; whitespace tokens; needs nltk's wordnet data)."""
    ms = _need("nltk.translate.meteor_score", "nltk")
    return float(
        np.mean(
            [
                ms.single_meteor_score(r.split(), p.split(), alpha=0.9, beta=3, gamma=0.5)
                for p, r in zip(preds, refs)
            ]
        )
    )
