"""Spectral gradient descent (SpecGD) as a ``torch.optim.Optimizer``.

Paper: "How Muon's Spectral Design Benefits Generalization: A Study on Imbalanced Data" (arXiv 2510.22980,
OpenReview YzjS4jcfmS, ICLR 2026).

For a matrix parameter ``W`` with gradient ``G = U S V^T``::

    W <- W - lr * U V^T                     (mode="svd": exact polar factor, s <= rtol * s_max dropped)
    W <- W - lr * NS5(G)                    (mode="ns": Muon's Newton-Schulz approximation)

With ``momentum > 0`` the direction is taken from ``B <- momentum * B + G`` (or ``G + momentum * B`` with
``nesterov=True``), which with ``mode="ns"`` is Muon's update. Decoupled weight decay multiplies ``W`` by
``1 - lr * weight_decay`` first.

Parameters that are not 2-D (biases, norm gains), and whole groups marked ``spectral=False`` (embeddings, the
output head), are not orthogonalized: they are rejected unless the group names a ``fallback`` rule,
``"adamw"`` (AdamW with ``fallback_lr``, ``betas``, ``eps``) or ``"sgd"`` (SGD with the group's momentum and
``fallback_lr``). ``fallback_lr=None`` means ``lr``.

Example
-------
>>> import torch
>>> w = torch.nn.Parameter(torch.zeros(2, 3, dtype=torch.float64))
>>> opt = SpectralGD([w], lr=0.1)
>>> w.grad = torch.tensor([[2.0, 0.0, 0.0], [0.0, 0.0, 5.0]], dtype=torch.float64)
>>> _ = opt.step()
>>> w.data
tensor([[-0.1000,  0.0000,  0.0000],
        [ 0.0000,  0.0000, -0.1000]], dtype=torch.float64)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import torch

from iclr26.checks import check_choice, check_float, check_gradients, check_int, check_parameters
from iclr26.optim.specgd.orthogonalize import orthogonalize_ns, orthogonalize_svd

__all__ = ["SpectralGD"]

_MODES = ("svd", "ns")
_FALLBACKS = (None, "adamw", "sgd")


def check_common(group: dict[str, Any], optimizer: str) -> None:
    """Validate the hyperparameters SpectralGD and NormalizedGD share (lr, momentum, nesterov, weight_decay)."""
    try:
        check_float("lr (the step size eta)", group["lr"], low=0.0, low_open=True)
        check_float("momentum", group["momentum"], 0.0, 1.0, high_open=True)
        check_float("weight_decay", group["weight_decay"], low=0.0)
    except ValueError as err:
        raise ValueError(f"{optimizer}: {err}") from None
    if group["nesterov"] and group["momentum"] <= 0:
        raise ValueError(f"{optimizer}: nesterov=True needs momentum > 0, got momentum={group['momentum']}")


def momentum_direction(
    grad: torch.Tensor, state: dict[str, Any], momentum: float, nesterov: bool
) -> torch.Tensor:
    """Heavy-ball buffer ``B <- mu B + G``; returns ``B`` (or ``G + mu B`` with Nesterov), or `grad` if mu = 0."""
    if momentum == 0:
        return grad
    if "momentum_buffer" not in state:
        state["momentum_buffer"] = torch.zeros_like(grad, memory_format=torch.preserve_format)
    buf = state["momentum_buffer"]
    buf.mul_(momentum).add_(grad)
    return grad.add(buf, alpha=momentum) if nesterov else buf


class SpectralGD(torch.optim.Optimizer):
    """Spectral gradient descent: step along the polar factor ``U V^T`` of each matrix's gradient.

    Parameters
    ----------
    params : iterable of parameters or of param-group dicts (every hyperparameter below may be set per group).
    lr : step size eta (> 0); the spectral norm of every matrix update is exactly ``lr`` in ``svd`` mode.
    mode : ``"svd"`` (exact, ``torch.linalg.svd``) or ``"ns"`` (Muon's 5-step Newton-Schulz).
    momentum : heavy-ball momentum in [0, 1) applied to the gradient before orthogonalization.
    nesterov : use ``G + momentum * B`` instead of ``B``.
    rtol : in ``svd`` mode, singular values ``<= rtol * s_max`` are dropped (in (0, 1)).
    ns_steps : Newton-Schulz iterations in ``ns`` mode.
    weight_decay : decoupled weight decay (also applied by the fallback rules).
    spectral : when False, every parameter of the group uses the fallback rule.
    fallback : ``None`` (non-matrix parameters are an error), ``"adamw"`` or ``"sgd"``.
    fallback_lr : step size of the fallback rule (``None``: ``lr``).
    betas, eps : AdamW constants of the ``"adamw"`` fallback.

    Example
    -------
    >>> import torch
    >>> model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
    >>> matrices = [p for p in model.parameters() if p.ndim == 2]
    >>> others = [p for p in model.parameters() if p.ndim != 2]
    >>> opt = SpectralGD([{"params": matrices}, {"params": others, "spectral": False}],
    ...                  lr=0.02, momentum=0.9, fallback="adamw", fallback_lr=1e-3)
    >>> model(torch.randn(16, 4)).pow(2).mean().backward()
    >>> _ = opt.step()
    """

    def __init__(
        self,
        params: Iterable[torch.Tensor] | Iterable[dict[str, Any]],
        lr: float = 0.02,
        mode: str = "svd",
        momentum: float = 0.0,
        nesterov: bool = False,
        rtol: float = 1e-7,
        ns_steps: int = 5,
        weight_decay: float = 0.0,
        spectral: bool = True,
        fallback: str | None = None,
        fallback_lr: float | None = None,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
    ) -> None:
        defaults = dict(
            lr=lr,
            mode=mode,
            momentum=momentum,
            nesterov=nesterov,
            rtol=rtol,
            ns_steps=ns_steps,
            weight_decay=weight_decay,
            spectral=spectral,
            fallback=fallback,
            fallback_lr=fallback_lr,
            betas=betas,
            eps=eps,
        )
        super().__init__(params, defaults)
        check_parameters(type(self).__name__, self.param_groups)

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group (hyperparameters default to the constructor's) and validate it."""
        super().add_param_group(param_group)
        self._validate(self.param_groups[-1])

    @staticmethod
    def _validate(group: dict[str, Any]) -> None:
        check_common(group, "SpectralGD")
        check_choice("SpectralGD: mode", group["mode"], _MODES)
        try:
            check_float("rtol", group["rtol"], 0.0, 1.0, low_open=True, high_open=True)
            check_int("ns_steps", group["ns_steps"], low=1)
            check_choice("fallback", group["fallback"], _FALLBACKS)
            if group["fallback_lr"] is not None:
                check_float("fallback_lr", group["fallback_lr"], low=0.0, low_open=True)
            betas = group["betas"]
            if not isinstance(betas, (tuple, list)) or len(betas) != 2:
                raise ValueError(f"betas must be a pair (beta1, beta2), got {betas!r}")
            for i, beta in enumerate(betas):
                check_float(f"betas[{i}]", beta, 0.0, 1.0, high_open=True)
            check_float("eps", group["eps"], low=0.0, low_open=True)
        except ValueError as err:
            raise ValueError(f"SpectralGD: {err}") from None
        if group["fallback"] is None:
            for p in group["params"]:
                if not group["spectral"] or p.ndim != 2:
                    why = f"is {p.ndim}-D, not 2-D" if group["spectral"] else "is in a spectral=False group"
                    raise ValueError(
                        f"SpectralGD: a parameter of shape {tuple(p.shape)} {why}; pass fallback='adamw' or "
                        "fallback='sgd' (for example in its own param group) to route non-matrix parameters"
                    )

    @torch.no_grad()
    def step(self, closure: Callable[[], float] | None = None) -> float | None:
        """One update of every parameter that has a gradient; returns the closure's loss if given."""
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        check_gradients("SpectralGD", self.param_groups)
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = p.grad
                if group["spectral"] and p.ndim == 2:
                    self._spectral_update(p, grad, group)
                elif group["fallback"] == "adamw":
                    self._adamw_update(p, grad, group)
                else:
                    self._sgd_update(p, grad, group)
        return loss

    def _spectral_update(self, p: torch.Tensor, grad: torch.Tensor, group: dict[str, Any]) -> None:
        direction = momentum_direction(grad, self.state[p], group["momentum"], group["nesterov"])
        if group["mode"] == "svd":
            ortho = orthogonalize_svd(direction, group["rtol"])  # U V^T
        else:
            ortho = orthogonalize_ns(direction, group["ns_steps"])  # ~ U V^T
        if group["weight_decay"]:
            p.mul_(1 - group["lr"] * group["weight_decay"])
        p.add_(ortho, alpha=-group["lr"])

    @staticmethod
    def _fallback_lr(group: dict[str, Any]) -> float:
        return group["lr"] if group["fallback_lr"] is None else group["fallback_lr"]

    def _sgd_update(self, p: torch.Tensor, grad: torch.Tensor, group: dict[str, Any]) -> None:
        lr = self._fallback_lr(group)
        direction = momentum_direction(grad, self.state[p], group["momentum"], group["nesterov"])
        if group["weight_decay"]:
            p.mul_(1 - lr * group["weight_decay"])
        p.add_(direction, alpha=-lr)

    def _adamw_update(self, p: torch.Tensor, grad: torch.Tensor, group: dict[str, Any]) -> None:
        lr = self._fallback_lr(group)
        beta1, beta2 = group["betas"]
        state = self.state[p]
        if "exp_avg" not in state:
            state["step"] = 0
            state["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
            state["exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)
        state["step"] += 1
        t = state["step"]
        m, v = state["exp_avg"], state["exp_avg_sq"]
        m.lerp_(grad, 1 - beta1)  # m <- beta1 m + (1 - beta1) g
        v.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)  # v <- beta2 v + (1 - beta2) g^2
        if group["weight_decay"]:
            p.mul_(1 - lr * group["weight_decay"])
        denom = (v / (1 - beta2**t)).sqrt_().add_(group["eps"])
        p.addcdiv_(m, denom, value=-lr / (1 - beta1**t))
