"""A rich progress bar that implements the harness's :class:`~iclr26.harness.progress.Reporter`."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
)


class RichReporter:
    """One bar per open progress task, nested bars indented; inner bars disappear when they finish."""

    def __init__(self, console: Console | None = None) -> None:
        self._progress = Progress(
            SpinnerColumn(),
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
        )
        self._prefix: dict[Any, str] = {}

    def __enter__(self) -> RichReporter:
        self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.stop()

    def start(self, description: str, total: int | None) -> object:
        prefix = "  " * len(self._prefix)
        handle = self._progress.add_task(prefix + description, total=total)
        self._prefix[handle] = prefix
        return handle

    def advance(self, handle: object, amount: float = 1.0, description: str | None = None) -> None:
        if description is None:
            self._progress.update(handle, advance=amount)
        else:
            self._progress.update(handle, advance=amount, description=self._prefix[handle] + description)

    def stop(self, handle: object) -> None:
        prefix = self._prefix.pop(handle, "")
        if prefix:
            self._progress.remove_task(handle)
