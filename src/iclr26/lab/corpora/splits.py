"""Chunking a text at line boundaries and splitting it deterministically into train/val/test."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from iclr26.checks import check_float, check_int

__all__ = ["SPLIT_NAMES", "chunk_text", "split_text"]

SPLIT_NAMES = ("train", "val", "test")


def chunk_text(text: str, chunk_chars: int = 2000) -> list[str]:
    """Cut ``text`` into consecutive chunks that end at line boundaries and hold about ``chunk_chars`` each.

    A chunk grows line by line until it reaches ``chunk_chars`` characters, so ``"".join(chunks) == text``.

    Parameters
    ----------
    text : str
    chunk_chars : int
        Target chunk size in characters (a single longer line is kept whole).

    Returns
    -------
    list of str

    Example
    -------
    >>> chunk_text("a\\nb\\nc\\n", chunk_chars=3)
    ['a\\nb\\n', 'c\\n']
    """
    check_int("chunk_chars", chunk_chars, low=1)
    chunks: list[str] = []
    current: list[str] = []
    size = 0
    for line in text.splitlines(keepends=True):
        current.append(line)
        size += len(line)
        if size >= chunk_chars:
            chunks.append("".join(current))
            current, size = [], 0
    if current:
        chunks.append("".join(current))
    return chunks


def split_text(
    text: str, fractions: Sequence[float] = (0.9, 0.05, 0.05), seed: int = 0, chunk_chars: int = 2000
) -> dict[str, str]:
    """Split a text into train/val/test at chunk granularity, deterministically.

    The text is cut by :func:`chunk_text`; a seeded shuffle assigns each chunk to exactly one split, and each
    split keeps its chunks in their original order. The splits are therefore disjoint and together cover
    the text.

    Parameters
    ----------
    text : str
        At least three chunks long (every split gets at least one chunk).
    fractions : sequence of 3 floats
        Fractions of chunks for train, val and test; each positive, summing to 1.
    seed : int
        Seed of the shuffle.
    chunk_chars : int
        Chunk size passed to :func:`chunk_text`.

    Returns
    -------
    dict
        ``{"train": str, "val": str, "test": str}``.

    Example
    -------
    >>> parts = split_text("".join(f"line {i}\\n" for i in range(100)), chunk_chars=10)
    >>> sorted(parts)
    ['test', 'train', 'val']
    """
    fractions = tuple(fractions)
    if len(fractions) != 3:
        raise ValueError(f"fractions must be three numbers for (train, val, test), got {fractions!r}")
    for i, f in enumerate(fractions):
        check_float(f"fractions[{i}] (train, val, test)", f, low=0.0, low_open=True, finite=False)
    if not math.isclose(sum(fractions), 1.0, abs_tol=1e-9):
        raise ValueError(f"fractions must be positive and sum to 1, got {fractions!r}")
    check_int("seed", seed)
    chunks = chunk_text(text, chunk_chars)
    n = len(chunks)
    if n < 3:
        raise ValueError(
            f"text must hold at least 3 chunks of chunk_chars={chunk_chars} to split three ways, got {n}"
        )
    n_val = max(1, round(fractions[1] * n))
    n_test = max(1, round(fractions[2] * n))
    while n - n_val - n_test < 1:  # keep train non-empty on tiny texts
        if n_val >= n_test:
            n_val -= 1
        else:
            n_test -= 1
    order = list(range(n))
    random.Random(seed).shuffle(order)
    owner = {}
    for rank, index in enumerate(order):
        owner[index] = "val" if rank < n_val else "test" if rank < n_val + n_test else "train"
    return {name: "".join(chunks[i] for i in range(n) if owner[i] == name) for name in SPLIT_NAMES}
