"""Executors run (paper, seed) tasks and yield each finished seed's record; the caller stores it.

``LocalExecutor`` runs in this process, one seed after another. ``PoolExecutor`` runs them in a pool of local
worker processes (``iclr26 reproduce --jobs N``), each with its share of the CPU threads; a seed's result does
not depend on which worker ran it, since every task is seeded on its own. ``RayExecutor`` sends each task to a Ray
cluster (``ray.init(address=...)``; a local instance when no address is given) and yields records as they
complete, so the store fills up in completion order and an interrupted run keeps every finished seed.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import torch

from iclr26.checks import check_int
from iclr26.harness.progress import task as progress_task
from iclr26.harness.provenance import CacheUses, PeakMemory, blas_threads, provenance, utc_now
from iclr26.harness.registry import get_experiment
from iclr26.harness.seeding import seed_everything

__all__ = [
    "Executor",
    "LocalExecutor",
    "PoolExecutor",
    "RayExecutor",
    "SeedTask",
    "default_jobs",
    "run_seed_task",
]


@dataclass(frozen=True)
class SeedTask:
    """One seed to run. ``overrides`` are config changes for this run (``Experiment.with_config``), as
    ``(field, value)`` pairs, so that worker processes and Ray workers run the same config as the driver."""

    slug: str
    budget: str
    seed: int
    device: str
    overrides: tuple[tuple[str, Any], ...] = ()


def run_seed_task(task: SeedTask) -> dict[str, Any]:
    """Run one seed of one experiment and return the full record the store writes."""
    experiment = get_experiment(task.slug)
    if task.overrides:
        experiment = experiment.with_config(task.budget, **dict(task.overrides))
    seed_everything(task.seed)
    started = utc_now()
    t0 = time.perf_counter()
    limit = experiment.threads_for(task.budget)  # None: the process's own thread counts
    threads = limit or torch.get_num_threads()
    blas = limit if limit and experiment.blas_threads else blas_threads()
    with PeakMemory() as mem, CacheUses() as cache:
        out = experiment.run_seed(task.budget, task.seed, task.device)
    wall = time.perf_counter() - t0
    cuda_peak = PeakMemory.cuda_peak_mb()
    return {
        "slug": task.slug,
        "budget": task.budget,
        "seed": task.seed,
        "config": experiment.config_dict(task.budget),
        **out,
        "wall_s": round(wall, 3),
        "peak_rss_mb": mem.peak_mb,
        "peak_cuda_mb": cuda_peak,
        "provenance": provenance(
            task.device, started, utc_now(), cuda_peak, threads, blas=blas, cache=cache.summary()
        ),
    }


class Executor(Protocol):
    def run(self, tasks: Sequence[SeedTask]) -> Iterator[dict[str, Any]]: ...


class LocalExecutor:
    """Runs tasks one by one in this process, with a progress bar over seeds."""

    def run(self, tasks: Sequence[SeedTask]) -> Iterator[dict[str, Any]]:
        if not tasks:
            return
        with progress_task("seeds", total=len(tasks)) as bar:
            for t in tasks:
                bar.advance(0, description=f"{t.slug} seed {t.seed}")
                yield run_seed_task(t)
                bar.advance(1)


def default_jobs() -> int:
    """As many workers as there are cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


_THREAD_VARS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def _init_worker(threads: int) -> None:
    import torch

    torch.set_num_threads(threads)


class PoolExecutor:
    """Runs tasks in `jobs` worker processes (spawned, so no lock is inherited), `threads` CPU threads each.

    Records are yielded in completion order as each seed finishes; an interrupt cancels the seeds not yet
    started and stops the workers, and every seed already yielded has been stored by the caller.
    """

    def __init__(self, jobs: int, threads: int | None = None) -> None:
        check_int("jobs", jobs, low=1)
        self.jobs = jobs
        self.threads = threads if threads is not None else max(1, default_jobs() // jobs)
        check_int("threads", self.threads, low=1)

    def run(self, tasks: Sequence[SeedTask]) -> Iterator[dict[str, Any]]:
        if not tasks:
            return
        import multiprocessing as mp
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

        saved = {k: os.environ.get(k) for k in _THREAD_VARS}
        os.environ.update({k: str(self.threads) for k in _THREAD_VARS})
        pool = ProcessPoolExecutor(
            max_workers=min(self.jobs, len(tasks)),
            mp_context=mp.get_context("spawn"),
            initializer=_init_worker,
            initargs=(self.threads,),
        )
        try:
            with progress_task(f"seeds ({self.jobs} workers)", total=len(tasks)) as bar:
                pending = {pool.submit(run_seed_task, t) for t in tasks}
                while pending:
                    done, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for fut in done:
                        yield fut.result()
                        bar.advance(1)
        finally:
            procs = list((getattr(pool, "_processes", None) or {}).values())
            pool.shutdown(wait=False, cancel_futures=True)
            for proc in procs:  # stop the seeds still running (an interrupt, an error in another seed)
                if proc.is_alive():
                    proc.terminate()
            for proc in procs:
                proc.join(timeout=5)
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v


class RayExecutor:
    """Runs each (paper, seed) task as a Ray task; ``address=None`` starts a local Ray instance.

    Parameters
    ----------
    address : a Ray cluster address (``"auto"``, ``"ray://host:10001"``) or None for a local instance.
    num_cpus : CPUs for a local instance (ignored when connecting to a cluster).
    cpus_per_task : CPUs reserved by each seed task.
    gpus_per_task : GPUs reserved by each seed task (use with ``device="cuda"``).
    """

    def __init__(
        self,
        address: str | None = None,
        num_cpus: int | None = None,
        cpus_per_task: float = 1.0,
        gpus_per_task: float = 0.0,
    ) -> None:
        try:
            import ray  # noqa: F401
        except ImportError as err:
            raise ImportError("the Ray executor needs the [ray] extra: pip install 'iclr26[ray]'") from err
        if cpus_per_task <= 0:
            raise ValueError(f"cpus_per_task must be > 0, got {cpus_per_task}")
        self.address = address
        self.num_cpus = num_cpus
        self.cpus_per_task = cpus_per_task
        self.gpus_per_task = gpus_per_task
        self._started_local = False

    @staticmethod
    def check_reachable(address: str, timeout_s: float = 10.0) -> None:
        """Fail fast, with a clear error, when a ``host:port`` cluster address does not answer (``ray.init``
        itself would wait for minutes)."""
        import socket

        if address in ("auto", "local"):
            return
        hostport = address.split("://", 1)[-1].rstrip("/")
        host, sep, port = hostport.rpartition(":")
        if not sep or not port.isdigit() or not host:
            raise ValueError(f"--ray-address must be host:port, ray://host:port or auto, got {address!r}")
        try:
            with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s):
                pass
        except OSError as err:
            raise ConnectionError(
                f"no Ray cluster answers at {address!r} within {timeout_s:g} s ({err.strerror or err})"
            ) from None

    def _init(self) -> None:
        import ray

        if ray.is_initialized():
            return
        if self.address:
            self.check_reachable(self.address)
        kwargs: dict[str, Any] = {
            "ignore_reinit_error": True,
            "log_to_driver": False,
            "include_dashboard": False,
        }
        if self.address:
            ray.init(address=self.address, **kwargs)
        else:
            ray.init(num_cpus=self.num_cpus, **kwargs)
            self._started_local = True

    def run(self, tasks: Sequence[SeedTask]) -> Iterator[dict[str, Any]]:
        if not tasks:
            return
        import ray

        self._init()
        remote = ray.remote(num_cpus=self.cpus_per_task, num_gpus=self.gpus_per_task)(run_seed_task)
        pending = [remote.remote(t) for t in tasks]
        with progress_task("seeds (ray)", total=len(tasks)) as bar:
            try:
                while pending:
                    done, pending = ray.wait(pending, num_returns=1)
                    for ref in done:
                        yield ray.get(ref)
                        bar.advance(1)
            finally:
                for ref in pending:
                    ray.cancel(ref)
                if self._started_local:  # a local instance we started goes with us, agents included
                    ray.shutdown()
                    self._started_local = False

    @staticmethod
    def shutdown() -> None:
        import ray

        if ray.is_initialized():
            ray.shutdown()
