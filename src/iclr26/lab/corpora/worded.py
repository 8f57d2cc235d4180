"""Worded arithmetic: multi-step problems whose every step can be written in several equivalent ways.

A problem such as ``12+7-5`` is solved left to right in one line per problem, each step in one of
:data:`STEP_FORMS`, the steps joined by one of a few connectors, and the line always ends with the
checkable marker ``Answer: N``::

    Q: 12+7-5=? A: 12+7=19, then 19-5=14. Answer: 14
    Q: 12+7-5=? A: 7+12=19; 19 minus 5 is 14. Answer: 14

Both lines are correct; they differ only in wording. That is what speculative decoders with lenient
verification (FLy) and semantic-equivalence metrics need: correctness is the final ``N``
(:func:`parse_answer`), wording is free. :func:`worded_arithmetic_text` mixes such lines with paragraphs of
standard-library docstrings (unscored natural-ish text), so a model trained on it also has an out-of-domain
register.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from iclr26.checks import check_float, check_int
from iclr26.lab.corpora.checks import check_max_chars
from iclr26.lab.corpora.stdlib import stdlib_text

__all__ = [
    "STEP_FORMS",
    "WordedProblem",
    "parse_answer",
    "worded_arithmetic_text",
    "worded_problems",
]

#: Surface forms of one step ``x op y = r``: plain equation, operands swapped (for ``-``: result first),
#: in words, and "gives".
STEP_FORMS = ("equation", "swapped", "words", "gives")
_CONNECTORS = (", ", ", then ", "; ")
_OPS = {"+": ("plus", lambda x, y: x + y), "-": ("minus", lambda x, y: x - y)}
_ANSWER = re.compile(r"Answer:\s*(-?\d+)")


def _step_text(x: int, op: str, y: int, r: int, form: str) -> str:
    if form == "equation":
        return f"{x}{op}{y}={r}"
    if form == "swapped":
        return f"{y}{op}{x}={r}" if op == "+" else f"{r}={x}{op}{y}"
    if form == "words":
        return f"{x} {_OPS[op][0]} {y} is {r}"
    if form == "gives":
        return f"{x}{op}{y} gives {r}"
    raise ValueError(f"form must be one of {STEP_FORMS}, got {form!r}")


@dataclass(frozen=True)
class WordedProblem:
    """A left-to-right chain of ``+``/``-`` on small non-negative integers with a checkable answer.

    Example
    -------
    >>> p = WordedProblem((12, 7, 5), ("+", "-"))
    >>> p.prompt(), p.answer
    ('Q: 12+7-5=? A:', 14)
    >>> p.solution(("equation", "words"), (", then ",))
    ' 12+7=19, then 19 minus 5 is 14. Answer: 14'
    """

    operands: tuple[int, ...]
    ops: tuple[str, ...]

    def __post_init__(self) -> None:
        if len(self.operands) != len(self.ops) + 1 or not self.ops:
            raise ValueError("a problem needs len(operands) == len(ops) + 1 >= 2")
        if any(op not in _OPS for op in self.ops):
            raise ValueError(f"ops must be drawn from {sorted(_OPS)}, got {self.ops!r}")

    def partials(self) -> list[int]:
        """The running results after each step (the last one is the answer)."""
        value, out = self.operands[0], []
        for op, y in zip(self.ops, self.operands[1:]):
            value = _OPS[op][1](value, y)
            out.append(value)
        return out

    @property
    def answer(self) -> int:
        """The correct final result."""
        return self.partials()[-1]

    def prompt(self) -> str:
        """``Q: <expression>=? A:``, the text a model continues."""
        expr = str(self.operands[0]) + "".join(f"{op}{y}" for op, y in zip(self.ops, self.operands[1:]))
        return f"Q: {expr}=? A:"

    def solution(self, forms: tuple[str, ...], connectors: tuple[str, ...] = (", ",)) -> str:
        """The worked answer, one form per step and one connector between consecutive steps."""
        if len(forms) != len(self.ops):
            raise ValueError(f"forms must give one form per step ({len(self.ops)}), got {len(forms)}")
        steps, left = [], self.operands[0]
        for op, y, r, form in zip(self.ops, self.operands[1:], self.partials(), forms):
            steps.append(_step_text(left, op, y, r, form))
            left = r
        body = steps[0] + "".join(connectors[i % len(connectors)] + s for i, s in enumerate(steps[1:]))
        return f" {body}. Answer: {self.answer}"

    def text(self, rng: random.Random) -> str:
        """Prompt plus a solution with forms and connectors drawn from ``rng``: one corpus line."""
        forms = tuple(STEP_FORMS[rng.randrange(len(STEP_FORMS))] for _ in self.ops)
        connectors = tuple(_CONNECTORS[rng.randrange(len(_CONNECTORS))] for _ in self.ops)
        return self.prompt() + self.solution(forms, connectors)


def parse_answer(text: str) -> int | None:
    """The integer after the first ``Answer:`` in ``text``, or None when there is none.

    >>> parse_answer(" 3+4=7. Answer: 7\\nQ: ..."), parse_answer("no answer")
    (7, None)
    """
    m = _ANSWER.search(text)
    return int(m.group(1)) if m else None


def _draw(rng: random.Random, max_operand: int, max_steps: int) -> WordedProblem:
    n_steps = rng.randint(1, max_steps)
    value = rng.randint(0, max_operand)
    operands, ops = [value], []
    for _ in range(n_steps):
        op = "+-"[rng.randrange(2)]
        y = rng.randint(0, max_operand if op == "+" else value)  # never negative
        value = value + y if op == "+" else value - y
        operands.append(y)
        ops.append(op)
    return WordedProblem(tuple(operands), tuple(ops))


def worded_problems(n: int, seed: int = 0, max_operand: int = 50, max_steps: int = 2) -> list[WordedProblem]:
    """``n`` random problems (1 to ``max_steps`` steps, operands in [0, max_operand]); deterministic in ``seed``.

    >>> worded_problems(2, seed=3) == worded_problems(2, seed=3)
    True
    """
    check_int("n", n, low=0)
    check_int("max_operand", max_operand, low=1)
    check_int("max_steps", max_steps, low=1)
    rng = random.Random(f"worded-{seed}")
    return [_draw(rng, max_operand, max_steps) for _ in range(n)]


def worded_arithmetic_text(
    max_chars: int | None = None,
    n_problems: int = 5000,
    seed: int = 0,
    max_operand: int = 50,
    max_steps: int = 2,
    text_fraction: float = 0.15,
) -> str:
    """Worded-arithmetic lines with roughly ``text_fraction`` of the characters from stdlib docstrings.

    Lines are generated until ``max_chars`` would be exceeded (only whole lines are kept), or ``n_problems``
    problems when ``max_chars`` is None. After each problem line, with probability chosen so that the text
    share is about ``text_fraction``, a docstring paragraph (the next one of the stdlib docstrings) follows.

    >>> text = worded_arithmetic_text(max_chars=2_000, text_fraction=0.0)
    >>> all(parse_answer(line) is not None for line in text.splitlines())
    True
    """
    check_max_chars(max_chars)
    check_int("n_problems", n_problems, low=0)
    check_float("text_fraction", text_fraction, 0.0, 1.0, high_open=True)
    problems = random.Random(f"worded-{seed}")
    wording = random.Random(f"worded-forms-{seed}")
    mixing = random.Random(f"worded-mix-{seed}")
    paragraphs: list[str] = []
    if text_fraction > 0:
        budget = int(text_fraction * (max_chars or 40 * n_problems)) + 10_000
        paragraphs = [p.strip() for p in stdlib_text(max_chars=budget, docstrings_only=True).split("\n\n")]
        paragraphs = [p for p in paragraphs if 40 <= len(p) <= 400 and "Answer:" not in p]
    p_text = 0.0
    if paragraphs:  # chance of a paragraph after a line, so that paragraphs hold ~text_fraction of the chars
        mean_paragraph = sum(len(p) + 1 for p in paragraphs) / len(paragraphs)
        p_text = min(1.0, text_fraction / (1 - text_fraction) * 40 / mean_paragraph)  # ~40 chars a line
    lines: list[str] = []
    total, next_paragraph = 0, 0
    while max_chars is not None or len(lines) < n_problems:
        chunk = _draw(problems, max_operand, max_steps).text(wording) + "\n"
        if paragraphs and mixing.random() < p_text:
            chunk += paragraphs[next_paragraph % len(paragraphs)] + "\n"
            next_paragraph += 1
        if max_chars is not None and total + len(chunk) > max_chars:
            break
        lines.append(chunk)
        total += len(chunk)
    return "".join(lines)
