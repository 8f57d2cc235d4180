"""DirMoE's router: Bernoulli selection x Dirichlet contribution (ICLR 2026, OpenReview a15cDnzr6r,
arXiv 2602.09001).

The functional pieces of the router; the class ``DirichletRouter`` is in
:mod:`iclr26.attention.dirmoe.dirichlet_router`. The paper's router (``variant="paper"``, the default): for a
token ``x`` and ``E`` experts, three linear heads give

    selection logits     l = W_l x + c_l,  pi = sigmoid(l)                     (which experts fire)
    slab concentrations  a_hi(x) = softplus(W_hi x + c_hi) + alpha_min          (how much, if selected)
    spike concentrations a_lo(x) = softplus(W_lo x + c_lo) + alpha_min          (how much, if not)

Training (differentiable):

    z~_e  = sigmoid((l_e + log u_e - log(1 - u_e)) / tau_z),  u_e ~ U(0, 1)          (RelaxedBernoulli.rsample)
    alpha^q = lambda^q (z~ a_hi(x) + (1 - z~) a_lo(x))                                (posterior, given z~)
    theta ~ Dir(alpha^q)                                                              (implicit reparameterisation)
    r_e   = z~_e theta_e / (sum_j z~_j theta_j + delta)                               (gate="product")

Loss per token, added to the LM loss (summed over MoE layers):
``recon_weight * ||D r + d - sg(x)||^2 / d_model + beta_theta KL(Dir(alpha^q) || Dir(alpha^p)) +
lambda_s (sum_e z~_e - k)^2`` with the spike-and-slab prior ``alpha^p = lambda^p (z~ abar_hi + (1 - z~) abar_lo)``
(:mod:`iclr26.attention.dirmoe.spike_slab`) and a linear decoder ``D`` from the routing vector back to the token.
Inference is deterministic and sparse: ``S = {e : pi_e > 0.5}`` (argmax pi if empty, optionally capped at
top-``k_max``), ``g_e = a_hi,e / sum_{j in S} a_hi,j`` on S (the posterior mean with the hard selection), 0 elsewhere.

``variant="abstract"`` is the earlier reconstruction from the abstract alone: one concentration head
``alpha = softplus(W_c x + c_c) + alpha_min``, ``theta ~ Dir(alpha)`` independent of z~, gates as above (or
``g ~ Dir(alpha * z~ + alpha_min)`` with ``gate="masked_alpha"``) and the regulariser
``kappa_z sum_e KL(Bern(pi_e) || Bern(pi_0)) + kappa_theta KL(Dir(alpha) || Dir(alpha_0)) + lambda_s (sum_e pi_e - k)^2``.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor
from torch.distributions import RelaxedBernoulli

from iclr26.checks import check_float, check_int, check_logits, check_tensor
from iclr26.lab.moe.router import TauSchedule

__all__ = [
    "bernoulli_kl",
    "combine_gates",
    "dirichlet_kl",
    "expected_active",
    "inference_gates",
    "inference_selection",
    "relaxed_selection",
    "sparsity_penalty",
]

GATES = ("product", "masked_alpha")
VARIANTS = ("paper", "abstract")
DEFAULT_TAU = TauSchedule()  # 1.0 -> 0.1 over the first 70% of training


def relaxed_selection(logits: Tensor, tau: float) -> Tensor:
    """Gumbel-sigmoid (binary Concrete) sample ``sigmoid((l + log u - log(1-u)) / tau)``, reparameterised.

    ``P(z~ > 0.5) = sigmoid(l)`` at every temperature; as ``tau -> 0`` the draws become binary.
    """
    check_logits("logits", logits)
    check_float("tau", tau, low=0.0, low_open=True)
    return relaxed_selection_unchecked(logits, tau)


def relaxed_selection_unchecked(logits: Tensor, tau: float) -> Tensor:
    return RelaxedBernoulli(
        torch.tensor(tau, dtype=logits.dtype, device=logits.device), logits=logits
    ).rsample()


def combine_gates(z: Tensor, theta: Tensor, delta: float = 1e-6) -> Tensor:
    """Product gate ``g_e = z_e theta_e / (sum_j z_j theta_j + delta)`` over the last axis."""
    check_tensor("z", z, floating=True)
    check_tensor("theta", theta, floating=True)
    if theta.shape != z.shape:
        raise ValueError(f"theta must have the shape of z {tuple(z.shape)}, got {tuple(theta.shape)}")
    check_float("delta", delta, low=0.0)
    return combine(z, theta, delta)


def combine(z: Tensor, theta: Tensor, delta: float) -> Tensor:
    w = z * theta
    return w / (w.sum(-1, keepdim=True) + delta)


def expected_active(pi: Tensor) -> Tensor:
    """Expected number of active experts per token, ``E[#active] = sum_e pi_e`` for independent Bernoullis.

    `pi` holds the selection probabilities ``sigmoid(l)`` with experts on the last axis.

    Examples
    --------
    >>> expected_active(torch.tensor([[0.5, 0.25, 0.25, 1.0]]))
    tensor([2.])
    """
    if not isinstance(pi, Tensor) or pi.ndim < 1:
        raise ValueError("pi must be a tensor with experts on the last axis")
    check_tensor("pi", pi, floating=True)
    if pi.numel() and not bool(((pi >= 0) & (pi <= 1)).all()):
        raise ValueError("pi must hold probabilities in [0, 1] (no NaN)")
    return pi.sum(-1)


def sparsity_penalty(pi: Tensor, k_target: float) -> Tensor:
    """Mean over tokens of ``(sum_e pi_e - k)^2``, the direct penalty on the expected number of active experts."""
    check_float("k_target", k_target, low=0.0)
    if isinstance(pi, Tensor) and pi.ndim >= 1 and pi.numel() == 0:
        raise ValueError(f"pi must hold at least one token, got shape {tuple(pi.shape)}")
    return ((expected_active(pi) - k_target) ** 2).mean()


def bernoulli_kl(pi: Tensor, pi0: float | Tensor) -> Tensor:
    """Closed-form ``KL(Bern(pi) || Bern(pi0)) = pi log(pi/pi0) + (1-pi) log((1-pi)/(1-pi0))`` elementwise."""
    check_tensor("pi", pi, floating=True)
    if pi.numel() and not bool(((pi >= 0) & (pi <= 1)).all()):
        raise ValueError("pi must hold probabilities in [0, 1] (no NaN)")
    _check_param("pi0", pi0, pi.shape, low=0.0, high=1.0)
    return bernoulli_kl_unchecked(pi, pi0)


def _check_param(
    name: str, value: float | Tensor, shape: torch.Size, low: float, high: float | None = None
) -> None:
    """A prior parameter: a number, or a tensor broadcastable to `shape`, strictly inside (low, high)."""
    if not isinstance(value, Tensor):
        check_float(name, value, low, high, low_open=True, high_open=high is not None)
        return
    check_tensor(name, value, floating=True)
    try:
        torch.broadcast_shapes(value.shape, shape)
    except RuntimeError:
        raise ValueError(f"{name} must broadcast to shape {tuple(shape)}, got {tuple(value.shape)}") from None
    inside = value > low if high is None else (value > low) & (value < high)
    if value.numel() and not bool(inside.all()):
        what = f"> {low:g}" if high is None else f"in ({low:g}, {high:g})"
        raise ValueError(f"{name} must hold values {what}")


def bernoulli_kl_unchecked(pi: Tensor, pi0: float | Tensor) -> Tensor:
    pi0 = torch.as_tensor(pi0, dtype=pi.dtype, device=pi.device)
    return (
        torch.xlogy(pi, pi) - pi * torch.log(pi0) + torch.xlogy(1 - pi, 1 - pi) - (1 - pi) * torch.log1p(-pi0)
    )


def dirichlet_kl(alpha: Tensor, alpha0: float | Tensor) -> Tensor:
    """Closed-form ``KL(Dir(alpha) || Dir(alpha0))`` over the last axis.

    ``log G(a0) - sum log G(a) - log G(b0) + sum log G(b) + sum (a - b)(psi(a) - psi(a0))``, with ``a0 = sum a``
    and ``b`` the prior concentrations (a scalar is broadcast).
    """
    check_tensor("alpha", alpha, floating=True)
    if alpha.ndim < 1 or (alpha.numel() and not bool((alpha > 0).all())):
        raise ValueError(
            f"alpha must be a (..., n_experts) tensor of concentrations > 0, got shape {tuple(alpha.shape)}"
        )
    _check_param("alpha0", alpha0, alpha.shape, low=0.0)
    if isinstance(alpha0, Tensor) and torch.broadcast_shapes(alpha0.shape, alpha.shape) != alpha.shape:
        raise ValueError(
            f"alpha0 must broadcast to alpha's shape {tuple(alpha.shape)}, got {tuple(alpha0.shape)}"
        )
    return dirichlet_kl_unchecked(alpha, alpha0)


def dirichlet_kl_unchecked(alpha: Tensor, alpha0: float | Tensor) -> Tensor:
    beta = torch.as_tensor(alpha0, dtype=alpha.dtype, device=alpha.device).expand_as(alpha)
    a0, b0 = alpha.sum(-1), beta.sum(-1)
    return (
        torch.lgamma(a0)
        - torch.lgamma(alpha).sum(-1)
        - torch.lgamma(b0)
        + torch.lgamma(beta).sum(-1)
        + ((alpha - beta) * (torch.digamma(alpha) - torch.digamma(a0).unsqueeze(-1))).sum(-1)
    )


def inference_gates(pi: Tensor, alpha: Tensor, k_max: int | None = None) -> Tensor:
    """Deterministic sparse gates: the Dirichlet mean renormalised on ``S = {pi > 0.5}`` (argmax if empty)."""
    check_tensor("pi", pi, floating=True)
    if pi.ndim < 1 or pi.shape[-1] < 1:
        raise ValueError(f"pi must be a (..., n_experts) tensor, got shape {tuple(pi.shape)}")
    check_tensor("alpha", alpha, floating=True)
    if alpha.shape != pi.shape:
        raise ValueError(f"alpha must have the shape of pi {tuple(pi.shape)}, got {tuple(alpha.shape)}")
    if pi.numel() and not bool(((pi >= 0) & (pi <= 1)).all()):
        raise ValueError("pi must hold probabilities in [0, 1] (no NaN)")
    if alpha.numel() and not bool(((alpha > 0) & torch.isfinite(alpha)).all()):
        raise ValueError("alpha must hold finite concentrations > 0")
    if k_max is not None:
        check_int("k_max", k_max, low=1)
    return inference_gates_unchecked(pi, alpha, k_max)


def inference_selection(pi: Tensor, k_max: int | None = None) -> Tensor:
    """The inference-time selected set ``S = {pi > 0.5}`` as a bool mask (argmax if empty, capped at top-`k_max`)."""
    check_tensor("pi", pi, floating=True)
    if pi.ndim < 1 or pi.shape[-1] < 1:
        raise ValueError(f"pi must be a (..., n_experts) tensor, got shape {tuple(pi.shape)}")
    if pi.numel() and not bool(((pi >= 0) & (pi <= 1)).all()):
        raise ValueError("pi must hold probabilities in [0, 1] (no NaN)")
    if k_max is not None:
        check_int("k_max", k_max, low=1)
    return selection_mask(pi, k_max)


def selection_mask(pi: Tensor, k_max: int | None) -> Tensor:
    selected = pi > 0.5
    top = F.one_hot(pi.argmax(-1), pi.shape[-1]).bool()
    selected = torch.where(selected.any(-1, keepdim=True), selected, top)
    if k_max is not None and k_max < pi.shape[-1]:
        keep = torch.zeros_like(selected).scatter_(-1, pi.topk(k_max, dim=-1).indices, True)
        selected = selected & keep
    return selected


def inference_gates_unchecked(pi: Tensor, alpha: Tensor, k_max: int | None) -> Tensor:
    w = torch.where(selection_mask(pi, k_max), alpha, torch.zeros_like(alpha))
    return w / w.sum(-1, keepdim=True)
