"""Argument checks shared by the corpus modules (integers with a lower bound, ``max_chars``)."""

from __future__ import annotations


def _check_int(value: object, name: str, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be an int >= {minimum}, got {value!r}")


def _check_max_chars(max_chars: int | None) -> None:
    if max_chars is not None:
        _check_int(max_chars, "max_chars (or None)", 1)
