"""The universal (morphology-agnostic) controller and its learning-rate schedule.

One MLP maps the irradiance of every workspace mass (0 for masses the body lacks) plus ``n_cpg`` central-pattern
sines to an actuation for every workspace spring; the simulator ignores the outputs of springs the body lacks, so
the body's mask is the controller's only morphology conditioning (paper Sec. 3, official ``model.py``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from torch import nn

from iclr26.checks import check_float, check_int, check_tensor

__all__ = ["UniversalController", "cosine_warm_restarts_lr", "masked_center"]


def masked_center(irradiance: torch.Tensor) -> torch.Tensor:
    """Subtract the mean of the non-zero readings of each row from them; zero readings (absent masses) stay 0."""
    check_tensor("irradiance", irradiance, floating=True)
    mask = irradiance != 0
    count = mask.sum(dim=-1, keepdim=True).clamp_min(1)
    mu = irradiance.masked_fill(~mask, 0).sum(dim=-1, keepdim=True) / count
    return torch.where(mask, irradiance - mu, torch.zeros_like(irradiance))


class UniversalController(nn.Module):
    """MLP ``[|M| + n_cpg] -> hidden... -> |S|`` with LayerNorm + ReLU hidden layers and a tanh output.

    Inputs ``(B, |M| + n_cpg)``: the per-mass irradiance (absent masses read 0) followed by the CPG sines; the
    irradiance part is mean-centred over the present masses (:func:`masked_center`) before the first layer.
    Outputs ``(B, |S|)`` actuations in ``(-1, 1)``. Weights are Xavier-normal (``gain``), biases zero.
    """

    def __init__(
        self,
        n_masses: int,
        n_springs: int,
        hidden: Sequence[int] = (256, 256, 256),
        n_cpg: int = 5,
        gain: float = 1.0,
    ) -> None:
        super().__init__()
        self.n_masses = check_int("n_masses", n_masses, low=1)
        self.n_springs = check_int("n_springs", n_springs, low=1)
        self.n_cpg = check_int("n_cpg", n_cpg, low=0)
        hidden = tuple(check_int("hidden width", h, low=1) for h in hidden)
        check_float("gain", gain, low=0.0)
        dims = [n_masses + n_cpg, *hidden, n_springs]
        layers: list[nn.Module] = []
        for i in range(len(dims) - 1):
            lin = nn.Linear(dims[i], dims[i + 1])
            nn.init.xavier_normal_(lin.weight, gain=gain)
            nn.init.zeros_(lin.bias)
            layers.append(lin)
            if i < len(dims) - 2:
                layers += [nn.LayerNorm(dims[i + 1]), nn.ReLU()]
        layers.append(nn.Tanh())
        self.net = nn.Sequential(*layers)

    @property
    def n_inputs(self) -> int:
        return self.n_masses + self.n_cpg

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        check_tensor("inputs", inputs, ndim=2, floating=True, shape=(None, self.n_inputs))
        irr, cpg = inputs[:, : self.n_masses], inputs[:, self.n_masses :]
        return self.net(torch.cat([masked_center(irr), cpg], dim=-1))


def cosine_warm_restarts_lr(
    step: int, base_lr: float, cycle: int = 10, mult: float = 2.0, decay: float = 0.65, min_lr: float = 1e-5
) -> float:
    """The official decaying cosine schedule with warm restarts: cycles of length ``cycle * mult**c``, peak
    ``base_lr * decay**c`` in cycle ``c``, cosine down to ``min_lr`` within each cycle (``mult=1, decay=1``: plain
    periodic cosine, the fine-tuning schedule)."""
    check_int("step", step, low=0)
    check_float("base_lr", base_lr, low=0.0)
    check_int("cycle", cycle, low=1)
    check_float("mult", mult, low=1.0)
    check_float("decay", decay, 0.0, 1.0, low_open=True)
    check_float("min_lr", min_lr, low=0.0)
    start, c, length = 0, 0, int(cycle)
    while start + length <= step:
        start += length
        c += 1
        length = int(cycle * mult**c)
    progress = (step - start) / length
    peak = base_lr * decay**c
    return min_lr + (peak - min_lr) * 0.5 * (1 + math.cos(math.pi * progress))
