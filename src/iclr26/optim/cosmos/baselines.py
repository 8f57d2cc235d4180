"""The optimizers the COSMOS reproduction compares, each built from a library (none hand-written but COSMOS).

``make_optimizer(name, model, lr)`` returns what :func:`iclr26.lab.tinygpt.train` accepts: one optimizer or a
list of them. Every optimizer runs without weight decay (350-step runs; the comparison is about the update rule).

- ``adamw``: :class:`torch.optim.AdamW`, betas (0.9, 0.999), on every parameter;
- ``muon``: :class:`torch.optim.Muon` (momentum 0.95, Nesterov, 5 Newton-Schulz steps, ``match_rms_adamw`` lr
  scaling so that one lr serves both parts) on the hidden matrices plus AdamW on everything else;
- ``soap``: ``pytorch_optimizer.SOAP`` (betas (0.95, 0.95), preconditioner refreshed every 10 steps) on every
  parameter;
- ``galore``: ``pytorch_optimizer.GaLore`` with rank-r projections (refreshed every 50 steps, scale 0.25) on the
  hidden matrices and plain Adam on the rest;
- ``adam_mini``: ``pytorch_optimizer.AdamMini`` (one second-moment scalar per block) over the model;
- ``cosmos``: :class:`~iclr26.optim.cosmos.COSMOS`, routed by role, rank r.
"""

from __future__ import annotations

import torch
from pytorch_optimizer import SOAP, AdamMini, GaLore
from torch import nn

from iclr26.lab.param_groups import split_param_groups
from iclr26.optim.cosmos.optimizer import COSMOS

__all__ = ["OPTIMIZER_NAMES", "make_optimizer"]

OPTIMIZER_NAMES = ("adamw", "muon", "soap", "galore", "adam_mini", "cosmos")


def make_optimizer(
    name: str, model: nn.Module, lr: float, rank: int = 16
) -> torch.optim.Optimizer | list[torch.optim.Optimizer]:
    """Build optimizer ``name`` (one of :data:`OPTIMIZER_NAMES`) over all of ``model``'s parameters."""
    if name not in OPTIMIZER_NAMES:
        raise ValueError(f"name must be one of {OPTIMIZER_NAMES}, got {name!r}")
    if not lr > 0:
        raise ValueError(f"lr must be > 0, got {lr!r}")
    if isinstance(rank, bool) or not isinstance(rank, int) or rank < 1:
        raise ValueError(f"rank must be an int >= 1, got {rank!r}")
    if name == "adamw":
        return torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0)
    if name == "soap":
        return SOAP(model.parameters(), lr=lr, weight_decay=0.0, precondition_frequency=10)
    if name == "adam_mini":
        d = getattr(getattr(model, "cfg", None), "d_model", None)
        heads = getattr(getattr(model, "cfg", None), "n_heads", None)
        kw = {"num_embeds": d, "num_heads": heads} if d and heads else {}
        return AdamMini(model, lr=lr, weight_decay=0.0, **kw)
    if name == "cosmos":
        return COSMOS.from_model(model, lr=lr, rank=rank)
    matrices, others = split_param_groups(model)
    if name == "muon":
        opts: list[torch.optim.Optimizer] = [
            torch.optim.Muon(matrices, lr=lr, weight_decay=0.0, adjust_lr_fn="match_rms_adamw")
        ]
        if others:
            opts.append(torch.optim.AdamW(others, lr=lr, weight_decay=0.0))
        return opts
    groups = [
        {"params": matrices, "rank": rank, "update_proj_gap": 50, "scale": 0.25, "projection_type": "std"},
        {"params": others},
    ]
    return GaLore([g for g in groups if g["params"]], lr=lr, weight_decay=0.0)
