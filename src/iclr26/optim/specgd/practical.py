"""Experiment 2 of the SpecGD reproduction: an MLP on long-tailed data with library optimizers.

A 2-hidden-layer ReLU MLP is trained with cross-entropy and minibatches on a long-tailed training set; the
class-balanced test accuracy is recorded after every epoch. Optimizers (all from libraries, except SpecGD):

* ``sgd``: ``torch.optim.SGD`` with momentum 0.9;
* ``adam``: ``torch.optim.Adam``;
* ``muon``: ``torch.optim.Muon`` on the hidden matrices (``split_param_groups``) + ``torch.optim.AdamW``
  (lr 1e-3) on the rest (first-layer bias, hidden biases, output head);
* ``shampoo``: ``pytorch_optimizer.Shampoo`` on every parameter (``matrix_eps = 1e-4``);
* ``specgd``: this package's :class:`SpectralGD` (exact SVD, momentum 0.9) with the same AdamW routing as Muon.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from iclr26.lab.param_groups import split_param_groups
from iclr26.optim.specgd.data import ImbalancedData, balanced_metrics
from iclr26.optim.specgd.spectral_gd import SpectralGD

__all__ = ["PRACTICAL_OPTIMIZERS", "PracticalRun", "train_mlp"]

PRACTICAL_OPTIMIZERS = ("sgd", "adam", "muon", "shampoo", "specgd")
AUX_ADAMW_LR = 1e-3


@dataclass
class PracticalRun:
    """Balanced and worst-class test accuracy after each epoch (index 0: before training)."""

    balanced_accuracy: list[float]
    worst_class_accuracy: list[float]


def _mlp(d_in: int, hidden: int, K: int, seed: int) -> nn.Module:
    torch.manual_seed(seed)
    return nn.Sequential(
        nn.Linear(d_in, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, K)
    )


def make_optimizers(
    name: str, model: nn.Module, lr: float, shampoo_every: int = 1
) -> list[torch.optim.Optimizer]:
    """The optimizer(s) called `name` over `model` (Muon and SpecGD come with an AdamW for non-matrices)."""
    if name == "sgd":
        return [torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)]
    if name == "adam":
        return [torch.optim.Adam(model.parameters(), lr=lr)]
    if name == "shampoo":
        from pytorch_optimizer import Shampoo

        return [
            Shampoo(model.parameters(), lr=lr, preconditioning_compute_steps=shampoo_every, matrix_eps=1e-4)
        ]
    matrices, others = split_param_groups(model)
    aux = torch.optim.AdamW(others, lr=AUX_ADAMW_LR, weight_decay=0.0)
    if name == "muon":
        return [torch.optim.Muon(matrices, lr=lr, weight_decay=0.0), aux]
    if name == "specgd":
        return [SpectralGD(matrices, lr=lr, mode="svd", momentum=0.9), aux]
    raise ValueError(f"optimizer must be one of {PRACTICAL_OPTIMIZERS}, got {name!r}")


def train_mlp(
    data: ImbalancedData,
    optimizer: str,
    lr: float,
    epochs: int,
    batch_size: int = 64,
    hidden: int = 256,
    seed: int = 0,
    shampoo_every: int = 1,
) -> PracticalRun:
    """Train the MLP with `optimizer` at `lr`; init and batch order depend only on `seed` (paired runs)."""
    K = data.num_classes
    model = _mlp(data.x_train.shape[1], hidden, K, seed)
    opts = make_optimizers(optimizer, model, lr, shampoo_every)
    gen = torch.Generator().manual_seed(seed + 7919)
    n = len(data.y_train)
    run = PracticalRun([], [])

    def evaluate() -> None:
        with torch.no_grad():
            logits = model(data.x_test)
        if not torch.isfinite(logits).all():
            run.balanced_accuracy.append(float("nan"))
            run.worst_class_accuracy.append(float("nan"))
            return
        m = balanced_metrics(logits, data.y_test, loss=None)
        run.balanced_accuracy.append(m["balanced_accuracy"])
        run.worst_class_accuracy.append(m["worst_class_accuracy"])

    evaluate()
    for epoch in range(epochs):
        perm = torch.randperm(n, generator=gen)
        try:
            for start in range(0, n, batch_size):
                idx = perm[start : start + batch_size]
                for o in opts:
                    o.zero_grad(set_to_none=True)
                loss = nn.functional.cross_entropy(model(data.x_train[idx]), data.y_train[idx])
                if not torch.isfinite(loss):
                    raise FloatingPointError("non-finite training loss")
                loss.backward()
                for o in opts:
                    o.step()
        except (FloatingPointError, torch.linalg.LinAlgError):  # diverged: the rest of the run is NaN
            missing = epochs - epoch
            run.balanced_accuracy += [float("nan")] * missing
            run.worst_class_accuracy += [float("nan")] * missing
            return run
        evaluate()
    return run
