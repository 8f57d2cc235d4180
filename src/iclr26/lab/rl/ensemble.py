"""N copies of a network as one stacked module, evaluated with ``vmap`` over ``functional_call``."""

from __future__ import annotations

import copy
from collections.abc import Sequence

import torch
from torch import nn
from torch.func import functional_call, stack_module_state

__all__ = ["Ensemble"]


class Ensemble(nn.Module):
    """Stack ``members`` (same architecture) into one module whose parameters have a leading member axis.

    ``ensemble(x)`` maps ``x`` of shape (N, batch, ...) to (N, batch, ...out), member ``i`` applied to ``x[i]``
    (pass ``shared_input=True`` to apply every member to the same (batch, ...) input). The stacked tensors are
    ordinary parameters (``ensemble.parameters()``), so one Adam/AdamW/SGD optimizer over them performs the N
    independent updates exactly (these optimizers act element-wise; a global-norm gradient clip would not, use
    :meth:`clip_grad_norm_` for per-member clipping). :meth:`member` rebuilds member ``i`` as a normal module, and
    :meth:`load_member` writes one back.
    """

    def __init__(self, members: Sequence[nn.Module]) -> None:
        super().__init__()
        members = list(members)
        if not members:
            raise ValueError("members must hold at least one module")
        names = [sorted(n for n, _ in m.named_parameters()) for m in members]
        if any(n != names[0] for n in names):
            raise ValueError("members must share one architecture (same parameter names)")
        params, buffers = stack_module_state(members)
        self.n = len(members)
        self._names = list(params)
        self.stacked = nn.ParameterList([nn.Parameter(params[k].detach().clone()) for k in self._names])
        self._buffer_names = list(buffers)
        for i, k in enumerate(self._buffer_names):
            self.register_buffer(f"_buf{i}", buffers[k].detach().clone())
        base = copy.deepcopy(members[0]).to("meta")
        object.__setattr__(self, "_base", base)  # not a submodule: holds no real parameters

    def _state(self) -> tuple[dict[str, torch.Tensor], dict[str, torch.Tensor]]:
        params = dict(zip(self._names, self.stacked))
        buffers = {k: getattr(self, f"_buf{i}") for i, k in enumerate(self._buffer_names)}
        return params, buffers

    def named_stacked(self) -> dict[str, nn.Parameter]:
        """The stacked (N, ...) parameters by the members' parameter names."""
        return dict(zip(self._names, self.stacked))

    def forward(self, x: torch.Tensor, shared_input: bool = False) -> torch.Tensor:
        params, buffers = self._state()

        def one(p, b, xi):
            return functional_call(self._base, (p, b), (xi,))

        in_dims = (0, 0, None if shared_input else 0)
        if not shared_input and x.shape[0] != self.n:
            raise ValueError(
                f"x must have a leading member axis of size {self.n}, got shape {tuple(x.shape)}"
            )
        return torch.vmap(one, in_dims=in_dims, randomness="different")(params, buffers, x)

    def member(self, i: int) -> nn.Module:
        """Member ``i`` as a standalone module (a copy)."""
        if not 0 <= i < self.n:
            raise ValueError(f"i must lie in [0, {self.n}), got {i}")
        module = copy.deepcopy(self._base).to_empty(device=self.stacked[0].device)
        params, buffers = self._state()
        state = {k: v[i].detach().clone() for k, v in (params | buffers).items()}
        module.load_state_dict(state)
        return module

    @torch.no_grad()
    def load_member(self, i: int, module: nn.Module) -> None:
        """Overwrite member ``i`` with ``module``'s parameters and buffers."""
        state = module.state_dict()
        params, buffers = self._state()
        for k, v in (params | buffers).items():
            v[i].copy_(state[k])

    @torch.no_grad()
    def clip_grad_norm_(self, max_norm: float) -> torch.Tensor:
        """Clip each member's gradient to global norm ``max_norm`` separately; returns the (N,) norms."""
        grads = [p.grad for p in self.stacked if p.grad is not None]
        if not grads:
            return torch.zeros(self.n)
        norms = torch.stack([g.flatten(1).square().sum(1) for g in grads]).sum(0).sqrt()
        factor = (max_norm / (norms + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(factor.view(-1, *([1] * (g.ndim - 1))))
        return norms
