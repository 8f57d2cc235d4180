"""The task corpus of the ELM reproduction: two-operand arithmetic in one fixed phrasing, character-tokenised.

Registered as ``"elm-arithmetic"`` in :mod:`iclr26.lab.corpora` when this module is imported, so a
:class:`~iclr26.lab.tinylm.TinyLMConfig` can name it. It is the shared ``"arithmetic"`` generator with the
``"qa"`` phrasing only (``Q: 37+45= A: 82``); the dense "task-tuned" model of the reproduction is trained on it
with the character tokenizer, so every number is spelled digit by digit in one way.

Why not the shared corpus as it is: with its four phrasings and a 400-token byte-level BPE, one number has
several spellings (``" 51"`` is one token, ``"41+15"`` becomes ``41 + 1 5``, ``" 62"`` may be ``" 6" "2"``), and
the 300-step dense model of the earlier quick run learnt the format but no arithmetic (it answered ``10x`` to
almost every problem: 1 of 96 right).
"""

from __future__ import annotations

from iclr26.lab.corpora import list_corpora, register_corpus
from iclr26.lab.corpora.arithmetic import arithmetic_text

__all__ = ["CORPUS", "MAX_OPERAND", "OPS", "elm_arithmetic_text"]

CORPUS = "elm-arithmetic"
MAX_OPERAND = 99
OPS = ("+", "-")


def elm_arithmetic_text(max_chars: int | None = None, seed: int = 0) -> str:
    """Arithmetic problems ``Q: a+b= A: c`` / ``Q: a-b= A: c`` (operands 0..99, never negative), one a line.

    Example
    -------
    >>> elm_arithmetic_text(max_chars=40).splitlines()[0].startswith("Q: ")
    True
    """
    return arithmetic_text(max_chars=max_chars, seed=seed, max_operand=MAX_OPERAND, ops=OPS, styles=("qa",))


if CORPUS not in list_corpora():
    register_corpus(CORPUS)(elm_arithmetic_text)
