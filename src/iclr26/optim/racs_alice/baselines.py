"""The optimizers the RACS/Alice reproduction compares; baselines come from libraries, RACS/Alice from this package.

``make_optimizer(name, model, lr, ...)`` returns what :func:`iclr26.lab.tinygpt.train` accepts (one optimizer or
a list). No weight decay anywhere (short runs; the comparison is about the update rule). ``adamw``, ``muon``,
``soap`` and ``galore`` are the shared baselines of :mod:`iclr26.lab.optim_baselines` (GaLore's rank-r
projections refreshed every ``interval`` steps, Alice's K); this paper adds

- ``racs`` / ``alice``: this package's optimizers on the hidden matrices, their AdamW fallback group (at
  ``fallback_lr``, AdamW's tuned lr) on the rest; ``racs`` uses the scale-invariant one-step fixed-point
  normalisation (``normalize="fixed_point"``), ``racs_mean`` the plain row/column means (the brief's default and
  the reference library's convention).
"""

from __future__ import annotations

import torch
from torch import nn

from iclr26.checks import check_choice, check_float
from iclr26.lab.optim_baselines import BASELINE_NAMES, baseline
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
    check_choice("name", name, OPTIMIZER_NAMES)
    check_float("lr", lr, low=0.0, low_open=True, finite=False)
    if name in BASELINE_NAMES:
        return baseline(name, model, lr, rank, interval)
    if name in ("racs", "racs_mean"):
        normalize = "fixed_point" if name == "racs" else "mean"
        return RACS.from_model(model, lr=lr, fallback_lr=fallback_lr, normalize=normalize)
    return Alice.from_model(
        model,
        lr=lr,
        fallback_lr=fallback_lr,
        rank=rank,
        leading_basis=leading_basis,
        update_interval=interval,
    )
