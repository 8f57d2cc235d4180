"""Shared pieces of online-decision experiments: the ask/tell protocol, a many-seed runner, curve bands.

Online algorithms (bandits, bidders, pacing rules) share one shape: the environment asks the algorithm for an
action at round t (``select(t)``), then tells it what happened (``receive(t, ...)``), possibly later than
the round it belongs to (delayed feedback). Experiments run an algorithm over many independent seeds and
compare regret or cost curves with intervals; :func:`run_many` runs those seeds in parallel processes and
:func:`curve_band` (from :mod:`iclr26.harness.figures`) summarises them.

Example
-------
>>> import numpy as np
>>> from iclr26.lab.online import curve_band, run_many
>>> curves = np.array(run_many(_cumsum_of_uniforms, seeds=range(4), workers=1))
>>> mean, lo, hi = curve_band(curves)
>>> bool(np.all(lo <= mean) and np.all(mean <= hi))
True
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Protocol, TypeVar, runtime_checkable

import numpy as np

from iclr26.checks import check_int
from iclr26.harness.figures import curve_band  # re-exported: it lives with the other figure helpers
from iclr26.harness.progress import task

__all__ = ["AskTell", "curve_band", "log_spaced_rounds", "run_many"]

R = TypeVar("R")


@runtime_checkable
class AskTell(Protocol):
    """An online algorithm: ``select(t)`` chooses the round-t action, ``receive(t, ...)`` takes feedback.

    The arguments of ``receive`` are the paper's: a bandit gets ``(t, arm_id, pull_t, y)`` (the round the
    reward arrives, the arm, the round it was pulled, the reward); a bidder gets the auction's outcome.
    """

    def select(self, t: int) -> Any: ...

    def receive(self, t: int, *feedback: Any) -> None: ...


def _cumsum_of_uniforms(seed: int) -> np.ndarray:
    return np.cumsum(np.random.default_rng(seed).uniform(size=5))


def run_many(
    fn: Callable[[int], R],
    seeds: Iterable[int],
    workers: int | None = None,
    description: str = "seeds",
) -> list[R]:
    """``[fn(seed) for seed in seeds]``, computed in `workers` processes, returned in seed order.

    Parameters
    ----------
    fn : a picklable (module-level) function of one seed; it must draw all randomness from that seed.
    seeds : the seeds.
    workers : processes to use; None means one per available CPU (at most one per seed); 1 runs in this
        process (no pickling, easiest to debug).
    description : label of the progress bar.
    """
    seeds = list(seeds)
    if workers is None:
        workers = min(len(seeds), len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1)
    check_int("workers (or None)", workers, low=1)
    results: list[Any] = [None] * len(seeds)
    with task(description, total=len(seeds)) as bar:
        if workers == 1 or len(seeds) <= 1:
            for i, s in enumerate(seeds):
                results[i] = fn(s)
                bar.advance()
            return results
        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
        with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
            futures = {pool.submit(fn, s): i for i, s in enumerate(seeds)}
            for future in futures:  # in submission order; each result is stored as it is awaited
                results[futures[future]] = future.result()
                bar.advance()
    return results


def log_spaced_rounds(T: int, n_points: int = 100) -> np.ndarray:
    """Distinct rounds 1..T, roughly log-spaced and always including T, to store a long curve compactly."""
    check_int("T", T, low=1)
    check_int("n_points", n_points, low=2)
    return np.unique(np.round(np.geomspace(1, T, n_points)).astype(int))
