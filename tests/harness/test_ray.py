"""A smoke reproduction through a local Ray instance writes to the same store as the local executor."""

import pytest

ray = pytest.importorskip("ray", reason="the [ray] extra is not installed")

from iclr26.harness.executors import LocalExecutor, RayExecutor  # noqa: E402
from iclr26.harness.runner import reproduce  # noqa: E402
from iclr26.harness.store import ResultStore  # noqa: E402

SLUG = "poisson-midpoint"


@pytest.mark.ray
def test_ray_smoke_reproduction_matches_local(tmp_path):
    ray_store, local_store = ResultStore(tmp_path / "ray"), ResultStore(tmp_path / "local")
    executor = RayExecutor(num_cpus=2)
    try:
        [summary] = reproduce([SLUG], "smoke", n_seeds=2, device="cpu", store=ray_store, executor=executor)
    finally:
        RayExecutor.shutdown()
    assert sorted(r.seed for r in summary.results) == [0, 1]
    reproduce([SLUG], "smoke", n_seeds=2, device="cpu", store=local_store, executor=LocalExecutor())
    for seed in (0, 1):
        assert ray_store.read(SLUG, "smoke", seed).metrics == local_store.read(SLUG, "smoke", seed).metrics


def test_ray_executor_rejects_bad_resources():
    with pytest.raises(ValueError, match="cpus_per_task"):
        RayExecutor(cpus_per_task=0)
