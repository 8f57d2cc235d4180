"""A minimal base for synthetic sequence tasks: a vocabulary and deterministic ``(tokens, targets)``.

A task describes its :class:`Vocabulary` and its sequence length, and :meth:`SyntheticTask.generate` returns
the same ``(tokens, targets)`` tensors for the same seed: ``tokens`` is a LongTensor (examples, seq) of ids in
the vocabulary; ``targets`` is a LongTensor (examples,) (the answer read at the last position) or
(examples, seq) with :data:`IGNORE_INDEX` where no answer is scored.

Example
-------
>>> import torch
>>> class Copy(SyntheticTask):
...     vocabulary = Vocabulary(("a", "b"))
...     seq_len = 3
...     def _generate(self, generator):
...         tokens = torch.randint(0, 2, (4, 3), generator=generator)
...         return tokens, tokens[:, 0]
>>> tokens, targets = Copy().generate(seed=0)
>>> tokens.shape, targets.shape, bool(torch.equal(Copy().generate(0)[0], tokens))
(torch.Size([4, 3]), torch.Size([4]), True)
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

import torch
from torch import Tensor

from iclr26.checks import check_int

__all__ = ["IGNORE_INDEX", "SyntheticTask", "Vocabulary"]

IGNORE_INDEX = -100


@dataclass(frozen=True)
class Vocabulary:
    """Token names in id order; ``vocab.index("#")`` gives an id, ``vocab.names[i]`` a name."""

    names: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.names:
            raise ValueError("names must hold at least one token name")
        if len(set(self.names)) != len(self.names):
            raise ValueError(f"names must be distinct, got {self.names}")

    def __len__(self) -> int:
        return len(self.names)

    def index(self, name: str) -> int:
        try:
            return self.names.index(name)
        except ValueError as err:
            raise ValueError(f"token {name!r} is not in the vocabulary") from err

    def decode(self, ids: Tensor | list[int]) -> list[str]:
        """Token names of a 1-D sequence of ids."""
        return [self.names[int(i)] for i in ids]


class SyntheticTask(ABC):
    """A synthetic task: subclasses set ``vocabulary`` and ``seq_len`` and implement ``_generate``."""

    vocabulary: Vocabulary
    seq_len: int

    @abstractmethod
    def _generate(self, generator: torch.Generator) -> tuple[Tensor, Tensor]:
        """Build ``(tokens, targets)`` drawing randomness only from `generator`."""

    def generate(self, seed: int = 0) -> tuple[Tensor, Tensor]:
        """The task's ``(tokens, targets)`` for `seed`, checked for shape, dtype and id range."""
        check_int("seed", seed, low=0)
        tokens, targets = self._generate(torch.Generator().manual_seed(seed))
        check_batch(tokens, targets, len(self.vocabulary), self.seq_len)
        return tokens, targets


def check_batch(tokens: Tensor, targets: Tensor, vocab_size: int, seq_len: int) -> None:
    """Raise ValueError unless ``(tokens, targets)`` is a valid task batch for this vocabulary and length."""
    if tokens.dtype != torch.long or tokens.ndim != 2 or tokens.shape[1] != seq_len:
        raise ValueError(
            f"tokens must be a LongTensor (examples, {seq_len}), got {tokens.dtype} {tuple(tokens.shape)}"
        )
    if targets.dtype != torch.long or targets.shape not in (tokens.shape[:1], tokens.shape):
        raise ValueError(
            f"targets must be a LongTensor of shape {tuple(tokens.shape[:1])} or {tuple(tokens.shape)}, got "
            f"{targets.dtype} {tuple(targets.shape)}"
        )
    scored = targets[targets != IGNORE_INDEX]
    for name, ids in (("tokens", tokens), ("targets", scored)):
        if ids.numel() and (int(ids.min()) < 0 or int(ids.max()) >= vocab_size):
            raise ValueError(
                f"{name} must lie in [0, {vocab_size}), got [{int(ids.min())}, {int(ids.max())}]"
            )
