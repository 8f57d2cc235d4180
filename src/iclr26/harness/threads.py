"""Run a block of small-model work on a fixed number of CPU threads, restoring the previous setting after.

Tiny models on a shared 2-core machine often run several times faster on one thread: each op is too small to
pay for the synchronisation of more. The harness runs every seed inside :func:`limited_threads` (see
``Experiment.threads``), so a seed computes on the same number of threads whatever ``--jobs`` is; trainers use
it too instead of setting the global thread count and forgetting to restore it.

Example
-------
>>> import torch
>>> before = torch.get_num_threads()
>>> with limited_threads(1):
...     torch.get_num_threads()
1
>>> torch.get_num_threads() == before
True
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import torch

__all__ = ["limited_threads"]


@contextlib.contextmanager
def limited_threads(n: int | None = 1, blas: bool = False) -> Iterator[None]:
    """Use `n` torch intra-op threads inside the block (None: leave them as they are).

    With ``blas=True`` the NumPy/SciPy BLAS and OpenMP pools are limited to `n` as well (via threadpoolctl).
    """
    if n is not None and (not isinstance(n, int) or n < 1):
        raise ValueError(f"n must be an int >= 1 or None, got {n!r}")
    before = torch.get_num_threads()
    if n is not None:
        torch.set_num_threads(n)
    try:
        if blas and n is not None:
            from threadpoolctl import threadpool_limits

            with threadpool_limits(n):
                yield
        else:
            yield
    finally:
        torch.set_num_threads(before)
