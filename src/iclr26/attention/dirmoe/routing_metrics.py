"""What the DirMoE reproduction measures about a router: specialisation, sparsity and load.

* specialisation: normalised mutual information between a token's (hidden) domain and the *set* of experts it
  was routed to (each set encoded as one label), at token level, per MoE layer;
* active experts per token (non-zero gates at inference) and its distribution;
* load entropy: the entropy of the share of selections each expert receives, divided by log E (1 = balanced);
* the domain x expert selection-frequency matrix (the routing heatmap).
"""

from __future__ import annotations

import math

import numpy as np
import torch
from sklearn.metrics import normalized_mutual_info_score
from torch import Tensor

__all__ = ["active_histogram", "expert_sets", "load_entropy", "routing_heatmap", "set_nmi"]


def expert_sets(gates: Tensor) -> Tensor:
    """One integer label per token: the bitmask of the experts with a non-zero gate, (...,) from (..., E)."""
    bits = 2 ** torch.arange(gates.shape[-1], device=gates.device)
    return ((gates != 0).long() * bits).sum(-1)


def set_nmi(domains: Tensor, gates: Tensor) -> float:
    """NMI (arithmetic normalisation) between token domains (...,) and selected expert sets (..., E)."""
    return float(
        normalized_mutual_info_score(domains.reshape(-1).numpy(), expert_sets(gates).reshape(-1).numpy())
    )


def load_entropy(gates: Tensor) -> float:
    """Entropy of the experts' shares of all selections, normalised by log E."""
    counts = (gates != 0).reshape(-1, gates.shape[-1]).double().sum(0)
    p = counts / counts.sum()
    h = -float(torch.xlogy(p, p).sum())
    return h / math.log(gates.shape[-1])


def routing_heatmap(domains: Tensor, gates: Tensor, n_domains: int) -> np.ndarray:
    """P(expert e selected | domain d), an (n_domains, E) array."""
    sel = (gates != 0).reshape(-1, gates.shape[-1]).double()
    dom = domains.reshape(-1)
    out = torch.zeros(n_domains, gates.shape[-1], dtype=torch.float64).index_add_(0, dom, sel)
    n = torch.bincount(dom, minlength=n_domains).clamp_min(1).double()
    return (out / n[:, None]).numpy()


def active_histogram(gates: Tensor) -> list[float]:
    """Fraction of tokens with 0, 1, ..., E active experts."""
    n_active = (gates != 0).sum(-1).reshape(-1)
    counts = torch.bincount(n_active, minlength=gates.shape[-1] + 1).double()
    return (counts / counts.sum()).tolist()
