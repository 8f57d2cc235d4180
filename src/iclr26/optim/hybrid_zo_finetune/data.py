"""Epoch-wise reshuffling sampler and the two synthetic classification tasks (A: pretraining, B: fine-tuning).

Sequences of `seq_len` tokens over a vocabulary of `vocab_size`; ids ``0..n_keys-1`` are "key tokens", the
rest are fillers. Every sequence holds between 1 and 14 key tokens at random positions, with a unique most
frequent key.

* Task A: label = the most frequent key token (n_keys classes).
* Task B: label = ``mapping[first key token, last key token]``, a fixed random map of the n_keys^2 ordered
  pairs onto `n_classes` classes (each class gets the same number of pairs), drawn from `task_seed`. The
  inputs come from the same distribution as task A, so the base model's key-token features help only in part.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import numpy as np
import torch
from torch import Tensor

from iclr26.checks import check_bool, check_int

__all__ = ["ReshuffleLoader", "key_sequences", "task_a", "task_b", "task_b_mapping"]


class ReshuffleLoader:
    """Random-reshuffling minibatches: a fresh permutation of ``range(n)`` each epoch, deterministic in seed.

    ``batches(epoch)`` lists the index batches of one epoch (every index exactly once; the last batch is short
    unless ``drop_last``); iterating yields the batches of epochs 0, 1, 2, ... without end. The permutation of
    epoch e comes from a private generator seeded by ``(seed, epoch)``, never from the global RNG.

    Examples
    --------
    >>> loader = ReshuffleLoader(5, 2, seed=0)
    >>> sorted(torch.cat(loader.batches(0)).tolist()), [len(b) for b in loader.batches(0)]
    ([0, 1, 2, 3, 4], [2, 2, 1])
    """

    def __init__(self, n: int, batch_size: int, seed: int = 0, drop_last: bool = False) -> None:
        check_int("n", n, low=1)
        check_int("batch_size", batch_size, low=1)
        check_int("seed", seed, low=0)
        check_bool("drop_last", drop_last)
        if drop_last and batch_size > n:
            raise ValueError(f"batch_size={batch_size} exceeds n={n} with drop_last: an epoch would be empty")
        self.n, self.batch_size, self.seed, self.drop_last = n, batch_size, seed, drop_last

    def permutation(self, epoch: int) -> Tensor:
        """The visiting order of epoch `epoch`."""
        check_int("epoch", epoch, low=0)
        state = np.random.SeedSequence([self.seed, int(epoch)]).generate_state(1, dtype=np.uint64)[0] >> 1
        return torch.randperm(self.n, generator=torch.Generator().manual_seed(int(state)))

    def batches(self, epoch: int) -> list[Tensor]:
        """The index batches of epoch `epoch`."""
        perm = self.permutation(epoch)
        out = list(perm.split(self.batch_size))
        if self.drop_last and out[-1].numel() < self.batch_size:
            out.pop()
        return out

    def __len__(self) -> int:
        return self.n // self.batch_size if self.drop_last else -(-self.n // self.batch_size)

    def __iter__(self) -> Iterator[Tensor]:
        for epoch in itertools.count():
            yield from self.batches(epoch)


def _check_sizes(n: int, vocab_size: int, seq_len: int, n_keys: int) -> None:
    check_int("n", n, low=1)
    check_int("vocab_size", vocab_size)
    check_int("seq_len", seq_len)
    check_int("n_keys", n_keys)
    if n_keys < 2 or vocab_size <= n_keys:
        raise ValueError(f"need 2 <= n_keys < vocab_size, got n_keys={n_keys}, vocab_size={vocab_size}")
    if seq_len < 3 * (n_keys - 1) + 5:
        raise ValueError(f"seq_len must be >= {3 * (n_keys - 1) + 5} for {n_keys} keys, got {seq_len}")


def key_sequences(
    n: int, rng: np.random.Generator, vocab_size: int = 32, seq_len: int = 16, n_keys: int = 4
) -> tuple[np.ndarray, np.ndarray]:
    """`n` token sequences and their most frequent key token (unique by construction)."""
    _check_sizes(n, vocab_size, seq_len, n_keys)
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    tokens = rng.integers(n_keys, vocab_size, size=(n, seq_len))
    top = rng.integers(0, n_keys, size=n)
    for i in range(n):
        counts = rng.integers(0, 4, size=n_keys)
        others = np.delete(counts, top[i])
        counts[top[i]] = others.max() + 1 + rng.integers(0, 2)
        keys = np.repeat(np.arange(n_keys), counts)
        pos = rng.choice(seq_len, size=keys.size, replace=False)
        tokens[i, pos] = rng.permutation(keys)
    return tokens, top


def task_a(
    n: int, seed: int, vocab_size: int = 32, seq_len: int = 16, n_keys: int = 4
) -> tuple[Tensor, Tensor]:
    """Task A: (tokens (n, seq_len) int64, labels (n,)) with label = most frequent key token."""
    check_int("seed", seed, low=0)
    tokens, top = key_sequences(n, np.random.default_rng(seed), vocab_size, seq_len, n_keys)
    return torch.from_numpy(tokens).long(), torch.from_numpy(top).long()


def task_b_mapping(n_keys: int, n_classes: int, task_seed: int) -> np.ndarray:
    """The (n_keys, n_keys) map of (first key, last key) to a class; balanced, random under `task_seed`."""
    check_int("n_keys", n_keys, low=2)
    check_int("task_seed", task_seed, low=0)
    pairs = n_keys * n_keys
    check_int("n_classes", n_classes, low=2, high=pairs)
    labels = np.arange(pairs) % n_classes
    return np.random.default_rng(task_seed).permutation(labels).reshape(n_keys, n_keys)


def task_b(
    n: int,
    seed: int,
    n_classes: int = 8,
    task_seed: int = 0,
    vocab_size: int = 32,
    seq_len: int = 16,
    n_keys: int = 4,
) -> tuple[Tensor, Tensor]:
    """Task B: same inputs as task A, label = ``task_b_mapping[first key, last key]``."""
    mapping = task_b_mapping(n_keys, n_classes, task_seed)
    tokens, _ = key_sequences(n, np.random.default_rng(seed), vocab_size, seq_len, n_keys)
    is_key = tokens < n_keys
    first = tokens[np.arange(n), is_key.argmax(1)]
    last = tokens[np.arange(n), seq_len - 1 - is_key[:, ::-1].argmax(1)]
    return torch.from_numpy(tokens).long(), torch.from_numpy(mapping[first, last]).long()
