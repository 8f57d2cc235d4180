"""The optimizers the COSMOS reproduction compares, each built from a library (none hand-written but COSMOS).

``make_optimizer(name, model, lr)`` returns what :func:`iclr26.lab.tinygpt.train` accepts: one optimizer or a
list of them. Every optimizer runs without weight decay (350-step runs; the comparison is about the update rule).
``adamw``, ``muon``, ``soap`` and ``galore`` are the shared baselines of :mod:`iclr26.lab.optim_baselines`
(GaLore's rank-r projections refreshed every :data:`GALORE_INTERVAL` steps); this paper adds

- ``adam_mini``: ``pytorch_optimizer.AdamMini`` (one second-moment scalar per block) over the model;
- ``cosmos``: :class:`~iclr26.optim.cosmos.COSMOS`, routed by role, rank r.
"""

from __future__ import annotations

import torch
from pytorch_optimizer import AdamMini
from torch import nn

from iclr26.checks import check_choice, check_float, check_int
from iclr26.lab.optim_baselines import BASELINE_NAMES, baseline
from iclr26.optim.cosmos.optimizer import COSMOS

__all__ = ["GALORE_INTERVAL", "OPTIMIZER_NAMES", "make_optimizer"]

OPTIMIZER_NAMES = ("adamw", "muon", "soap", "galore", "adam_mini", "cosmos")
GALORE_INTERVAL = 50  # steps between GaLore's projection refreshes


def make_optimizer(
    name: str, model: nn.Module, lr: float, rank: int = 16
) -> torch.optim.Optimizer | list[torch.optim.Optimizer]:
    """Build optimizer ``name`` (one of :data:`OPTIMIZER_NAMES`) over all of ``model``'s parameters."""
    check_choice("name", name, OPTIMIZER_NAMES)
    check_float("lr", lr, low=0.0, low_open=True)
    check_int("rank", rank, low=1)
    if name in BASELINE_NAMES:
        return baseline(name, model, lr, rank, GALORE_INTERVAL)
    if name == "adam_mini":
        d = getattr(getattr(model, "cfg", None), "d_model", None)
        heads = getattr(getattr(model, "cfg", None), "n_heads", None)
        kw = {"num_embeds": d, "num_heads": heads} if d and heads else {}
        return AdamMini(model, lr=lr, weight_decay=0.0, **kw)
    return COSMOS.from_model(model, lr=lr, rank=rank)
