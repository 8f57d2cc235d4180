"""Exact enumeration of a tiny masked diffusion sampler: path marginals, exact twists, the optimal proposal.

For V tokens (plus the mask) and length L there are ``(V + 1)^L`` partly masked states; each reverse step of the
sampler is a ``S x S`` matrix over them. This gives the sampler's exact ``p_theta(x_0)``, the exact twists
``phi_k(x) = E[exp(r(x_0) / alpha) | x_{t_k} = x]`` and the locally optimal proposal
``q*(x_s | x_t) ∝ p_theta(x_s | x_t) phi_{k+1}(x_s)``, the oracles of the tests and of the smoke check.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import Tensor

from iclr26.checks import check_int, check_tensor, check_token_ids
from iclr26.lab.masked_diffusion import reverse_transition

from .smc import model_device, sample_categorical

__all__ = ["ExactSampler", "all_sequences", "enumerate_sampler"]


def all_sequences(n_symbols: int, length: int) -> Tensor:
    """Every sequence over ``range(n_symbols)`` of ``length`` in lexicographic order, (n_symbols^length, length).

    >>> all_sequences(2, 2).tolist()
    [[0, 0], [0, 1], [1, 0], [1, 1]]
    """
    return torch.tensor(list(itertools.product(range(n_symbols), repeat=length)), dtype=torch.long)


@dataclass
class ExactSampler:
    """The enumerated sampler. ``states`` (S, L) over ``{0..V}`` (V = mask); ``log_kernels[k]`` (S, S)."""

    states: Tensor
    log_kernels: list[Tensor]
    mask_id: int

    def __post_init__(self) -> None:
        check_int("mask_id", self.mask_id, low=1)
        check_tensor("states", self.states, ndim=2, floating=False)
        check_token_ids("states", self.states, self.mask_id + 1)
        n = self.states.shape[0]
        if not isinstance(self.log_kernels, (list, tuple)):
            raise TypeError(
                f"log_kernels must be a list of ({n}, {n}) tensors, got {type(self.log_kernels).__name__}"
            )
        for k, lk in enumerate(self.log_kernels):
            check_tensor(f"log_kernels[{k}]", lk, floating=True, shape=(n, n))

    @property
    def n_symbols(self) -> int:
        return self.mask_id + 1

    def index(self, x: Tensor) -> Tensor:
        """Row indices of the states ``x`` (B, L)."""
        powers = self.n_symbols ** torch.arange(x.shape[-1] - 1, -1, -1, device=x.device)
        return (x * powers).sum(-1)

    @property
    def clean(self) -> Tensor:
        """Boolean (S,) mask of the states free of the mask token."""
        return ~(self.states == self.mask_id).any(-1)

    def marginal(self) -> Tensor:
        """log p_theta(x_0) over the clean states (in the order of ``states[clean]``)."""
        dev = self.states.device
        start = self.index(torch.full((1, self.states.shape[1]), self.mask_id, device=dev))
        log_p = torch.full((self.states.shape[0],), -torch.inf, dtype=torch.float64, device=dev)
        log_p[start] = 0.0
        for lk in self.log_kernels:
            log_p = torch.logsumexp(log_p[:, None] + lk, 0)
        return log_p[self.clean]

    def log_twists(self, log_terminal: Tensor) -> list[Tensor]:
        """Exact ``log phi_k`` (S,) for ``k = 0..K`` from ``log phi_K`` = ``log_terminal`` on the clean states."""
        h = torch.full((self.states.shape[0],), -torch.inf, dtype=torch.float64, device=self.states.device)
        h[self.clean] = log_terminal.double()
        out = [h]
        for lk in reversed(self.log_kernels):
            h = torch.logsumexp(lk + h[None, :], 1)
            out.append(h)
        return out[::-1]

    def twist_fn(self, log_twists: list[Tensor]) -> Callable[[Tensor, int], Tensor]:
        """``(x_t, k) -> log phi_k(x_t)`` for :func:`smc_sample`'s ``log_twist_fn``."""
        return lambda x, k: log_twists[k][self.index(x)]

    def optimal_proposal(self, log_twists: list[Tensor]) -> Callable:
        """The locally optimal proposal ``q*(x_s | x_t) ∝ p(x_s | x_t) phi_{k+1}(x_s)`` as a proposal callable."""

        def propose(x_t: Tensor, k: int, base_logq: Tensor, generator: torch.Generator | None = None):
            rows = self.log_kernels[k][self.index(x_t)] + log_twists[k + 1][None, :]
            logq = rows - torch.logsumexp(rows, -1, keepdim=True)
            j = sample_categorical(logq, generator)
            return self.states[j], logq.gather(-1, j[:, None]).squeeze(-1)

        return propose


@torch.no_grad()
def enumerate_sampler(
    model: Callable[[Tensor], Tensor], seq_len: int, steps: int, schedule: str = "linear"
) -> ExactSampler:
    """Enumerate the ``steps``-step ancestral sampler of ``model`` over all ``(V + 1)^L`` states."""
    mask_id = int(model.mask_id)
    states = all_sequences(mask_id + 1, seq_len).to(model_device(model))  # on the model's device
    logits = model(states).double()
    kernels = []
    for k in range(steps):
        t, s = 1.0 - k / steps, max(1.0 - (k + 1) / steps, 0.0)
        lq = reverse_transition(logits, states, t, s, mask_id, schedule)  # (S, L, V)
        lk = torch.zeros(states.shape[0], states.shape[0], dtype=torch.float64, device=states.device)
        for pos in range(seq_len):
            lk = lk + lq[:, pos, :][:, states[:, pos]]
        kernels.append(lk)
    return ExactSampler(states, kernels, mask_id)
