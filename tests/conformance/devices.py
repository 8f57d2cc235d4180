"""Shared pieces of the device tests: which devices a run's tensors land on, and cuda-vs-CPU metric agreement."""

import math

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

__all__ = [
    "CUDA_TOLERANCE",
    "DeviceLog",
    "assert_cuda_smoke_matches_cpu",
    "far_metrics",
]


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


def assert_cuda_smoke_matches_cpu(experiment, tol: float) -> None:
    """The smoke seed on cuda gives the CPU's metrics within ``tol * max(1, |cpu value|)`` (NaN where NaN)."""
    cpu = experiment.run_seed("smoke", 0, "cpu")["metrics"]
    gpu = experiment.run_seed("smoke", 0, "cuda")["metrics"]
    assert gpu.keys() == cpu.keys()
    far = far_metrics(cpu, gpu, tol)
    assert not far, f"cuda metrics far from the CPU's (cpu, cuda): {far}"


#: Experiments whose device path was written and reviewed, with their cuda-vs-CPU smoke tolerance (relative to
#: max(1, |cpu value|)) and why; the conformance suite checks each one's CPU smoke run creates no tensor elsewhere
#: and, on a machine with a GPU, that its cuda smoke run agrees with the CPU's within the tolerance.
CUDA_TOLERANCE: dict[str, float] = {
    # the sweeps are float64 enumerations and the table models' logits are exact look-ups, so only reduction
    # order differs; TAS's step rule (q_n > threshold) may flip on a near-tie pair, moving an acceptance by
    # p_n / 100 pairs
    "cactus": 0.02,
    # same teacher, data and random draws, so only float32 rounding differs; an entropy or confidence threshold
    # met by a hair can flip one commit, moving an accuracy over the 24 test prompts by 1/24 and an NFE by about
    # one call
    "dparallel": 0.15,
    # the next tokens are drawn on the CPU from the same generator, so texts differ only if rounding moves a draw
    # across a boundary; one of the 10 smoke texts taking another path moves a rate by 0.1
    "ens-watermark": 0.15,
    # greedy decoding of the same weights; a reduction-order difference can flip an argmax on a near-tie logit and
    # change one of the 3 smoke problems (accuracy moves by 1/3)
    "fly": 0.34,
    # same data, weights, batches and noise, so only float32 rounding in 60 Adam steps and the Euler sampler
    # differs; in-cell rates over 300 samples and MMDs agree well within this
    "rg-vfm": 0.05,
    # every draw is the same CPU uniform, so samples differ only where rounding moves a Gumbel-max or resampling
    # decision; one changed sample of 32 moves a histogram count by 1 and a TV by 1/32
    "smc-discrete-diffusion": 0.25,
}
