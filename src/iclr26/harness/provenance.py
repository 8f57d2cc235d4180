"""Where a result came from: package versions, git commit, device, times; and peak memory during a run."""

from __future__ import annotations

import hashlib
import platform
import subprocess
import threading
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path
from typing import Any

import psutil
import torch

import iclr26

__all__ = ["CacheUses", "PeakMemory", "blas_threads", "note_cache_use", "provenance", "utc_now"]


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@lru_cache(maxsize=1)
def git_commit() -> str | None:
    """The commit of the source tree the package runs from, with ``+dirty`` when it has changes; else None."""
    here = Path(__file__).resolve().parent
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True, timeout=5, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=here,
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return commit + ("+dirty" if dirty else "") if commit else None


LOCK_FILE = "constraints.txt"


@lru_cache(maxsize=1)
def lock_hash() -> str | None:
    """SHA-256 (first 16 hex digits) of the lock the environment was installed from, when running from a checkout."""
    path = Path(__file__).resolve().parents[3] / LOCK_FILE
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    except OSError:
        return None


def device_name(device: str, cuda_peak_mb: float | None) -> str:
    """The device the tensors ran on: the GPU's name only when the run allocated memory on it."""
    if device == "cuda" and cuda_peak_mb:
        return torch.cuda.get_device_name()
    suffix = " (cuda was requested, but no tensor was allocated on it)" if device == "cuda" else ""
    return f"cpu ({platform.machine()}){suffix}"


_CACHE_USES: list[tuple[str, str, bool]] | None = None


def note_cache_use(namespace: str, key: str, loaded: bool) -> None:
    """Record that a cached artifact was ``loaded`` from disk (or built) while a seed ran (see :class:`CacheUses`).

    A seed computed from a loaded entry depends on the code and the thread count that built the entry, which may
    predate the run; the seed's provenance says so, and ``iclr26 verify`` can tell a stale cache from a code change.
    """
    if _CACHE_USES is not None:
        _CACHE_USES.append((namespace, key, loaded))


class CacheUses:
    """Collects the cache entries loaded or built inside the block; :meth:`summary` goes into a seed's provenance.

    >>> with CacheUses() as uses:
    ...     note_cache_use("demo", "0123", loaded=True)
    >>> uses.summary()
    {'loaded': ['demo/0123'], 'built': []}
    """

    def __enter__(self) -> CacheUses:
        global _CACHE_USES
        self._outer, _CACHE_USES = _CACHE_USES, []
        self.uses: list[tuple[str, str, bool]] = _CACHE_USES
        return self

    def __exit__(self, *exc: object) -> None:
        global _CACHE_USES
        _CACHE_USES = self._outer
        if _CACHE_USES is not None:
            _CACHE_USES.extend(self.uses)

    def summary(self) -> dict[str, list[str]]:
        return {
            "loaded": sorted({f"{ns}/{key}" for ns, key, hit in self.uses if hit}),
            "built": sorted({f"{ns}/{key}" for ns, key, hit in self.uses if not hit}),
        }


def blas_threads() -> int | None:
    """The largest thread count among this process's BLAS/OpenMP pools (threadpoolctl); None if none is loaded."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:  # pragma: no cover - threadpoolctl comes with scikit-learn
        return None
    counts = [int(pool.get("num_threads", 0)) for pool in threadpool_info()]
    return max(counts) if counts else None


def provenance(
    device: str,
    started: str,
    finished: str,
    cuda_peak_mb: float | None = None,
    threads: int | None = None,
    *,
    blas: int | None = None,
    cache: dict[str, list[str]] | None = None,
) -> dict[str, Any]:
    """Where a seed came from; `threads` is the torch thread count the seed ran on (default: this process's),
    `blas` the NumPy/SciPy BLAS pool's, `cache` the cached artifacts it loaded and built (:class:`CacheUses`)."""
    extra: dict[str, Any] = {}
    if blas is not None:
        extra["blas_threads"] = blas
    if cache is not None:
        extra["cache"] = cache
    return {
        "iclr26": iclr26.__version__,
        "git": git_commit(),
        "lock": lock_hash(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "device": device_name(device, cuda_peak_mb),
        "threads": threads or torch.get_num_threads(),
        **extra,
        "started": started,
        "finished": finished,
    }


class PeakMemory:
    """Samples this process's resident memory in a background thread; ``peak_mb`` is the maximum seen.

    Also reports the CUDA allocator's peak when the run used a GPU.
    """

    def __init__(self, interval_s: float = 0.02) -> None:
        self._interval = interval_s
        self._proc = psutil.Process()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self.peak_bytes = 0

    def _sample(self) -> None:
        while not self._stop.is_set():
            self.peak_bytes = max(self.peak_bytes, self._proc.memory_info().rss)
            self._stop.wait(self._interval)

    def __enter__(self) -> PeakMemory:
        self.peak_bytes = self._proc.memory_info().rss
        if torch.cuda.is_available():
            torch.cuda.reset_peak_memory_stats()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak_bytes = max(self.peak_bytes, self._proc.memory_info().rss)

    @property
    def peak_mb(self) -> float:
        return round(self.peak_bytes / 2**20, 1)

    @staticmethod
    def cuda_peak_mb() -> float | None:
        if not torch.cuda.is_available() or not torch.cuda.is_initialized():
            return None
        return round(torch.cuda.max_memory_allocated() / 2**20, 1)
