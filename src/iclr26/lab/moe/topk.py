"""Top-k softmax routing with the Switch-Transformer load-balance loss: the standard MoE router, shared by the
papers that build mixtures of experts on :class:`iclr26.lab.moe.MoEFFN`."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from iclr26.checks import check_float, check_int, check_tensor, check_token_ids
from iclr26.lab.moe.router import Router

__all__ = ["TopKSoftmaxRouter", "check_k", "init_linear", "switch_balance_loss"]


def check_k(k: int, n_experts: int) -> int:
    check_int("k", k, low=1)
    if k >= n_experts:
        raise ValueError(f"k must be < n_experts={n_experts}, got {k}")
    return k


def init_linear(lin: nn.Linear, generator: torch.Generator | None, scale: float = 1.0) -> None:
    with torch.no_grad():
        lin.weight.normal_(0.0, scale * lin.in_features**-0.5, generator=generator)
        if lin.bias is not None:
            lin.bias.zero_()


def switch_balance_loss(probs: Tensor, indices: Tensor, n_experts: int) -> Tensor:
    """Switch-Transformer balance loss ``E * sum_e f_e P_e`` over all tokens (Mixtral's normalisation).

    `probs` (..., E) are the full softmax probabilities; `indices` (..., k) the selected experts; ``f_e`` counts
    top-k assignments per token (so it sums to k), ``P_e`` is the mean probability.
    """
    check_int("n_experts", n_experts, low=1)
    check_tensor("probs", probs, floating=True)
    if probs.ndim < 1 or probs.shape[-1] != n_experts or probs.numel() == 0:
        raise ValueError(
            f"probs must be a non-empty (..., n_experts={n_experts}) tensor, got shape {tuple(probs.shape)}"
        )
    check_token_ids("indices", indices, n_experts)
    n_tokens = probs.numel() // n_experts
    if indices.numel() == 0 or indices.ndim < 1 or indices.numel() // indices.shape[-1] != n_tokens:
        raise ValueError(
            f"indices (..., k) must hold k >= 1 expert ids for each of the {n_tokens} tokens of probs (shape "
            f"{tuple(probs.shape)}), got shape {tuple(indices.shape)}"
        )
    return _switch_balance(probs, indices, n_experts)


def _switch_balance(probs: Tensor, indices: Tensor, n_experts: int) -> Tensor:
    p = probs.reshape(-1, n_experts)
    f = F.one_hot(indices.reshape(p.shape[0], -1), n_experts).sum(1).to(p.dtype).mean(0)
    return n_experts * (f * p.mean(0)).sum()


class TopKSoftmaxRouter(Router):
    """Top-k softmax routing with renormalised weights and the Switch load-balance loss.

    Examples
    --------
    >>> r = TopKSoftmaxRouter(8, 4, k=2)
    >>> g, aux = r(torch.randn(5, 8))
    >>> int((g > 0).sum(-1).max()), bool(torch.allclose(g.sum(-1), torch.ones(5)))
    (2, True)
    """

    def __init__(self, d_model: int, n_experts: int, k: int = 2, balance_coef: float = 1e-2) -> None:
        super().__init__(d_model, n_experts)
        self.k = check_k(k, n_experts)
        check_float("balance_coef", balance_coef, low=0.0)
        self.balance_coef = float(balance_coef)
        self.gate = nn.Linear(d_model, n_experts, bias=False)
        self.reset_parameters()

    def reset_parameters(self, generator: torch.Generator | None = None) -> None:
        """Gate weights ~ N(0, 0.1^2 / d_model)."""
        init_linear(self.gate, generator, 0.1)

    def route(self, h: Tensor) -> tuple[Tensor, dict[str, Tensor]]:
        logits = self.gate(h)
        probs = torch.softmax(logits, dim=-1)
        top, idx = probs.topk(self.k, dim=-1)
        gates = torch.zeros_like(probs).scatter(-1, idx, top / top.sum(-1, keepdim=True))
        balance = _switch_balance(probs, idx, self.n_experts)
        aux = {
            "loss": self.balance_coef * balance,
            "balance": balance,
            "expected_active": torch.full(h.shape[:-1], float(self.k), device=h.device),
            "probs": probs,
            "logits": logits,
        }
        return gates, aux
