"""E1 of the FACT reproduction: feature agreement of a 2-hidden-layer MLP over training.

Paper: "FACT: a first-principles alternative to the Neural Feature Ansatz ..." (arXiv 2507.05644). The net is
trained on ``(1/n) sum_i (1/2)(f(x_i) - y_i)^2 + (lambda/2) sum_l ||W_l||_F^2`` (an explicit L2 term on the
mean loss, so that FACT holds at its stationary points) by full-batch gradient descent with momentum, then
polished by L-BFGS. Every ``track_every`` steps the first layer's W^T W is compared with the FACT matrix
(symmetric part) and with AGOP and AGOP^{1/2} by :func:`feature_agreement`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch
from torch import nn

from iclr26.harness import track
from iclr26.optim.fact_nfa.features import agop_matrix, fact_matrix, feature_agreement

__all__ = ["AgreementTrace", "multi_index_data", "train_and_track"]


def multi_index_data(
    n: int, d: int, k: int, noise: float, generator: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    """x ~ N(0, I_d), ``y = sum_{k} tanh(u_k^T x) + noise * eps`` with orthonormal u_k (float64)."""
    U, _ = torch.linalg.qr(torch.randn(d, k, generator=generator, dtype=torch.float64))
    X = torch.randn(n, d, generator=generator, dtype=torch.float64)
    y = torch.tanh(X @ U).sum(1, keepdim=True)
    return X, y + noise * torch.randn(n, 1, generator=generator, dtype=torch.float64)


def _half_mse(out: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return 0.5 * ((out - y) ** 2).sum(1).mean()  # (1/n) sum_i (1/2)||f(x_i) - y_i||^2


@dataclass
class AgreementTrace:
    """Correlations of the first layer's W^T W with FACT, AGOP, AGOP^{1/2}, and the gradient norm, per step."""

    steps: list[int] = field(default_factory=list)
    fact: list[float] = field(default_factory=list)
    agop: list[float] = field(default_factory=list)
    agop_sqrt: list[float] = field(default_factory=list)
    fact_cos: list[float] = field(default_factory=list)
    agop_cos: list[float] = field(default_factory=list)
    agop_sqrt_cos: list[float] = field(default_factory=list)
    grad_norm: list[float] = field(default_factory=list)
    matrices: dict[str, list[list[float]]] = field(default_factory=dict)


def _objective(net: nn.Module, X: torch.Tensor, y: torch.Tensor, lam: float) -> torch.Tensor:
    weights = [m.weight for m in net.modules() if isinstance(m, nn.Linear)]
    return _half_mse(net(X), y) + 0.5 * lam * sum((w**2).sum() for w in weights)


def _grad_norm(net: nn.Module, X: torch.Tensor, y: torch.Tensor, lam: float) -> float:
    grads = torch.autograd.grad(_objective(net, X, y, lam), list(net.parameters()))
    return float(torch.sqrt(sum((g**2).sum() for g in grads)))


def _record(
    trace: AgreementTrace, step: int, net: nn.Module, X: torch.Tensor, y: torch.Tensor, lam: float
) -> None:
    W = net[0].weight.detach()
    gram = W.T @ W
    fact = fact_matrix(net, "0", X, y, _half_mse, lam, form="symmetric")
    agop = agop_matrix(net, "0", X, 1.0)
    agop_sqrt = agop_matrix(net, "0", X, 0.5)
    for name, mat in (("fact", fact), ("agop", agop), ("agop_sqrt", agop_sqrt)):
        pearson, cosine = feature_agreement(gram, mat)
        getattr(trace, name).append(pearson)
        getattr(trace, f"{name}_cos").append(cosine)
    trace.steps.append(step)
    trace.grad_norm.append(_grad_norm(net, X, y, lam))
    trace.matrices = {
        "WtW": gram.tolist(),
        "FACT": fact.tolist(),
        "AGOP": agop.tolist(),
    }


def train_and_track(
    X: torch.Tensor,
    y: torch.Tensor,
    width: int,
    lam: float,
    gd_steps: int,
    lbfgs_iters: int,
    lr: float,
    momentum: float,
    track_every: int,
    activation: str,
    generator: torch.Generator,
) -> AgreementTrace:
    """Train the MLP by GD + momentum then L-BFGS, recording agreement every `track_every` GD steps and at the end."""
    act = {"tanh": nn.Tanh, "relu": nn.ReLU}[activation]
    net = nn.Sequential(
        nn.Linear(X.shape[1], width), act(), nn.Linear(width, width), act(), nn.Linear(width, 1)
    )
    net = net.to(dtype=X.dtype)
    with torch.no_grad():
        for m in net:  # PyTorch's default U(-1/sqrt(fan_in), 1/sqrt(fan_in)), drawn from the seeded generator
            for p in m.parameters():
                bound = 1.0 / np.sqrt(m.in_features)
                p.copy_(torch.empty_like(p).uniform_(-bound, bound, generator=generator))
    net = net.to(X.device)
    trace = AgreementTrace()
    opt = torch.optim.SGD(net.parameters(), lr=lr, momentum=momentum)
    for step in track(range(gd_steps + 1), description=f"fact-nfa: GD lambda={lam:g}"):
        if step % track_every == 0:
            _record(trace, step, net, X, y, lam)
        if step == gd_steps:
            break
        opt.zero_grad()
        _objective(net, X, y, lam).backward()
        opt.step()
    if lbfgs_iters > 0:
        lbfgs = torch.optim.LBFGS(
            net.parameters(),
            lr=1.0,
            max_iter=lbfgs_iters,
            tolerance_grad=1e-12,
            tolerance_change=0.0,
            history_size=50,
            line_search_fn="strong_wolfe",
        )

        def closure() -> torch.Tensor:
            lbfgs.zero_grad()
            loss = _objective(net, X, y, lam)
            loss.backward()
            return loss

        lbfgs.step(closure)
        _record(trace, gd_steps + lbfgs_iters, net, X, y, lam)
    return trace
