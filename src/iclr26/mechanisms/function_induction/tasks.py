"""Token vocabulary and contrast prompt pairs for in-context (off-by-k) addition.

Numbers 0..99 are single tokens; then the symbols ``+``, ``=``, ``;`` and a BOS token. A prompt with ``k``
demos is ``BOS a1 + b1 = c1 ; ... ; a + b =`` and the answer is the next token. The base prompt shows
``c = a + b``; the contrast prompt shows ``c = a + b + delta`` on the same numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from iclr26.checks import check_int

__all__ = ["Vocab", "contrast_pairs"]


@dataclass(frozen=True)
class Vocab:
    """Numbers ``0..n_numbers-1`` are tokens ``0..n_numbers-1``; then ``+``, ``=``, ``;``, ``<bos>``."""

    n_numbers: int = 100

    def __post_init__(self) -> None:
        check_int("n_numbers", self.n_numbers, low=2)

    @property
    def symbols(self) -> tuple[str, ...]:
        return ("+", "=", ";", "<bos>")

    @property
    def size(self) -> int:
        return self.n_numbers + len(self.symbols)

    def token(self, s: str | int) -> int:
        if isinstance(s, int) or (isinstance(s, str) and s.isdigit()):
            n = int(s)
            if not 0 <= n < self.n_numbers:
                raise ValueError(f"number {n} is outside the vocabulary's range 0..{self.n_numbers - 1}")
            return n
        if s not in self.symbols:
            raise ValueError(
                f"unknown symbol {s!r}; accepted: numbers 0..{self.n_numbers - 1} or {self.symbols}"
            )
        return self.n_numbers + self.symbols.index(s)

    def encode(self, text: str) -> list[int]:
        """Whitespace-separated tokens -> ids."""
        return [self.token(t) for t in text.split()]

    def decode(self, ids) -> str:
        out = []
        for i in (int(v) for v in ids):
            if not 0 <= i < self.size:
                raise ValueError(f"token id {i} is outside 0..{self.size - 1}")
            out.append(str(i) if i < self.n_numbers else self.symbols[i - self.n_numbers])
        return " ".join(out)


def contrast_pairs(
    n: int, shots: int, delta: int = 1, max_operand: int = 9, vocab: Vocab | None = None, seed: int = 0
) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """``n`` pairs of (base, contrast) prompts with the same numbers; returns
    ``(base, contrast, y_base, y_cont)``: token tensors (n, 6*shots + 5) and answer ids (n,)."""
    vocab = vocab or Vocab()
    check_int("n", n, low=1)
    check_int("shots", shots, low=0)
    check_int("delta", delta)
    check_int("max_operand", max_operand, low=0)
    if 2 * max_operand + max(delta, 0) >= vocab.n_numbers or max_operand < -delta:
        raise ValueError(
            f"max_operand={max_operand} with delta={delta} gives answers outside 0..{vocab.n_numbers - 1}"
        )
    g = torch.Generator().manual_seed(seed)
    low = max(0, -delta)  # keep a + b + delta >= 0
    ops = torch.randint(0, max_operand + 1, (n, shots + 1, 2), generator=g)
    ops[..., 0] = ops[..., 0].clamp(min=low)
    plus, eq, sep, bos = (vocab.token(s) for s in ("+", "=", ";", "<bos>"))
    base, cont = [], []
    for row in ops.tolist():
        b, c = [bos], [bos]
        for j, (a1, a2) in enumerate(row):
            for seq, d in ((b, 0), (c, delta)):
                seq += [a1, plus, a2, eq]
                if j < shots:
                    seq += [a1 + a2 + d, sep]
        base.append(b)
        cont.append(c)
    sums = ops[:, -1].sum(-1)
    return torch.tensor(base), torch.tensor(cont), sums, sums + delta
