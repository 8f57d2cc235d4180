"""Experiment 1 of the SpecGD reproduction: full-batch GD, NGD and SpecGD on (deep) linear models of the GMM.

The model is ``f(x) = W_L ... W_1 x`` (``L = 1``: linear from ``W = 0``; ``L >= 2``: small Gaussian init of
scale ``init_scale / sqrt(d)``). The full-batch squared loss only depends on the second moments of the data,

    L(W) = 1/2 tr(P S_xx P^T) - tr(S_yx P^T) + 1/2,   P = W_L ... W_1,  S_xx = X^T X / n,  S_yx = Y^T X / n,

so training costs O(d^3) per step whatever n is; balanced test metrics are computed on the test set at the
evaluation steps.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from iclr26.optim.specgd.data import ImbalancedData, balanced_metrics
from iclr26.optim.specgd.normalized_gd import NormalizedGD
from iclr26.optim.specgd.spectral_gd import SpectralGD

__all__ = ["TheoryRun", "train_linear_model"]

OPTIMIZERS = ("gd", "ngd", "specgd")


@dataclass
class TheoryRun:
    """Test metrics at the evaluation steps of one (model, optimizer, lr) run; NaN after a divergence."""

    steps: list[int]
    balanced_accuracy: list[float]
    balanced_loss: list[float]
    worst_class_accuracy: list[float]
    amplitudes: list[list[float]]  # per evaluation step, the learned amplitude (P mu_c)_c of every class c
    diverged: bool

    def at(self, step: int, metric: str) -> float:
        """`metric` at evaluation step `step`."""
        return getattr(self, metric)[self.steps.index(step)]


def _layers(depth: int, K: int, d: int, hidden: int, init_scale: float, seed: int) -> list[torch.Tensor]:
    if depth == 1:
        return [torch.zeros(K, d, dtype=torch.float64, requires_grad=True)]
    gen = torch.Generator().manual_seed(seed)
    dims = [d] + [hidden] * (depth - 1) + [K]
    std = init_scale / d**0.5
    return [
        (std * torch.randn(dims[i + 1], dims[i], generator=gen, dtype=torch.float64)).requires_grad_()
        for i in range(depth)
    ]


def _product(layers: list[torch.Tensor]) -> torch.Tensor:
    p = layers[0]
    for w in layers[1:]:
        p = w @ p
    return p


def make_optimizer(name: str, params: list[torch.Tensor], lr: float) -> torch.optim.Optimizer:
    """GD (``torch.optim.SGD``), NGD (per-matrix Frobenius) or SpecGD (exact SVD) over `params`."""
    if name == "gd":
        return torch.optim.SGD(params, lr=lr)
    if name == "ngd":
        return NormalizedGD(params, lr=lr, norm="fro")
    if name == "specgd":
        return SpectralGD(params, lr=lr, mode="svd")
    raise ValueError(f"optimizer must be one of {OPTIMIZERS}, got {name!r}")


def train_linear_model(
    data: ImbalancedData,
    optimizer: str,
    lr: float,
    steps: int,
    eval_steps: list[int],
    depth: int = 1,
    hidden: int = 100,
    init_scale: float = 0.1,
    init_seed: int = 0,
) -> TheoryRun:
    """Train ``W_L ... W_1`` with full-batch `optimizer` for `steps` steps; evaluate at `eval_steps`."""
    x = data.x_train.double()
    K, d = data.num_classes, x.shape[1]
    y = torch.nn.functional.one_hot(data.y_train, K).double()
    s_xx, s_yx = x.T @ x / len(x), y.T @ x / len(x)
    x_test = data.x_test.double()
    means = data.means.double()
    layers = _layers(depth, K, d, hidden, init_scale, init_seed)
    opt = make_optimizer(optimizer, layers, lr)
    run = TheoryRun([], [], [], [], [], False)
    wanted = set(eval_steps)
    for t in range(steps + 1):
        if t in wanted:
            with torch.no_grad():
                p = _product(layers)
                finite = bool(torch.isfinite(p).all())
                m = balanced_metrics(x_test @ p.T, data.y_test) if finite else None
                run.steps.append(t)
                for key in ("balanced_accuracy", "balanced_loss", "worst_class_accuracy"):
                    getattr(run, key).append(m[key] if m else float("nan"))
                amps = torch.diagonal(p @ means.T) if finite else torch.full((K,), float("nan"))
                run.amplitudes.append(amps.tolist())
        if t == steps:
            break
        opt.zero_grad()
        p = _product(layers)
        loss = 0.5 * (p @ s_xx * p).sum() - (s_yx * p).sum() + 0.5
        if not torch.isfinite(loss) or float(loss.detach()) > 1e6:
            run.diverged = True
            for rest in sorted(s for s in wanted if s > t):
                run.steps.append(rest)
                for key in ("balanced_accuracy", "balanced_loss", "worst_class_accuracy"):
                    getattr(run, key).append(float("nan"))
                run.amplitudes.append([float("nan")] * K)
            break
        loss.backward()
        opt.step()
    return run
