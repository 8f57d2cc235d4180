"""The optimizers the RACS/Alice reproduction compares; baselines come from libraries, RACS/Alice from this package.

``make_optimizer(name, model, lr, ...)`` returns what :func:`iclr26.lab.tinygpt.train` accepts (one optimizer or
a list). No weight decay anywhere (short runs; the comparison is about the update rule).

- ``adamw``: :class:`torch.optim.AdamW` (betas 0.9, 0.999) on every parameter;
- ``muon``: :class:`torch.optim.Muon` (``match_rms_adamw`` lr scaling, so one lr serves both parts) on the hidden
  matrices plus :class:`torch.optim.AdamW` on the rest;
- ``racs`` / ``alice``: this package's optimizers on the hidden matrices, their AdamW fallback group (at
  ``fallback_lr``, AdamW's tuned lr) on the rest; ``racs`` uses the scale-invariant one-step fixed-point
  normalisation (``normalize="fixed_point"``), ``racs_mean`` the plain row/column means (the brief's default and
  the reference library's convention);
- ``galore``: ``pytorch_optimizer.GaLore`` with rank-r projections refreshed every ``interval`` steps
  (scale 0.25) on the hidden matrices and Adam on the rest;
- ``soap``: ``pytorch_optimizer.SOAP`` (preconditioner refreshed every 10 steps) on every parameter.
"""

from __future__ import annotations

import torch
from pytorch_optimizer import SOAP, GaLore
from torch import nn

from iclr26.lab.param_groups import split_param_groups
from iclr26.optim.racs_alice.optimizer import RACS, Alice

__all__ = ["OPTIMIZER_NAMES", "make_optimizer"]

OPTIMIZER_NAMES = ("adamw", "muon", "racs", "racs_mean", "alice", "galore", "soap")


def make_optimizer(
    name: str,
    model: nn.Module,
    lr: float,
    fallback_lr: float = 3e-3,
    rank: int = 16,
    leading_basis: int = 4,
    interval: int = 25,
) -> torch.optim.Optimizer | list[torch.optim.Optimizer]:
    """Build optimizer ``name`` (one of :data:`OPTIMIZER_NAMES`) over all of ``model``'s parameters.

    ``rank``/``leading_basis``/``interval`` are Alice's r, l, K (GaLore shares r and K); ``fallback_lr`` is the
    AdamW lr of the non-matrix parameters under RACS and Alice.
    """
    if name not in OPTIMIZER_NAMES:
        raise ValueError(f"name must be one of {OPTIMIZER_NAMES}, got {name!r}")
    if not lr > 0:
        raise ValueError(f"lr must be > 0, got {lr!r}")
    if name == "adamw":
        return torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0)
    if name == "soap":
        return SOAP(model.parameters(), lr=lr, weight_decay=0.0, precondition_frequency=10)
    if name in ("racs", "racs_mean"):
        normalize = "fixed_point" if name == "racs" else "mean"
        return RACS.from_model(model, lr=lr, fallback_lr=fallback_lr, normalize=normalize)
    if name == "alice":
        return Alice.from_model(
            model,
            lr=lr,
            fallback_lr=fallback_lr,
            rank=rank,
            leading_basis=leading_basis,
            update_interval=interval,
        )
    matrices, others = split_param_groups(model)
    if name == "muon":
        opts: list[torch.optim.Optimizer] = [
            torch.optim.Muon(matrices, lr=lr, weight_decay=0.0, adjust_lr_fn="match_rms_adamw")
        ]
        if others:
            opts.append(torch.optim.AdamW(others, lr=lr, weight_decay=0.0))
        return opts
    groups = [
        {
            "params": matrices,
            "rank": rank,
            "update_proj_gap": interval,
            "scale": 0.25,
            "projection_type": "std",
        },
        {"params": others},
    ]
    return GaLore([g for g in groups if g["params"]], lr=lr, weight_decay=0.0)
