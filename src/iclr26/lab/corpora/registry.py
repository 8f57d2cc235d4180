"""The corpus registry: register, list and build corpora by name, and the corpora shipped with it.

Importing this module registers ``"stdlib"``, ``"stdlib-docstrings"``, ``"arithmetic"`` and
``"worded-arithmetic"``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable

from iclr26.lab.corpora.arithmetic import arithmetic_text
from iclr26.lab.corpora.stdlib import stdlib_text
from iclr26.lab.corpora.worded import worded_arithmetic_text

__all__ = ["UnknownCorpusError", "get_corpus", "list_corpora", "register_corpus"]

_CORPORA: dict[str, Callable[..., str]] = {}


class UnknownCorpusError(KeyError, ValueError):
    """Raised by :func:`get_corpus` for an unregistered name; catchable as KeyError or as ValueError."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def _qualified(fn: Callable[..., str]) -> str:
    return f"{getattr(fn, '__module__', '')}.{getattr(fn, '__qualname__', repr(fn))}"


def register_corpus(name: str) -> Callable[[Callable[..., str]], Callable[..., str]]:
    """Decorator that registers a corpus function under ``name``.

    The function must accept a keyword ``max_chars: int | None`` (the tiny-LM trainer passes it) and return
    a ``str``; other keyword arguments are passed through by :func:`get_corpus`.

    Example
    -------
    A task module registers its corpus at import time; then ``get_corpus("my-task", max_chars=1000)``
    and ``TinyLMConfig(corpus="my-task")`` find it::

        @register_corpus("my-task")
        def my_task(max_chars: int | None = None, seed: int = 0) -> str:
            return make_lines(seed)[:max_chars]
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"name must be a non-empty str, got {name!r}")

    def decorator(fn: Callable[..., str]) -> Callable[..., str]:
        previous = _CORPORA.get(name)
        if previous is not None and _qualified(previous) != _qualified(fn):  # a module reload is fine
            raise ValueError(f"corpus name {name!r} is already registered; pick another name")
        if "max_chars" not in inspect.signature(fn).parameters:
            raise ValueError(f"corpus function for {name!r} must accept a max_chars keyword")
        _CORPORA[name] = fn
        return fn

    return decorator


def list_corpora() -> list[str]:
    """Sorted names of the registered corpora.

    Example
    -------
    >>> {"arithmetic", "stdlib", "stdlib-docstrings"} <= set(list_corpora())
    True
    """
    return sorted(_CORPORA)


def get_corpus(name: str, **kwargs: object) -> str:
    """Build the registered corpus ``name`` with keyword arguments ``kwargs``.

    Parameters
    ----------
    name : str
        One of :func:`list_corpora`.
    **kwargs
        Passed to the corpus function (all accept ``max_chars``).

    Returns
    -------
    str

    Raises
    ------
    UnknownCorpusError
        (a KeyError and a ValueError) if ``name`` is not registered; the message lists the valid names.
    TypeError
        If a keyword is not accepted by that corpus; the message lists the accepted ones.

    Example
    -------
    >>> get_corpus("arithmetic", max_chars=40, styles=("qa",)).count("\\n") >= 2
    True
    """
    if name not in _CORPORA:
        raise UnknownCorpusError(f"unknown corpus {name!r}; valid names: {list_corpora()}")
    fn = _CORPORA[name]
    accepted = list(inspect.signature(fn).parameters)
    unknown = sorted(set(kwargs) - set(accepted))
    if unknown:
        raise TypeError(f"corpus {name!r} does not accept {unknown}; accepted keywords: {accepted}")
    return fn(**kwargs)


# ---------------------------------------------------------------------------------------------------------
# Shipped corpora
# ---------------------------------------------------------------------------------------------------------


@register_corpus("stdlib")
def _stdlib_corpus(max_chars: int | None = None) -> str:
    return stdlib_text(max_chars=max_chars)


@register_corpus("stdlib-docstrings")
def _stdlib_docstrings_corpus(max_chars: int | None = None) -> str:
    return stdlib_text(max_chars=max_chars, docstrings_only=True)


register_corpus("arithmetic")(arithmetic_text)
register_corpus("worded-arithmetic")(worded_arithmetic_text)
