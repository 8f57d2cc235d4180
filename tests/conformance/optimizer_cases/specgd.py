"""SpecGD optimizers for the optimizer conformance battery: hidden matrices spectral, the rest on a fallback."""

from __future__ import annotations

import torch

from iclr26.lab.param_groups import split_param_groups
from iclr26.optim.specgd import NormalizedGD, SpectralGD


def _spectral(model: torch.nn.Module, **kw) -> torch.optim.Optimizer:
    matrices, others = split_param_groups(model)
    groups = [{"params": matrices}] if matrices else []
    if others:
        groups.append({"params": others, "spectral": False})
    return SpectralGD(groups, fallback="adamw", fallback_lr=1e-2, **kw)


OPTIMIZERS = {
    "SpectralGD-svd": lambda model: _spectral(model, lr=0.02),
    "SpectralGD-ns": lambda model: _spectral(model, lr=0.02, mode="ns", momentum=0.9, nesterov=True),
    "SpectralGD-sgd-fallback": lambda model: SpectralGD(
        [
            {"params": [p for p in model.parameters() if p.ndim == 2]},
            {
                "params": [p for p in model.parameters() if p.ndim != 2],
                "fallback": "sgd",
                "fallback_lr": 0.05,
            },
        ],
        lr=0.02,
        momentum=0.5,
    ),
    "NormalizedGD-fro": lambda model: NormalizedGD(model.parameters(), lr=0.02),
    "NormalizedGD-spectral": lambda model: NormalizedGD(
        model.parameters(), lr=0.02, norm="spectral", momentum=0.9
    ),
}
