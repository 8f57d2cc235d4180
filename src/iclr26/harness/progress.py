"""Progress reporting that experiments use instead of printing.

An experiment wraps its long loops in :func:`track` (or opens a :func:`task`). Whoever runs the experiment
decides where progress goes by installing a reporter with :func:`reporting`: the CLI installs a rich progress
bar, tests and Ray workers install nothing, and then these calls cost next to nothing.

Example
-------
>>> from iclr26.harness.progress import track
>>> total = sum(step for step in track(range(3), description="training"))
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from typing import Protocol, TypeVar

T = TypeVar("T")


class Reporter(Protocol):
    def start(self, description: str, total: int | None) -> object: ...
    def advance(self, handle: object, amount: float = 1.0, description: str | None = None) -> None: ...
    def stop(self, handle: object) -> None: ...


_REPORTER: ContextVar[Reporter | None] = ContextVar("iclr26_progress_reporter", default=None)


class Task:
    """A handle on one progress bar; a no-op when no reporter is installed."""

    def __init__(self, description: str, total: int | None) -> None:
        self._reporter = _REPORTER.get()
        self._handle = self._reporter.start(description, total) if self._reporter else None

    def advance(self, amount: float = 1.0, description: str | None = None) -> None:
        if self._reporter is not None:
            self._reporter.advance(self._handle, amount, description)

    def close(self) -> None:
        if self._reporter is not None:
            self._reporter.stop(self._handle)
            self._reporter = None


@contextlib.contextmanager
def task(description: str, total: int | None = None) -> Iterator[Task]:
    """Open a progress bar for a block of work; call ``.advance()`` inside it."""
    handle = Task(description, total)
    try:
        yield handle
    finally:
        handle.close()


def track(iterable: Iterable[T], description: str = "", total: int | None = None) -> Iterator[T]:
    """Yield from `iterable`, advancing a progress bar once per item."""
    if total is None and hasattr(iterable, "__len__"):
        total = len(iterable)  # type: ignore[arg-type]
    with task(description, total) as bar:
        for item in iterable:
            yield item
            bar.advance()


@contextlib.contextmanager
def reporting(reporter: Reporter | None) -> Iterator[None]:
    """Install `reporter` for the duration of the block (None silences progress)."""
    token = _REPORTER.set(reporter)
    try:
        yield
    finally:
        _REPORTER.reset(token)
