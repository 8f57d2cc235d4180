"""SpecGD's optimizers in the component registry: hidden matrices spectral, the rest on a fallback."""

from __future__ import annotations

import torch

from iclr26.lab.param_groups import split_param_groups
from iclr26.lab.registry import register
from iclr26.optim.specgd import NormalizedGD, SpectralGD


def _spectral(model: torch.nn.Module, **kw: object) -> SpectralGD:
    matrices, others = split_param_groups(model)
    groups = [{"params": matrices}] if matrices else []
    if others:
        groups.append({"params": others, "spectral": False})
    return SpectralGD(groups, fallback="adamw", fallback_lr=1e-2, **kw)


def _sgd_fallback(model: torch.nn.Module) -> SpectralGD:
    groups = [
        {"params": [p for p in model.parameters() if p.ndim == 2]},
        {"params": [p for p in model.parameters() if p.ndim != 2], "fallback": "sgd", "fallback_lr": 0.05},
    ]
    return SpectralGD(groups, lr=0.02, momentum=0.5)


for _name, _cls, _case in (
    ("SpectralGD-svd", SpectralGD, lambda model: _spectral(model, lr=0.02)),
    (
        "SpectralGD-ns",
        SpectralGD,
        lambda model: _spectral(model, lr=0.02, mode="ns", momentum=0.9, nesterov=True),
    ),
    ("SpectralGD-sgd-fallback", SpectralGD, _sgd_fallback),
    ("NormalizedGD-fro", NormalizedGD, lambda model: NormalizedGD(model.parameters(), lr=0.02)),
    (
        "NormalizedGD-spectral",
        NormalizedGD,
        lambda model: NormalizedGD(model.parameters(), lr=0.02, norm="spectral", momentum=0.9),
    ),
):
    register("optimizer", _name, _cls, _case, paper="specgd")
