"""Multiple-choice items as one vectorised set, and a generated arithmetic task for the endpoint path.

An :class:`ItemSet` holds ``n`` items: ids (unique within a world), question text, option texts, the index of
the correct option, and two flags the blocks act on: ``long`` (long-context items a Summarize block helps
with) and ``code`` (items whose answer an Executor can test). Subsets keep the ids, so anything keyed by item
id (the simulated LLM's randomness) is the same whichever subset an item is evaluated in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from iclr26.checks import check_array, check_int

__all__ = ["LETTERS", "ItemSet", "arithmetic_items"]

LETTERS = "ABCDEFGHIJ"


@dataclass(frozen=True)
class ItemSet:
    """``n`` multiple-choice items (see the module docstring); index or mask it with :meth:`subset`."""

    ids: np.ndarray
    questions: tuple[str, ...]
    options: tuple[tuple[str, ...], ...]
    answers: np.ndarray
    long: np.ndarray
    code: np.ndarray

    def __post_init__(self) -> None:
        n = len(self.questions)
        for name in ("ids", "answers", "long", "code"):
            if np.asarray(getattr(self, name)).shape != (n,):
                raise ValueError(f"ItemSet.{name} must have shape ({n},) like questions")
        if len(self.options) != n:
            raise ValueError(
                f"ItemSet.options must hold one tuple per question ({n}), got {len(self.options)}"
            )
        if n and (np.asarray(self.answers) < 0).any():
            raise ValueError("ItemSet.answers must be option indices >= 0")
        if len(set(np.asarray(self.ids).tolist())) != n:
            raise ValueError("ItemSet.ids must be unique")
        if n:  # ids index the items, answers the options: integers
            check_array("ItemSet.ids", self.ids, integer=True)
            check_array("ItemSet.answers", self.answers, integer=True)

    def __len__(self) -> int:
        return len(self.questions)

    @property
    def n_options(self) -> int:
        return max((len(o) for o in self.options), default=0)

    def subset(self, index: np.ndarray | Sequence[int]) -> ItemSet:
        """The items at `index` (an integer array or a boolean mask), in that order."""
        idx = np.asarray(index)
        if idx.dtype == bool:
            idx = np.flatnonzero(idx)
        idx = idx.astype(int)
        return ItemSet(
            self.ids[idx],
            tuple(self.questions[i] for i in idx),
            tuple(self.options[i] for i in idx),
            self.answers[idx],
            self.long[idx],
            self.code[idx],
        )

    def accuracy(self, predicted: np.ndarray) -> float:
        """Fraction of items whose predicted option index equals the answer (an unparsed -1 is wrong)."""
        p = np.asarray(predicted)
        if p.shape != (len(self),):
            raise ValueError(f"predicted must have shape ({len(self)},), got {p.shape}")
        return float(np.mean(p == self.answers)) if len(self) else float("nan")


def arithmetic_items(n: int, seed: int = 0, n_options: int = 4) -> ItemSet:
    """`n` generated arithmetic questions with `n_options` numeric options (for a real LLM endpoint).

    Multiplications of two 2-digit numbers (``long`` when a distracting preamble is added) and "what does this
    Python expression print" items (``code``: an executor can check them by running ``eval``).
    """
    check_int("n", n, low=1)
    check_int("seed", seed, low=0)
    check_int("n_options", n_options, low=2, high=len(LETTERS))
    rng = np.random.default_rng(np.random.SeedSequence([seed, 2502_02533]))
    questions, options, answers, long, code = [], [], [], [], []
    for i in range(n):
        a, b = (int(x) for x in rng.integers(11, 99, size=2))
        is_code = bool(rng.random() < 0.25)
        is_long = bool(not is_code and rng.random() < 0.3)
        truth = a * b if not is_code else (a * b) % 97
        if is_code:
            q = f"#{i} What does this Python expression print? print(({a} * {b}) % 97)"
        else:
            q = f"#{i} What is {a} * {b}?"
            if is_long:
                q = f"#{i} A shop sells {a} boxes, each with {b} pens; {a + b} visitors came that day. How many pens were sold?"
        wrong: set[int] = set()
        while len(wrong) < n_options - 1:
            w = truth + int(rng.choice([-1, 1])) * int(rng.integers(1, 30))
            if w != truth and w >= 0:
                wrong.add(w)
        opts = [truth, *sorted(wrong)]
        order = rng.permutation(n_options)
        opts = [opts[j] for j in order]
        questions.append(q)
        options.append(tuple(str(o) for o in opts))
        answers.append(int(np.flatnonzero(order == 0)[0]))
        long.append(is_long)
        code.append(is_code)
    return ItemSet(
        np.arange(n), tuple(questions), tuple(options), np.array(answers), np.array(long), np.array(code)
    )
