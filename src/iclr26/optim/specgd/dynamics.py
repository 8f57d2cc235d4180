"""Closed-form learning dynamics of GD and SpecGD on the noiseless orthogonal-means model.

Linear model ``f(x) = W x`` (``W``: K x d), population squared loss over the noiseless mixture
``L(W) = 1/2 sum_c pi_c ||W mu_c - e_c||^2`` with orthogonal means of norm ``a``; its gradient is
``(W M - I) Pi M^T`` (``M = [mu_1 .. mu_K]``, ``Pi = diag(pi)``). From ``W_0 = 0`` the iterates stay in
``span{e_c mu_c^T}``, so each class has one "learned amplitude" ``A_c(t) = (W_t mu_c)_c``:

* GD, step eta: ``1 - A_c(t+1) = (1 - eta pi_c a^2)(1 - A_c(t))``, so ``A_c(t) = 1 - (1 - eta pi_c a^2)^t``:
  the rate is proportional to the class prior (majority classes first).
* SpecGD, step eta: the gradient is ``-sum_c (1 - A_c) pi_c e_c mu_c^T``, whose polar factor is
  ``-sum_c sign(1 - A_c) e_c mu_c^T / a``, so ``A_c(t+1) = A_c(t) + eta a sign(1 - A_c(t))``: every class
  grows by ``eta a`` per step (``A_c(t) = eta a t`` until it reaches 1), whatever its prior. (A class whose
  residual singular value falls at or below ``rtol * s_max`` is frozen by SpecGD's cut-off; this formula
  ignores that edge case.)

Example
-------
>>> import torch
>>> amps = linear_dynamics_closed_form(torch.tensor([0.8, 0.2]), a=2.0, lr=0.1, steps=2, method="specgd")
>>> amps.tolist()
[[0.0, 0.0], [0.2, 0.2], [0.4, 0.4]]
"""

from __future__ import annotations

import torch

from iclr26.checks import check_float, check_int, check_tensor

__all__ = ["linear_dynamics_closed_form", "population_loss"]


def linear_dynamics_closed_form(
    priors: torch.Tensor, a: float, lr: float, steps: int, method: str = "gd"
) -> torch.Tensor:
    """Per-class learned amplitudes ``A_c(t)``, ``t = 0..steps``, from ``W_0 = 0`` (float64, (steps + 1, K)).

    Parameters
    ----------
    priors : (K,) class priors (positive).
    a : norm of every class mean; lr : step size eta; steps : number of steps.
    method : ``"gd"`` or ``"specgd"``.
    """
    if (
        priors is None
        or isinstance(priors, (str, bytes))
        or isinstance(priors, torch.Tensor)
        and (priors.is_complex() or priors.dtype == torch.bool)
    ):
        raise TypeError(f"priors must be a 1-D tensor of positive real values, got {priors!r}")
    priors = torch.as_tensor(priors, dtype=torch.float64)
    if priors.ndim != 1 or priors.numel() < 1 or bool((priors <= 0).any()):
        raise ValueError(f"priors must be a 1-D tensor of positive values, got {priors}")
    check_float("a (mean norm)", a, low=0.0, low_open=True, finite=False)
    check_float("lr (the step size eta)", lr, low=0.0, low_open=True, finite=False)
    check_int("steps", steps, low=0)
    t = torch.arange(steps + 1, dtype=torch.float64)[:, None]
    if method == "gd":
        return 1.0 - (1.0 - lr * priors * a**2)[None, :] ** t
    if method == "specgd":
        amps = torch.zeros(steps + 1, priors.numel(), dtype=torch.float64)
        for s in range(steps):
            amps[s + 1] = amps[s] + lr * a * torch.sign(1.0 - amps[s])
        return amps
    raise ValueError(f"method must be 'gd' or 'specgd', got {method!r}")


def population_loss(w: torch.Tensor, means: torch.Tensor, priors: torch.Tensor) -> torch.Tensor:
    """Noiseless population loss ``1/2 sum_c pi_c ||W mu_c - e_c||^2`` (means: (K, d), w: (K, d))."""
    check_tensor("w", w, ndim=2, floating=True)
    check_tensor("means (the shape of w)", means, floating=True, shape=tuple(w.shape))
    check_tensor("priors", priors, floating=True, shape=(w.shape[0],))
    residual = w @ means.T - torch.eye(means.shape[0], dtype=w.dtype)  # column c: W mu_c - e_c
    return 0.5 * (residual.pow(2) * priors[None, :]).sum()
