"""Recall and in-context regression tasks for sequence mixers: MQAR, passkey, local copy + long recall, regression.

All generators are deterministic given ``seed`` and return LongTensor tokens (n, seq_len) and next-token targets
(n, seq_len) with :data:`~iclr26.lab.tasks.base.IGNORE_INDEX` where nothing is scored: position ``p``'s target is
the token the model must emit after reading ``tokens[: p + 1]``.

* :func:`mqar` — multi-query associative recall in the style of Zoology (Arora et al., 2023): ``n_kv`` key-value
  pairs at the start, then each key queried once later in the sequence; keys come from the lower half of the
  vocabulary and values from the upper half; only value predictions are scored.
* :func:`passkey` — a digit string hidden in filler at a controlled relative depth, asked for at the end.
* :func:`local_and_recall` — short-span induction (the needed token a few to a few tens of positions back) mixed
  with associative recall of pairs planted at the start and queried far later; each scored position is labelled
  local or recall and carries its distance, so accuracy can be split by kind and distance.
* :func:`regression_prompts` — in-context regression families (linear, smooth nonlinear, piecewise linear with
  switching maps) as real-valued ``(x, y)`` prompts.

Example
-------
>>> tokens, targets = mqar(n=2, seq_len=16, n_kv=3, vocab_size=32, seed=0)
>>> tokens.shape, int((targets != IGNORE_INDEX).sum(dim=1)[0])
(torch.Size([2, 16]), 3)
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from iclr26.checks import check_choice, check_float, check_int
from iclr26.lab.tasks.base import IGNORE_INDEX

__all__ = [
    "PASSKEY_VOCAB",
    "REGRESSION_FAMILIES",
    "RecallBatch",
    "local_and_recall",
    "local_and_recall_vocab_size",
    "mqar",
    "passkey",
    "regression_prompts",
]


def _gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(check_int("seed", seed, 0))


def _sample_without_replacement(n: int, pool: int, k: int, gen: torch.Generator) -> Tensor:
    """(n, k) rows of distinct integers in [0, pool)."""
    return torch.rand(n, pool, generator=gen).argsort(dim=1)[:, :k]


def mqar(n: int, seq_len: int, n_kv: int, vocab_size: int, seed: int = 0) -> tuple[Tensor, Tensor]:
    """Multi-query associative recall batch.

    Layout: ``k_1 v_1 k_2 v_2 ... k_N v_N`` then a query region of blank tokens (id 0) in which every key appears
    once, at a random even offset, followed by its value. The target at a query key's position is its value;
    everything else is ignored. Keys are distinct within a sequence and drawn from ``[1, vocab_size // 2)``;
    values from ``[vocab_size // 2, vocab_size)`` (repeats allowed).

    Requires ``seq_len >= 4 * n_kv`` and ``vocab_size // 2 - 1 >= n_kv``.
    """
    check_int("n", n, 1)
    check_int("n_kv", n_kv, 1)
    check_int("seq_len", seq_len, 4 * n_kv)
    check_int("vocab_size", vocab_size, 4)
    half = vocab_size // 2
    if half - 1 < n_kv:
        raise ValueError(f"vocab_size={vocab_size} leaves {half - 1} key ids for n_kv={n_kv} distinct keys")
    gen = _gen(seed)
    keys = 1 + _sample_without_replacement(n, half - 1, n_kv, gen)
    values = torch.randint(half, vocab_size, (n, n_kv), generator=gen)
    tokens = torch.zeros(n, seq_len, dtype=torch.long)
    targets = torch.full((n, seq_len), IGNORE_INDEX, dtype=torch.long)
    tokens[:, 0 : 2 * n_kv : 2] = keys
    tokens[:, 1 : 2 * n_kv : 2] = values
    slots = (seq_len - 2 * n_kv) // 2  # query slots at offsets 2*n_kv + 2*j
    pick = _sample_without_replacement(n, slots, n_kv, gen)
    order = _sample_without_replacement(n, n_kv, n_kv, gen)
    rows = torch.arange(n)[:, None]
    pos = 2 * n_kv + 2 * pick
    tokens[rows, pos] = keys.gather(1, order)
    tokens[rows, pos + 1] = values.gather(1, order)
    targets[rows, pos] = values.gather(1, order)
    return tokens, targets


PASSKEY_VOCAB = {"blank": 0, "key_marker": 1, "query_marker": 2, "digits": (3, 13), "filler": 13}


def passkey(
    n: int,
    seq_len: int,
    depth: float,
    passkey_len: int = 5,
    n_filler: int = 32,
    seed: int = 0,
) -> tuple[Tensor, Tensor]:
    """Passkey retrieval: a ``passkey_len``-digit key hidden at relative ``depth`` in random filler.

    Vocabulary (see :data:`PASSKEY_VOCAB`): 0 blank, 1 key marker, 2 query marker, 3..12 the digits 0-9,
    13..13+n_filler-1 filler words (vocabulary size ``13 + n_filler``). The sequence is filler with
    ``KEY d_1..d_L`` starting at ``round(depth * (seq_len - 2L - 3))`` and ends with ``QUERY d_1..d_L``; the
    targets are the digits after the query marker (at the marker and the first L - 1 digits).
    """
    check_int("n", n, 1)
    check_int("passkey_len", passkey_len, 1)
    check_int("n_filler", n_filler, 1)
    check_int("seq_len", seq_len, 2 * passkey_len + 3)
    if not 0.0 <= float(depth) <= 1.0:
        raise ValueError(f"depth must lie in [0, 1], got {depth!r}")
    gen = _gen(seed)
    lo, hi = PASSKEY_VOCAB["digits"]
    tokens = torch.randint(13, 13 + n_filler, (n, seq_len), generator=gen)
    key = torch.randint(lo, hi, (n, passkey_len), generator=gen)
    start = int(round(float(depth) * (seq_len - 2 * passkey_len - 3)))
    tokens[:, start] = PASSKEY_VOCAB["key_marker"]
    tokens[:, start + 1 : start + 1 + passkey_len] = key
    q = seq_len - passkey_len - 1
    tokens[:, q] = PASSKEY_VOCAB["query_marker"]
    tokens[:, q + 1 :] = key
    targets = torch.full((n, seq_len), IGNORE_INDEX, dtype=torch.long)
    targets[:, q : q + passkey_len] = key
    return tokens, targets


@dataclass(frozen=True)
class RecallBatch:
    """Tokens and targets plus, per scored position, its kind (1 local, 2 recall; 0 unscored) and distance."""

    tokens: Tensor
    targets: Tensor
    kind: Tensor
    distance: Tensor

    LOCAL = 1
    RECALL = 2


def local_and_recall(
    n: int,
    seq_len: int,
    *,
    local_span: tuple[int, int] = (8, 40),
    n_local: int = 8,
    n_pairs: int = 8,
    recall_distance: tuple[int, int] = (100, 250),
    n_filler: int = 64,
    seed: int = 0,
) -> RecallBatch:
    """Short-span induction mixed with long-range associative recall in one sequence.

    Vocabulary, in id order: ``n_filler`` filler ids, ``n_local`` trigger ids, ``n_pairs`` key ids and
    ``n_pairs`` value ids, so every trigger and key is unique within a sequence (vocabulary size
    ``n_filler + n_local + 2 * n_pairs``, see :func:`local_and_recall_vocab_size`).

    * Recall: ``k_i v_i`` pairs occupy positions ``0 .. 2 n_pairs - 1``, with the values a fresh random
      permutation of the value ids in every sequence (so a pair cannot be memorised as a fixed bigram); key
      ``k_i`` is asked again at a position ``2i + d`` with ``d`` drawn from ``recall_distance`` (inclusive), and
      the target there is ``v_i``. Queries that would fall beyond ``seq_len`` are dropped.
    * Local induction: a trigger ``a`` followed by a filler ``b`` at position ``s``; ``a`` reappears at ``s + d``
      with ``d`` drawn from ``local_span``, and the target there is ``b``.

    Instances that would collide with one another are dropped (their targets stay ignored), so a batch may score
    slightly fewer than ``n_local`` / ``n_pairs`` positions per sequence; ``kind`` says what was kept.
    """
    check_int("n", n, 1)
    check_int("n_local", n_local, 0)
    check_int("n_pairs", n_pairs, 0)
    check_int("n_filler", n_filler, 2)
    for name, (lo, hi) in (("local_span", local_span), ("recall_distance", recall_distance)):
        if not (isinstance(lo, int) and isinstance(hi, int) and 2 <= lo <= hi):
            raise ValueError(f"{name} must be (lo, hi) ints with 2 <= lo <= hi, got {(lo, hi)!r}")
    check_int("seq_len", seq_len, max(2 * n_pairs + recall_distance[0] + 1, local_span[1] + 2))
    gen = _gen(seed)
    trig0 = n_filler
    key0 = trig0 + n_local
    val0 = key0 + n_pairs
    tokens = torch.randint(0, n_filler, (n, seq_len), generator=gen)
    targets = torch.full((n, seq_len), IGNORE_INDEX, dtype=torch.long)
    kind = torch.zeros(n, seq_len, dtype=torch.long)
    distance = torch.zeros(n, seq_len, dtype=torch.long)
    lo_r, hi_r = recall_distance
    lo_l, hi_l = local_span
    for row in range(n):
        used = torch.zeros(seq_len, dtype=torch.bool)
        values = (
            val0 + torch.randperm(n_pairs, generator=gen)
        ).tolist()  # a fresh key -> value map per sequence
        for i in range(n_pairs):
            tokens[row, 2 * i] = key0 + i
            tokens[row, 2 * i + 1] = values[i]
        used[: 2 * n_pairs] = True
        for i in torch.randperm(n_pairs, generator=gen).tolist():
            d = int(torch.randint(lo_r, hi_r + 1, (1,), generator=gen))
            q = 2 * i + d
            if q >= seq_len or used[q]:
                continue
            tokens[row, q] = key0 + i
            targets[row, q] = values[i]
            kind[row, q], distance[row, q] = RecallBatch.RECALL, d
            used[q] = True
        for j in range(n_local):
            d = int(torch.randint(lo_l, hi_l + 1, (1,), generator=gen))
            s = int(torch.randint(2 * n_pairs, max(2 * n_pairs + 1, seq_len - d), (1,), generator=gen))
            if s + d >= seq_len or used[s] or used[s + 1] or used[s + d]:
                continue
            tokens[row, s] = trig0 + j
            b = int(tokens[row, s + 1])
            tokens[row, s + d] = trig0 + j
            targets[row, s + d] = b
            kind[row, s + d], distance[row, s + d] = RecallBatch.LOCAL, d
            used[s] = used[s + 1] = used[s + d] = True
    return RecallBatch(tokens, targets, kind, distance)


def local_and_recall_vocab_size(n_local: int = 8, n_pairs: int = 8, n_filler: int = 64) -> int:
    """Vocabulary size of :func:`local_and_recall` with these arguments."""
    return n_filler + n_local + 2 * n_pairs


REGRESSION_FAMILIES = ("linear", "tanh_mlp", "piecewise_linear")


def regression_prompts(
    n: int,
    n_points: int,
    d: int,
    family: str = "linear",
    d_out: int = 1,
    noise: float = 0.1,
    n_segments: int = 4,
    seed: int = 0,
) -> tuple[Tensor, Tensor]:
    """In-context regression prompts: ``xs`` (n, n_points, d) ~ N(0, I) and ``ys`` (n, n_points, d_out).

    Each prompt draws its own function:

    * ``"linear"``: ``y = W x / sqrt(d)`` with ``W`` Gaussian;
    * ``"tanh_mlp"``: ``y = W_2 tanh(W_1 x / sqrt(d)) / sqrt(h)`` with a random 2-layer MLP (h = 4d), smooth and
      nonlinear;
    * ``"piecewise_linear"``: non-stationary, ``W`` is redrawn every ``n_points / n_segments`` points, so only
      the last segment's map predicts the last points.

    Gaussian noise of standard deviation ``noise`` is added to ``y``.
    """
    check_int("n", n, 1)
    check_int("n_points", n_points, 1)
    check_int("d", d, 1)
    check_int("d_out", d_out, 1)
    check_int("n_segments", n_segments, 1)
    check_choice("family", family, REGRESSION_FAMILIES)
    check_float("noise", noise, low=0.0, finite=False)
    gen = _gen(seed)
    xs = torch.randn(n, n_points, d, generator=gen)
    if family == "linear":
        w = torch.randn(n, d_out, d, generator=gen)
        ys = torch.einsum("nod,npd->npo", w, xs) / d**0.5
    elif family == "tanh_mlp":
        h = 4 * d
        w1 = torch.randn(n, h, d, generator=gen)
        w2 = torch.randn(n, d_out, h, generator=gen)
        hidden = torch.tanh(torch.einsum("nhd,npd->nph", w1, xs) / d**0.5)
        ys = torch.einsum("noh,nph->npo", w2, hidden) / h**0.5
    else:
        seg = torch.div(torch.arange(n_points) * n_segments, n_points, rounding_mode="floor")
        w = torch.randn(n, n_segments, d_out, d, generator=gen)
        ys = torch.einsum("npod,npd->npo", w[:, seg], xs) / d**0.5
    return xs, ys + noise * torch.randn(ys.shape, generator=gen)
