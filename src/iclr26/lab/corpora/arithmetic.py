"""Arithmetic: a generated corpus of two-operand problems with checkable answers, in several phrasings.

The same seed always gives the same problems (``Q: 37+45= A: 82`` and other wordings of the same problem).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from iclr26.checks import check_choice, check_int
from iclr26.lab.corpora.checks import check_max_chars

__all__ = [
    "ARITHMETIC_STYLES",
    "ArithmeticProblem",
    "arithmetic_problems",
    "arithmetic_text",
]

_OP_WORDS = {
    "+": ("plus", "Add {a} and {b}. The sum is"),
    "-": ("minus", "Subtract {b} from {a}. The difference is"),
    "*": ("times", "Multiply {a} by {b}. The product is"),
}

#: Names of the phrasings of one arithmetic problem (see :meth:`ArithmeticProblem.prompt`).
ARITHMETIC_STYLES = ("qa", "question", "equation", "instruction")


@dataclass(frozen=True)
class ArithmeticProblem:
    """One two-operand arithmetic problem with a checkable integer answer.

    Parameters
    ----------
    a, b : int
        Operands.
    op : {"+", "-", "*"}
        Operation.

    Example
    -------
    >>> p = ArithmeticProblem(37, 45, "+")
    >>> p.text("qa")
    'Q: 37+45= A: 82'
    >>> p.prompt("question"), p.answer
    ('What is 37 plus 45? Answer:', 82)
    """

    a: int
    b: int
    op: str

    def __post_init__(self) -> None:
        check_choice("op", self.op, _OP_WORDS)

    @property
    def answer(self) -> int:
        """The correct result."""
        return {"+": self.a + self.b, "-": self.a - self.b, "*": self.a * self.b}[self.op]

    def prompt(self, style: str = "qa") -> str:
        """The problem in one of :data:`ARITHMETIC_STYLES`, ending just before the answer."""
        word, instruction = _OP_WORDS[self.op]
        if style == "qa":
            return f"Q: {self.a}{self.op}{self.b}= A:"
        if style == "question":
            return f"What is {self.a} {word} {self.b}? Answer:"
        if style == "equation":
            return f"{self.a} {self.op} {self.b} ="
        if style == "instruction":
            return instruction.format(a=self.a, b=self.b)
        raise ValueError(f"style must be one of {ARITHMETIC_STYLES}, got {style!r}")

    def text(self, style: str = "qa") -> str:
        """Prompt followed by a space and the answer: one line of the corpus."""
        suffix = "." if style == "instruction" else ""
        return f"{self.prompt(style)} {self.answer}{suffix}"


def _check_ops(ops: Sequence[str]) -> tuple[str, ...]:
    ops = tuple(ops)
    if not ops or any(op not in _OP_WORDS for op in ops):
        raise ValueError(f"ops must be a non-empty subset of {sorted(_OP_WORDS)}, got {ops!r}")
    return ops


def arithmetic_problems(
    n: int, seed: int = 0, max_operand: int = 99, ops: Sequence[str] = ("+", "-")
) -> list[ArithmeticProblem]:
    """``n`` random problems with operands in ``[0, max_operand]``; subtraction never goes negative.

    Parameters
    ----------
    n : int
        Number of problems.
    seed : int
        Seed; the same arguments always give the same list.
    max_operand : int
        Largest operand.
    ops : sequence of {"+", "-", "*"}
        Operations to draw from, uniformly.

    Returns
    -------
    list of ArithmeticProblem

    Example
    -------
    >>> arithmetic_problems(3, seed=1) == arithmetic_problems(3, seed=1)
    True
    """
    check_int("n", n, low=0)
    check_int("max_operand", max_operand, low=1)
    ops = _check_ops(ops)
    rng = random.Random(seed)
    return [_draw_problem(rng, max_operand, ops) for _ in range(n)]


def _draw_problem(rng: random.Random, max_operand: int, ops: tuple[str, ...]) -> ArithmeticProblem:
    op = ops[rng.randrange(len(ops))]
    a, b = rng.randint(0, max_operand), rng.randint(0, max_operand)
    if op == "-" and a < b:
        a, b = b, a
    return ArithmeticProblem(a, b, op)


def arithmetic_text(
    max_chars: int | None = None,
    n_problems: int = 5000,
    seed: int = 0,
    max_operand: int = 99,
    ops: Sequence[str] = ("+", "-"),
    styles: Sequence[str] = ARITHMETIC_STYLES,
) -> str:
    """A corpus of arithmetic problems with answers, one per line, each in a randomly chosen phrasing.

    Parameters
    ----------
    max_chars : int or None
        If given, generate problems until the text would exceed ``max_chars`` and keep only whole lines
        (``n_problems`` is then ignored); otherwise generate ``n_problems`` lines.
    n_problems : int
        Number of lines when ``max_chars`` is None.
    seed : int
        Seed of the problems and phrasings.
    max_operand : int
        Largest operand.
    ops : sequence of {"+", "-", "*"}
        Operations.
    styles : sequence of str
        Phrasings to draw from, a subset of :data:`ARITHMETIC_STYLES`.

    Returns
    -------
    str

    Example
    -------
    >>> arithmetic_text(n_problems=2, seed=0, styles=("qa",)).splitlines()[0].startswith("Q: ")
    True
    """
    check_max_chars(max_chars)
    styles = tuple(styles)
    if not styles or any(s not in ARITHMETIC_STYLES for s in styles):
        raise ValueError(f"styles must be a non-empty subset of {ARITHMETIC_STYLES}, got {styles!r}")
    check_int("n_problems", n_problems, low=0)
    check_int("max_operand", max_operand, low=1)
    ops = _check_ops(ops)
    # The problems use the same stream as arithmetic_problems(n, seed), so the first n lines hold exactly
    # those problems; the phrasings come from a second, independent stream.
    problem_rng = random.Random(seed)
    style_rng = random.Random(f"arithmetic-styles-{seed}")
    lines: list[str] = []
    total = 0
    while max_chars is not None or len(lines) < n_problems:
        problem = _draw_problem(problem_rng, max_operand, ops)
        line = problem.text(styles[style_rng.randrange(len(styles))]) + "\n"
        if max_chars is not None and total + len(line) > max_chars:
            break
        lines.append(line)
        total += len(line)
    return "".join(lines)
