"""Shared pieces of the device tests: which devices a run's tensors land on, and cuda-vs-CPU metric agreement."""

import math

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

__all__ = ["DeviceLog", "far_metrics"]


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
