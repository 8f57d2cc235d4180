"""Executors run (paper, seed) tasks and yield each finished seed's record; the caller stores it.

``LocalExecutor`` runs in this process, one seed after another. ``RayExecutor`` sends each task to a Ray
cluster (``ray.init(address=...)``; a local instance when no address is given) and yields records as they
complete, so the store fills up in completion order and an interrupted run keeps every finished seed.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from iclr26.harness.progress import task as progress_task
from iclr26.harness.provenance import PeakMemory, provenance, utc_now
from iclr26.harness.registry import get_experiment
from iclr26.harness.seeding import seed_everything

__all__ = ["Executor", "LocalExecutor", "RayExecutor", "SeedTask", "run_seed_task"]


@dataclass(frozen=True)
class SeedTask:
    slug: str
    budget: str
    seed: int
    device: str


def run_seed_task(task: SeedTask) -> dict[str, Any]:
    """Run one seed of one experiment and return the full record the store writes."""
    experiment = get_experiment(task.slug)
    seed_everything(task.seed)
    started = utc_now()
    t0 = time.perf_counter()
    with PeakMemory() as mem:
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
        "provenance": provenance(task.device, started, utc_now(), cuda_peak),
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

    def _init(self) -> None:
        import ray

        if ray.is_initialized():
            return
        kwargs: dict[str, Any] = {
            "ignore_reinit_error": True,
            "log_to_driver": False,
            "include_dashboard": False,
        }
        if self.address:
            ray.init(address=self.address, **kwargs)
        else:
            ray.init(num_cpus=self.num_cpus, **kwargs)

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

    @staticmethod
    def shutdown() -> None:
        import ray

        if ray.is_initialized():
            ray.shutdown()
