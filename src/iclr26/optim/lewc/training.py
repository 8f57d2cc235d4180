"""The MLPs of the LEWC reproduction (arXiv 2510.08023) and their training.

An MLP with `depth` hidden ReLU layers of ``16 x width_multiplier`` units, trained with SGD (momentum 0.9,
weight decay 5e-4, batch 64) and a per-step cosine learning-rate schedule from `lr` to 0. The init seed and the
data order come from separate seeded generators, so the two models of a pair differ in both.
"""

from __future__ import annotations

import math

import torch
from torch import nn

__all__ = ["make_mlp", "train_mlp"]

BASE_WIDTH = 16


def make_mlp(
    d_in: int, n_classes: int, width_multiplier: int, depth: int = 3, seed: int = 0
) -> nn.Sequential:
    """``Linear -> ReLU`` x `depth` then a Linear head; hidden width ``16 * width_multiplier``.

    Examples
    --------
    >>> net = make_mlp(64, 10, 4)
    >>> net[0].out_features, len([m for m in net if isinstance(m, torch.nn.Linear)])
    (64, 4)
    """
    for name, v in (
        ("d_in", d_in),
        ("n_classes", n_classes),
        ("width_multiplier", width_multiplier),
        ("depth", depth),
    ):
        if not isinstance(v, int) or v < 1:
            raise ValueError(f"{name} must be a positive int, got {v!r}")
    gen = torch.Generator().manual_seed(seed)
    width = BASE_WIDTH * width_multiplier
    dims = [d_in] + [width] * depth
    layers: list[nn.Module] = []
    for a, b in zip(dims, dims[1:]):
        layers += [nn.Linear(a, b), nn.ReLU()]
    layers.append(nn.Linear(dims[-1], n_classes))
    net = nn.Sequential(*layers)
    with torch.no_grad():
        for m in net:
            if isinstance(m, nn.Linear):  # PyTorch's default init, drawn from this seed's generator
                bound = 1.0 / math.sqrt(m.in_features)
                m.weight.uniform_(-bound, bound, generator=gen)
                m.bias.uniform_(-bound, bound, generator=gen)
    return net


def train_mlp(
    net: nn.Module,
    x: torch.Tensor,
    y: torch.Tensor,
    epochs: int,
    seed: int,
    lr: float = 0.05,
    batch_size: int = 64,
    weight_decay: float = 5e-4,
    momentum: float = 0.9,
) -> nn.Module:
    """Train `net` in place with SGD + momentum and a cosine schedule; the data order is drawn from `seed`."""
    if epochs < 1 or batch_size < 1 or lr <= 0:
        raise ValueError(f"epochs, batch_size and lr must be positive, got {epochs}, {batch_size}, {lr}")
    opt = torch.optim.SGD(net.parameters(), lr=lr, momentum=momentum, weight_decay=weight_decay)
    gen = torch.Generator().manual_seed(seed)
    n = len(x)
    steps_per_epoch = math.ceil(n / batch_size)
    total = epochs * steps_per_epoch
    step = 0
    net.train()
    for _ in range(epochs):
        order = torch.randperm(n, generator=gen).to(x.device)
        for i in range(0, n, batch_size):
            for group in opt.param_groups:
                group["lr"] = 0.5 * lr * (1.0 + math.cos(math.pi * step / total))  # cosine from lr to 0
            idx = order[i : i + batch_size]
            loss = nn.functional.cross_entropy(net(x[idx]), y[idx])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            step += 1
    return net.eval()
