"""Normalized gradient descent (NGD), the adaptive-step baseline of the SpecGD paper.

Paper: "How Muon's Spectral Design Benefits Generalization: A Study on Imbalanced Data" (arXiv 2510.22980).

Per parameter tensor, with ``D`` the gradient (or the momentum direction)::

    W <- W - lr * D / ||D||_F          (norm="fro")
    W <- W - lr * D / ||D||_2          (norm="spectral"; D viewed as a (shape[0], -1) matrix, a vector's is its
                                        Euclidean norm)

Unlike SpecGD it rescales the whole gradient but keeps its direction, so dominant singular directions still
move faster than weak ones. A zero gradient gives a zero step. Any tensor shape is accepted.

Example
-------
>>> import torch
>>> w = torch.nn.Parameter(torch.zeros(2, dtype=torch.float64))
>>> opt = NormalizedGD([w], lr=1.0)
>>> w.grad = torch.tensor([3.0, 4.0], dtype=torch.float64)
>>> _ = opt.step()
>>> w.data
tensor([-0.6000, -0.8000], dtype=torch.float64)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import torch

from iclr26.checks import check_choice, check_gradients, check_parameters, check_tensor
from iclr26.optim.specgd.spectral_gd import check_common, momentum_direction

__all__ = ["NormalizedGD", "gradient_norm"]

_NORMS = ("fro", "spectral")


def gradient_norm(d: torch.Tensor, norm: str = "fro") -> torch.Tensor:
    """Frobenius or spectral norm of `d` (float32 for low-precision inputs); see the module docstring."""
    check_choice("norm", norm, _NORMS)
    check_tensor("d", d, floating=True)
    work = d.to(torch.float64 if d.dtype == torch.float64 else torch.float32)
    if norm == "fro" or work.ndim < 2:
        return torch.linalg.vector_norm(work)
    return torch.linalg.matrix_norm(work.reshape(work.shape[0], -1), ord=2)


class NormalizedGD(torch.optim.Optimizer):
    """Gradient descent with the step divided by the gradient's norm (per parameter tensor).

    Parameters
    ----------
    params : iterable of parameters or of param-group dicts (hyperparameters may be set per group).
    lr : step size eta (> 0): the norm of every update.
    norm : ``"fro"`` (Frobenius) or ``"spectral"``.
    momentum, nesterov : heavy-ball momentum on the gradient before normalisation.
    weight_decay : decoupled weight decay.
    """

    def __init__(
        self,
        params: Iterable[torch.Tensor] | Iterable[dict[str, Any]],
        lr: float = 0.01,
        norm: str = "fro",
        momentum: float = 0.0,
        nesterov: bool = False,
        weight_decay: float = 0.0,
    ) -> None:
        defaults = dict(lr=lr, norm=norm, momentum=momentum, nesterov=nesterov, weight_decay=weight_decay)
        super().__init__(params, defaults)
        check_parameters(type(self).__name__, self.param_groups)

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group (hyperparameters default to the constructor's) and validate it."""
        super().add_param_group(param_group)
        group = self.param_groups[-1]
        check_common(group, "NormalizedGD")
        check_choice("NormalizedGD: norm", group["norm"], _NORMS)

    @torch.no_grad()
    def step(self, closure: Callable[[], float] | None = None) -> float | None:
        """One normalised step of every parameter that has a gradient; returns the closure's loss if given."""
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        check_gradients("NormalizedGD", self.param_groups)
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = p.grad
                direction = momentum_direction(grad, self.state[p], group["momentum"], group["nesterov"])
                size = gradient_norm(direction, group["norm"])
                scale = torch.where(size > 0, 1.0 / size, torch.zeros_like(size))  # zero gradient: no step
                if group["weight_decay"]:
                    p.mul_(1 - group["lr"] * group["weight_decay"])
                p.add_((direction * scale).to(p.dtype), alpha=-group["lr"])
        return loss
