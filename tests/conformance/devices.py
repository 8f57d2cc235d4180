"""Shared pieces of the device tests: which devices a run's tensors land on, and cuda-vs-CPU metric agreement."""

import json
import math

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

__all__ = ["DeviceLog", "assert_cpu_run_stays_on_cpu", "assert_cuda_smoke_matches_cpu", "far_metrics"]


class DeviceLog(TorchDispatchMode):
    """Records the device type of every tensor any torch op returns while active."""

    def __init__(self) -> None:
        super().__init__()
        self.devices: set[str] = set()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for t in tree_flatten(out)[0]:
            if isinstance(t, torch.Tensor):
                self.devices.add(t.device.type)
        return out


def far_metrics(cpu: dict[str, float], gpu: dict[str, float], tol: float) -> dict[str, tuple[float, float]]:
    """Metrics where the cuda run is not finite where the CPU run is (or not NaN where it is NaN), or differs by
    more than ``tol * max(1, |cpu|)``."""
    far = {}
    for k, c in cpu.items():
        g = gpu[k]
        ok = math.isnan(g) if math.isnan(c) else math.isfinite(g) and abs(g - c) <= tol * max(1.0, abs(c))
        if not ok:
            far[k] = (c, g)
    return far


def assert_cpu_run_stays_on_cpu(experiment) -> None:
    """A smoke seed on "cpu" creates no tensor on another device, and its record is plain JSON-ready Python."""
    assert experiment.devices == ("cpu", "cuda")
    log = DeviceLog()
    with log:
        record = experiment.run_seed("smoke", 0, "cpu")
    assert log.devices == {"cpu"}
    assert all(type(v) is float for v in record["metrics"].values())
    json.dumps(record)  # curves and artifacts are plain Python, no tensors


def assert_cuda_smoke_matches_cpu(experiment, tol: float) -> None:
    """The smoke seed on cuda gives the CPU's metrics within ``tol * max(1, |cpu value|)`` (NaN where NaN)."""
    cpu = experiment.run_seed("smoke", 0, "cpu")["metrics"]
    gpu = experiment.run_seed("smoke", 0, "cuda")["metrics"]
    assert gpu.keys() == cpu.keys()
    far = far_metrics(cpu, gpu, tol)
    assert not far, f"cuda metrics far from the CPU's (cpu, cuda): {far}"
