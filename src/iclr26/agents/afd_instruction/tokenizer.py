"""A fixed character-level tokenizer for the in-repo tiny GPT (printable ASCII; id 0 = padding / unknown).

Paper: "AFD-Instruction" (ICLR 2026, arXiv 2602.04916); the brief's reproduction tunes a character-level tiny GPT.
The vocabulary does not depend on any corpus, so a model pretrained on Python docstrings and the instruction
records share it.

>>> tok = CharTokenizer()
>>> tok.decode(tok.encode("<H>EVQL</H>\\tvirus\\n"))
'<H>EVQL</H>\\tvirus\\n'
"""

from __future__ import annotations

import string
from collections.abc import Iterable

__all__ = ["CharTokenizer"]


class CharTokenizer:
    """Characters of ``string.printable`` (less ``\\r``, ``\\x0b``, ``\\x0c``) as ids 1..97; anything else -> 0."""

    pad_token_id = 0

    def __init__(self) -> None:
        chars = [c for c in string.printable if c not in "\r\x0b\x0c"]
        self.vocab: tuple[str, ...] = ("\x00", *chars)
        self._index = {c: i for i, c in enumerate(self.vocab)}

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    def encode(self, text: str) -> list[int]:
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        return [self._index.get(c, 0) for c in text]

    def decode(self, ids: Iterable[int]) -> str:
        return "".join(self.vocab[int(i)] for i in ids)
