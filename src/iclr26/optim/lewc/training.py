"""The MLPs of the LEWC reproduction (arXiv 2510.08023) and their training.

An MLP with `depth` hidden ReLU layers of ``16 x width_multiplier`` units, trained with SGD (momentum 0.9,
weight decay 5e-4, batch 64) and a per-step cosine learning-rate schedule from `lr` to 0. The init seed and the
data order come from separate seeded generators, so the two models of a pair differ in both.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from iclr26.checks import check_float, check_int, check_tensor, check_token_ids

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
        check_int(name, v, low=1)
    check_int("seed", seed, low=0)
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


def check_model_input(name: str, x: object, model: nn.Module) -> torch.Tensor:
    """`x` must be a floating-point (n, ...) batch; when `model`'s first module is a Linear, (n, in_features)."""
    check_tensor(name, x, floating=True)
    if x.ndim < 1 or x.shape[0] < 1:
        raise ValueError(f"{name} must hold at least one input, got shape {tuple(x.shape)}")
    leaves = [m for m in model.modules() if not list(m.children())]
    if leaves and isinstance(leaves[0], nn.Linear):
        d = leaves[0].in_features
        if x.ndim != 2 or x.shape[1] != d:
            raise ValueError(
                f"{name} must have shape (n, {d}) (the model's first Linear takes {d} features), "
                f"got {tuple(x.shape)}"
            )
    return x


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
    if not isinstance(net, nn.Module):
        raise TypeError(f"net must be an nn.Module, got {type(net).__name__}")
    check_int("epochs", epochs, low=1)
    check_int("batch_size", batch_size, low=1)
    check_float("lr", lr, low=0.0, low_open=True)
    check_float("weight_decay", weight_decay, low=0.0)
    check_float("momentum", momentum, low=0.0)
    check_int("seed", seed, low=0)
    check_model_input("x", x, net)
    check_tensor("y", y, floating=False)
    if y.shape != (x.shape[0],):
        raise ValueError(f"y must hold one label per row of x ({x.shape[0]},), got shape {tuple(y.shape)}")
    out = [m for m in net.modules() if isinstance(m, nn.Linear)]
    if out:
        check_token_ids("y", y, out[-1].out_features)
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
