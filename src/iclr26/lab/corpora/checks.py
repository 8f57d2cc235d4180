"""Argument checks shared by the corpus modules (integers with a lower bound, ``max_chars``)."""

from __future__ import annotations

from iclr26.checks import check_int


def check_max_chars(max_chars: int | None) -> None:
    if max_chars is not None:
        check_int("max_chars (or None)", max_chars, low=1)
