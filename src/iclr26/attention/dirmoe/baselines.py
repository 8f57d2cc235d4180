"""Baseline routers behind DirMoE's router interface (``forward(h) -> (gates, aux)``).

* :class:`TopKSoftmaxRouter`: ``p = softmax(W h)``; keep the top-k, renormalise (Mixtral / GShard); Switch
  load-balance loss ``E * sum_e f_e P_e`` (f_e = top-k assignments per token to e, P_e = mean p_e), weight 1e-2.
* :class:`NoisyTopKRouter` (Shazeer et al., 2017): ``H = W_g h + eps * softplus(W_n h)`` in training, softmax over
  the top-k of H; importance and load CV^2 losses (the load through the smooth normal-CDF estimator).
* :class:`ReLURouter` (ReMoE-style): ``g = relu(W h)`` with an L1 penalty whose weight adapts multiplicatively
  toward the target sparsity ``1 - k/E``.
* :class:`SoftMoE`: dense ``softmax(W h)`` over all experts (every expert runs; an upper bound on compute).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from iclr26.checks import check_float, check_tensor
from iclr26.lab.moe.router import Router
from iclr26.lab.moe.topk import TopKSoftmaxRouter, switch_balance_loss
from iclr26.lab.moe.topk import check_k as _check_k
from iclr26.lab.moe.topk import init_linear as _init

__all__ = ["NoisyTopKRouter", "ReLURouter", "SoftMoE", "TopKSoftmaxRouter", "switch_balance_loss"]


def _cv_squared(x: Tensor) -> Tensor:
    """Squared coefficient of variation ``var(x) / mean(x)^2`` (0 for a single expert)."""
    return x.float().var() / (x.float().mean() ** 2 + 1e-10)


class NoisyTopKRouter(Router):
    """Noisy top-k gating (Shazeer et al., 2017) with importance and load balancing losses."""

    def __init__(
        self, d_model: int, n_experts: int, k: int = 2, w_importance: float = 1e-2, w_load: float = 1e-2
    ) -> None:
        super().__init__(d_model, n_experts)
        self.k = _check_k(k, n_experts)
        self.w_importance = check_float("w_importance", w_importance, low=0.0)
        self.w_load = check_float("w_load", w_load, low=0.0)
        self.gate = nn.Linear(d_model, n_experts, bias=False)
        self.noise = nn.Linear(d_model, n_experts, bias=False)
        self.reset_parameters()

    def reset_parameters(self, generator: torch.Generator | None = None) -> None:
        """Gate weights ~ N(0, 0.1^2 / d_model); noise weights zero (softplus(0) noise scale at start)."""
        _init(self.gate, generator, 0.1)
        with torch.no_grad():
            self.noise.weight.zero_()

    def route(self, h: Tensor) -> tuple[Tensor, dict[str, Tensor]]:
        clean = self.gate(h)
        if self.training:
            std = F.softplus(self.noise(h)) + 1e-2
            noisy = clean + torch.randn_like(clean) * std
        else:
            std, noisy = None, clean
        top, idx = noisy.topk(min(self.k + 1, self.n_experts), dim=-1)
        kept = torch.full_like(noisy, float("-inf")).scatter(-1, idx[..., : self.k], top[..., : self.k])
        gates = torch.softmax(kept, dim=-1)
        importance = gates.reshape(-1, self.n_experts).sum(0)
        if std is not None and self.k < self.n_experts:
            # P(expert e stays in the top-k when its noise is redrawn), Shazeer et al. eq. (8-10)
            in_thresh, out_thresh = top[..., self.k : self.k + 1], top[..., self.k - 1 : self.k]
            is_in = noisy > in_thresh
            normal = torch.distributions.Normal(0.0, 1.0)
            prob = torch.where(
                is_in, normal.cdf((clean - in_thresh) / std), normal.cdf((clean - out_thresh) / std)
            )
            load = prob.reshape(-1, self.n_experts).sum(0)
        else:
            load = (gates > 0).reshape(-1, self.n_experts).sum(0).to(gates.dtype)
        loss = self.w_importance * _cv_squared(importance) + self.w_load * _cv_squared(load)
        aux = {
            "loss": loss,
            "importance": importance,
            "load": load,
            "expected_active": torch.full(h.shape[:-1], float(self.k), device=h.device),
        }
        return gates, aux


class ReLURouter(Router):
    """ReMoE-style ReLU routing: ``g = relu(W h)``, L1 weight adapted toward the target sparsity 1 - k/E.

    After each training forward, ``lambda <- lambda * step ** sign(target_sparsity - measured_sparsity)``
    (ReMoE's controller; default lambda_0 = 1e-8, step = 1.2).
    """

    def __init__(
        self, d_model: int, n_experts: int, k: int = 2, lambda_init: float = 1e-8, lambda_step: float = 1.2
    ) -> None:
        super().__init__(d_model, n_experts)
        self.k = _check_k(k, n_experts)
        check_float("lambda_init", lambda_init, low=0.0, low_open=True)
        check_float("lambda_step", lambda_step, low=1.0, low_open=True)
        self.lambda_step = float(lambda_step)
        self.target_sparsity = 1.0 - k / n_experts
        self.register_buffer("l1_weight", torch.tensor(float(lambda_init)))
        self.gate = nn.Linear(d_model, n_experts, bias=False)
        self.reset_parameters()

    def reset_parameters(self, generator: torch.Generator | None = None) -> None:
        """Gate weights ~ N(0, 1 / d_model)."""
        _init(self.gate, generator)

    def route(self, h: Tensor) -> tuple[Tensor, dict[str, Tensor]]:
        check_tensor("h", h, finite=True)  # relu would zero a -inf pre-activation and hide the bad input
        gates = F.relu(self.gate(h))
        l1 = gates.reshape(-1, self.n_experts).sum(-1).mean()
        active = (gates > 0).sum(-1).to(gates.dtype)
        weight = self.l1_weight.clone()
        loss = weight * l1
        if self.training:
            sparsity = 1.0 - float(active.mean()) / self.n_experts
            sign = (
                math.copysign(1.0, self.target_sparsity - sparsity) if sparsity != self.target_sparsity else 0
            )
            self.l1_weight.mul_(self.lambda_step**sign)
        return gates, {"loss": loss, "l1": l1, "l1_weight": weight, "expected_active": active}


class SoftMoE(Router):
    """Dense softmax routing: every expert runs with weight ``softmax(W h)_e`` (no auxiliary loss)."""

    def __init__(self, d_model: int, n_experts: int) -> None:
        super().__init__(d_model, n_experts)
        self.gate = nn.Linear(d_model, n_experts, bias=False)
        self.reset_parameters()

    def reset_parameters(self, generator: torch.Generator | None = None) -> None:
        """Gate weights ~ N(0, 0.1^2 / d_model)."""
        _init(self.gate, generator, 0.1)

    def route(self, h: Tensor) -> tuple[Tensor, dict[str, Tensor]]:
        gates = torch.softmax(self.gate(h), dim=-1)
        aux = {
            "loss": gates.new_zeros(()),
            "expected_active": torch.full(h.shape[:-1], float(self.n_experts), device=h.device),
        }
        return gates, aux
