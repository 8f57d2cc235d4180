"""Token vocabulary, contrast prompt pairs and the synthetic training corpus for in-context function tasks.

Numbers 0..99 are single tokens; then the symbols ``+``, ``=``, ``;``, a BOS token, and ``n_letters`` letter
tokens ``a``, ``b``, ... . A prompt with ``k`` demos is ``BOS a1 + b1 = c1 ; ... ; a + b =`` and the answer is
the next token. The base prompt shows ``c = a + b``; the contrast prompt shows ``c = a + b + delta`` on the same
numbers. *Shift* prompts have one operand: ``BOS x1 = y1 ; ... ; x =`` with ``y = x + delta`` (numbers) or the
letter ``delta`` places further on (letters, cyclic).

Task pairs used by the reproduction (:func:`task_pairs`; base prompt first, contrast prompt second):

* ``"off_by_one"``: standard addition vs off-by-one addition (the paper's main pair);
* ``"base8"``: decimal addition vs base-8 addition of operands 0..7 whose answers are written as the octal digit
  string read as a number token (``5 + 5 = 12``); the query always carries (``a + b >= 8``), so its answers differ;
* ``"shift"``: the numeric identity ``x = x`` vs the numeric successor ``x = x + 1`` (held out like off-by-one).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from iclr26.checks import check_array, check_int

__all__ = [
    "TASKS",
    "Vocab",
    "addition_prompts",
    "contrast_pairs",
    "induction_prompts",
    "naive_prompts",
    "octal_token",
    "prompt_length",
    "sample_training_batch",
    "shift_prompts",
    "task_pairs",
]

TASKS = ("off_by_one", "base8", "shift")


@dataclass(frozen=True)
class Vocab:
    """Numbers ``0..n_numbers-1`` are tokens ``0..n_numbers-1``; then ``+``, ``=``, ``;``, ``<bos>``, then
    ``n_letters`` letters ``a, b, ...``."""

    n_numbers: int = 100
    n_letters: int = 26

    def __post_init__(self) -> None:
        check_int("n_numbers", self.n_numbers, low=2)
        check_int("n_letters", self.n_letters, low=0, high=26)

    @property
    def symbols(self) -> tuple[str, ...]:
        return ("+", "=", ";", "<bos>")

    @property
    def letters(self) -> tuple[str, ...]:
        return tuple(chr(ord("a") + i) for i in range(self.n_letters))

    @property
    def letter_offset(self) -> int:
        """Token id of the first letter."""
        return self.n_numbers + len(self.symbols)

    @property
    def size(self) -> int:
        return self.letter_offset + self.n_letters

    def token(self, s: str | int) -> int:
        if isinstance(s, int) or (isinstance(s, str) and s.isdigit()):
            n = int(s)
            if not 0 <= n < self.n_numbers:
                raise ValueError(f"number {n} is outside the vocabulary's range 0..{self.n_numbers - 1}")
            return n
        if s in self.symbols:
            return self.n_numbers + self.symbols.index(s)
        if s in self.letters:
            return self.letter_offset + self.letters.index(s)
        raise ValueError(
            f"unknown symbol {s!r}; accepted: numbers 0..{self.n_numbers - 1}, {self.symbols} or letters "
            f"{''.join(self.letters)!r}"
        )

    def encode(self, text: str) -> list[int]:
        """Whitespace-separated tokens -> ids."""
        return [self.token(t) for t in text.split()]

    def decode(self, ids) -> str:
        out = []
        for i in (int(v) for v in ids):
            if not 0 <= i < self.size:
                raise ValueError(f"token id {i} is outside 0..{self.size - 1}")
            if i < self.n_numbers:
                out.append(str(i))
            elif i < self.letter_offset:
                out.append(self.symbols[i - self.n_numbers])
            else:
                out.append(self.letters[i - self.letter_offset])
        return " ".join(out)


def prompt_length(shots: int, operands: int = 2) -> int:
    """Tokens of a prompt with ``shots`` demos ending at the query's ``=`` (BOS included)."""
    check_int("shots", shots, low=0)
    check_int("operands", operands, low=1, high=2)
    demo = 2 * operands + 2  # operands, "+" between them, "=", answer, ";"
    return 1 + shots * demo + demo - 2


def octal_token(n: int) -> int:
    """The number token whose decimal digits are ``n`` written in base 8 (``10 -> 12``)."""
    return int(oct(int(n))[2:])


def _rng(seed: int) -> np.random.Generator:
    check_int("seed", seed, low=0)
    return np.random.default_rng(seed)


def _assemble(rows: list[list[tuple[list[int], int]]], vocab: Vocab) -> tuple[Tensor, Tensor]:
    """rows of (operand tokens, answer token) demos; the last demo of each row is the query."""
    plus, eq, sep, bos = (vocab.token(s) for s in ("+", "=", ";", "<bos>"))
    out, ans = [], []
    for demos in rows:
        seq = [bos]
        for j, (ops, y) in enumerate(demos):
            for i, o in enumerate(ops):
                seq += [o] if i == 0 else [plus, o]
            seq.append(eq)
            if j < len(demos) - 1:
                seq += [y, sep]
        out.append(seq)
        ans.append(demos[-1][1])
    return torch.tensor(out), torch.tensor(ans)


def addition_prompts(
    operands: np.ndarray, delta: int = 0, vocab: Vocab | None = None, base: int = 10
) -> tuple[Tensor, Tensor]:
    """Prompts from an operand array ``(n, shots + 1, 2)``: answers ``a + b + delta`` (``base=10``) or the octal
    token of ``a + b`` (``base=8``, then ``delta`` must be 0). Returns ``(tokens, query answers)``."""
    vocab = vocab or Vocab()
    check_int("delta", delta)
    if base not in (8, 10):
        raise ValueError(f"base must be 8 or 10, got {base!r}")
    if base == 8 and delta != 0:
        raise ValueError(f"base-8 prompts take delta=0, got delta={delta}")
    ops = np.asarray(operands)
    if ops.ndim != 3 or ops.shape[2] != 2 or ops.shape[1] < 1:
        raise ValueError(f"operands must have shape (n, shots + 1, 2), got {ops.shape}")
    ops = check_array("operands", ops, integer=True)
    ys = ops.sum(-1) + delta
    if base == 8:
        ys = np.vectorize(octal_token)(ops.sum(-1))
    if ops.min() < 0 or ys.min() < 0 or ys.max() >= vocab.n_numbers:
        raise ValueError(
            f"operands with delta={delta} (base {base}) give answers outside 0..{vocab.n_numbers - 1}"
        )
    rows = [[([int(a), int(b)], int(y)) for (a, b), y in zip(r, yr)] for r, yr in zip(ops, ys)]
    return _assemble(rows, vocab)


def shift_prompts(
    xs: np.ndarray, delta: int, domain: str = "numbers", vocab: Vocab | None = None
) -> tuple[Tensor, Tensor]:
    """Single-operand prompts ``x = x + delta`` from inputs ``(n, shots + 1)`` (letter indices are cyclic)."""
    vocab = vocab or Vocab()
    check_int("delta", delta)
    xs = np.asarray(xs)
    if xs.ndim != 2 or xs.shape[1] < 1:
        raise ValueError(f"xs must have shape (n, shots + 1), got {xs.shape}")
    xs = check_array("xs", xs, integer=True)
    if domain == "numbers":
        ys = xs + delta
        if xs.min() < 0 or ys.min() < 0 or ys.max() >= vocab.n_numbers:
            raise ValueError(f"inputs with delta={delta} give answers outside 0..{vocab.n_numbers - 1}")
        tx, ty = xs, ys
    elif domain == "letters":
        if vocab.n_letters < 2:
            raise ValueError(f"the letters domain needs n_letters >= 2, got {vocab.n_letters}")
        if xs.min() < 0 or xs.max() >= vocab.n_letters:
            raise ValueError(f"letter indices must lie in 0..{vocab.n_letters - 1}")
        tx = xs + vocab.letter_offset
        ty = (xs + delta) % vocab.n_letters + vocab.letter_offset
    else:
        raise ValueError(f"domain must be 'numbers' or 'letters', got {domain!r}")
    rows = [[([int(a)], int(y)) for a, y in zip(r, yr)] for r, yr in zip(tx, ty)]
    return _assemble(rows, vocab)


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
    check_int("seed", seed, low=0)
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


def task_pairs(
    task: str, n: int, shots: int, vocab: Vocab | None = None, seed: int = 0
) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """``(base, contrast, y_base, y_cont)`` for one of :data:`TASKS` (see the module docstring); single-digit
    operands as in the paper's circuit discovery."""
    vocab = vocab or Vocab()
    check_int("n", n, low=1)
    check_int("shots", shots, low=0)
    if task not in TASKS:
        raise ValueError(f"task must be one of {TASKS}, got {task!r}")
    if task == "off_by_one":
        return contrast_pairs(n, shots, 1, 9, vocab, seed)
    rng = _rng(seed)
    if task == "base8":
        ops = rng.integers(0, 8, (n, shots + 1, 2))
        a = rng.integers(1, 8, n)
        ops[:, -1, 0], ops[:, -1, 1] = a, rng.integers(8 - a, 8)  # the query carries: a + b >= 8
        b, yb = addition_prompts(ops, 0, vocab, base=10)
        c, yc = addition_prompts(ops, 0, vocab, base=8)
        return b, c, yb, yc
    xs = rng.integers(0, min(vocab.n_numbers - 1, 50), (n, shots + 1))
    b, yb = shift_prompts(xs, 0, "numbers", vocab)
    c, yc = shift_prompts(xs, 1, "numbers", vocab)
    return b, c, yb, yc


def naive_prompts(query: int, n: int, shots: int, vocab: Vocab | None = None, seed: int = 0) -> Tensor:
    """``n`` identity prompts ``x = x ; ... ; query =`` (demo inputs 0..9, random) for the parallel-pieces read-out."""
    vocab = vocab or Vocab()
    check_int("query", query, low=0, high=vocab.n_numbers - 1)
    check_int("n", n, low=1)
    check_int("shots", shots, low=0)
    xs = _rng(seed).integers(0, 10, (n, shots + 1))
    xs[:, -1] = query
    return shift_prompts(xs, 0, "numbers", vocab)[0]


def induction_prompts(n: int, half: int, vocab: Vocab | None = None, seed: int = 0) -> Tensor:
    """``BOS r r`` with ``r`` a random number-token sequence of length ``half`` (the standard induction-score
    prompt)."""
    vocab = vocab or Vocab()
    check_int("n", n, low=1)
    check_int("half", half, low=1)
    r = _rng(seed).integers(0, vocab.n_numbers, (n, half))
    bos = np.full((n, 1), vocab.token("<bos>"))
    return torch.as_tensor(np.concatenate([bos, r, r], 1))


# training corpus: numeric deltas (+1 held out) and letter deltas
NUMERIC_DELTAS = (0, 0, 2, -1, 3)
LETTER_DELTAS = (1, 2, -1)


def _training_operands(rng: np.random.Generator, batch: int, shots: int, delta: int, max_operand: int):
    ops = rng.integers(0, max_operand + 1, (batch, shots + 1, 2))
    s = ops.sum(-1) + delta
    bad = s < 0
    ops[..., 0] = np.where(bad, ops[..., 0] - s, ops[..., 0])  # raise a so that a + b + delta >= 0
    return ops


def sample_training_batch(
    batch: int,
    shots: int,
    rng: np.random.Generator,
    vocab: Vocab | None = None,
    max_operand: int = 48,
    numeric_deltas: tuple[int, ...] = NUMERIC_DELTAS,
    letter_deltas: tuple[int, ...] = LETTER_DELTAS,
) -> dict[str, Tensor]:
    """One training batch of the synthetic corpus: ``{"add": tokens, "num_shift": tokens, "let_shift": tokens}``.

    Each row is ``shots + 1`` complete demos (the final ``;`` dropped) of one task with a per-row offset:
    addition ``a + b = a + b + delta`` and the numeric shift ``x = x + delta`` with ``delta`` drawn from
    ``numeric_deltas`` (``+1`` held out), and the letter shift with ``delta`` from ``letter_deltas``. Operands are
    single-digit in half of the addition rows and ``0..max_operand`` in the rest. The loss is read at every
    ``=`` (the next token is a demo's answer)."""
    vocab = vocab or Vocab()
    check_int("batch", batch, low=1)
    check_int("shots", shots, low=1)
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator, got {type(rng).__name__}")
    check_int("max_operand", max_operand, low=9)
    if 2 * max_operand + max(numeric_deltas) >= vocab.n_numbers:
        raise ValueError(
            f"max_operand={max_operand} with deltas {numeric_deltas} exceeds the numbers 0..{vocab.n_numbers - 1}"
        )

    def full(prompt: tuple[Tensor, Tensor]) -> Tensor:
        return torch.cat([prompt[0], prompt[1][:, None]], 1)

    add = []
    for i in range(batch):
        d = int(rng.choice(numeric_deltas))
        ops = _training_operands(rng, 1, shots, d, 9 if i % 2 == 0 else max_operand)
        add.append(full(addition_prompts(ops, d, vocab)))
    num, let = [], []
    for _ in range(max(1, batch // 2)):
        d = int(rng.choice(numeric_deltas))
        xs = rng.integers(max(0, -d), vocab.n_numbers - max(d, 0), (1, shots + 1))
        num.append(full(shift_prompts(xs, d, "numbers", vocab)))
        d = int(rng.choice(letter_deltas))
        xs = rng.integers(0, vocab.n_letters, (1, shots + 1))
        let.append(full(shift_prompts(xs, d, "letters", vocab)))
    return {"add": torch.cat(add), "num_shift": torch.cat(num), "let_shift": torch.cat(let)}
