"""DirMoE's router: Bernoulli selection x Dirichlet contribution (ICLR 2026, OpenReview a15cDnzr6r).

For a token ``h`` and ``E`` experts, two linear heads give

    selection logits   l = W_s h + c_s,            pi = sigmoid(l)          (which experts fire)
    concentrations     alpha = softplus(W_c h + c_c) + alpha_min            (how much each contributes)

Training (differentiable):

    z~_e  = sigmoid((l_e + log u_e - log(1 - u_e)) / tau),  u_e ~ U(0, 1)   (RelaxedBernoulli.rsample)
    theta ~ Dir(alpha)                                                       (Dirichlet.rsample, implicit grads)
    g_e   = z~_e theta_e / (sum_j z~_j theta_j + delta)                      (gate="product")
      or  g ~ Dir(alpha * z~ + eps)                                          (gate="masked_alpha")

ELBO regulariser per token:
``kappa_z sum_e KL(Bern(pi_e) || Bern(pi_0)) + kappa_theta KL(Dir(alpha) || Dir(alpha_0)) + lambda_s (sum_e pi_e - k)^2``
with ``E[#active] = sum_e pi_e``. Inference is deterministic and sparse: ``S = {e : pi_e > 0.5}`` (argmax pi if
empty, optionally capped at top-``k_max``), ``g_e = alpha_e / sum_{j in S} alpha_j`` on S, 0 elsewhere.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.distributions import Dirichlet, RelaxedBernoulli

from iclr26.checks import check_float, check_int, check_tensor
from iclr26.lab.moe.router import LinearRamp, Router, TauSchedule, as_tau_schedule

__all__ = [
    "DirichletRouter",
    "bernoulli_kl",
    "combine_gates",
    "dirichlet_kl",
    "expected_active",
    "inference_gates",
    "relaxed_selection",
    "sparsity_penalty",
]

GATES = ("product", "masked_alpha")
DEFAULT_TAU = TauSchedule()  # 1.0 -> 0.1 over the first 70% of training


def relaxed_selection(logits: Tensor, tau: float) -> Tensor:
    """Gumbel-sigmoid (binary Concrete) sample ``sigmoid((l + log u - log(1-u)) / tau)``, reparameterised.

    ``P(z~ > 0.5) = sigmoid(l)`` at every temperature; as ``tau -> 0`` the draws become binary.
    """
    check_tensor("logits", logits, floating=True)
    check_float("tau", tau, low=0.0, low_open=True)
    return RelaxedBernoulli(
        torch.tensor(tau, dtype=logits.dtype, device=logits.device), logits=logits
    ).rsample()


def combine_gates(z: Tensor, theta: Tensor, delta: float = 1e-6) -> Tensor:
    """Product gate ``g_e = z_e theta_e / (sum_j z_j theta_j + delta)`` over the last axis."""
    check_tensor("z", z, floating=True)
    check_tensor("theta", theta, floating=True, shape=z.shape)
    check_float("delta", delta, low=0.0)
    return _combine(z, theta, delta)


def _combine(z: Tensor, theta: Tensor, delta: float) -> Tensor:
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
    return _bernoulli_kl(pi, pi0)


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


def _bernoulli_kl(pi: Tensor, pi0: float | Tensor) -> Tensor:
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
    return _dirichlet_kl(alpha, alpha0)


def _dirichlet_kl(alpha: Tensor, alpha0: float | Tensor) -> Tensor:
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
    check_tensor("alpha", alpha, floating=True, shape=pi.shape)
    if pi.numel() and not bool(((pi >= 0) & (pi <= 1)).all()):
        raise ValueError("pi must hold probabilities in [0, 1] (no NaN)")
    if alpha.numel() and not bool((alpha > 0).all()):
        raise ValueError("alpha must hold concentrations > 0")
    if k_max is not None:
        check_int("k_max", k_max, low=1)
    return _inference_gates(pi, alpha, k_max)


def _inference_gates(pi: Tensor, alpha: Tensor, k_max: int | None) -> Tensor:
    selected = pi > 0.5
    top = F.one_hot(pi.argmax(-1), pi.shape[-1]).bool()
    selected = torch.where(selected.any(-1, keepdim=True), selected, top)
    if k_max is not None and k_max < pi.shape[-1]:
        keep = torch.zeros_like(selected).scatter_(-1, pi.topk(k_max, dim=-1).indices, True)
        selected = selected & keep
    w = torch.where(selected, alpha, torch.zeros_like(alpha))
    return w / w.sum(-1, keepdim=True)


class DirichletRouter(Router):
    """DirMoE router: a Bernoulli head decides which experts fire, a Dirichlet head how much each contributes.

    Parameters
    ----------
    d_model, n_experts : token width and number of experts E.
    k_target : target expected number of active experts, 0 < k < E.
    tau_schedule : Gumbel-sigmoid temperature, a :class:`TauSchedule` (default 1.0 -> 0.1 over 70% of training)
        or a constant float.
    alpha_min : floor added to the concentrations (chosen 1e-2).
    gate : ``"product"`` (``z theta`` renormalised) or ``"masked_alpha"`` (``Dir(alpha z + alpha_min)``).
    kappa_z, kappa_theta, lambda_s : weights of the Bernoulli KL, the Dirichlet KL and the sparsity penalty.
    prior_pi : Bernoulli prior pi_0 (default k/E); prior_alpha : symmetric Dirichlet prior alpha_0 (default 1).
    warmup_frac : the KL weights and lambda_s ramp linearly from 0 over this fraction of training.
    k_max : optional cap on the number of experts selected at inference.
    straight_through : hard 0/1 selection forward, relaxed gradient backward (gives exact zeros in training).
    delta : the constant in the product gate's denominator.

    ``forward(h)`` returns ``(gates, aux)`` with aux keys ``loss, kl_z, kl_theta, sparsity, expected_active, pi,
    alpha, tau``. In ``train()`` mode gates are sampled; in ``eval()`` mode they are the sparse deterministic ones.

    Examples
    --------
    >>> r = DirichletRouter(16, 8, k_target=2).eval()
    >>> g, aux = r(torch.randn(3, 5, 16))
    >>> g.shape, aux["expected_active"].shape
    (torch.Size([3, 5, 8]), torch.Size([3, 5]))
    >>> bool(torch.allclose(g.sum(-1), torch.ones(3, 5)))
    True
    """

    def __init__(
        self,
        d_model: int,
        n_experts: int,
        k_target: float,
        tau_schedule: TauSchedule | float | Callable[[float], float] = DEFAULT_TAU,
        *,
        alpha_min: float = 1e-2,
        gate: str = "product",
        kappa_z: float = 1e-3,
        kappa_theta: float = 1e-3,
        lambda_s: float = 1e-2,
        prior_pi: float | None = None,
        prior_alpha: float = 1.0,
        warmup_frac: float = 0.1,
        k_max: int | None = None,
        straight_through: bool = False,
        delta: float = 1e-6,
    ) -> None:
        super().__init__(d_model, n_experts)
        if isinstance(k_target, bool) or not isinstance(k_target, (int, float)):
            raise TypeError(f"k_target must be a number, got {type(k_target).__name__}")
        if not 0 < k_target < self.n_experts:
            raise ValueError(f"k_target must satisfy 0 < k_target < n_experts={n_experts}, got {k_target!r}")
        if gate not in GATES:
            raise ValueError(f"gate must be one of {GATES}, got {gate!r}")
        for name, value in (("kappa_z", kappa_z), ("kappa_theta", kappa_theta), ("lambda_s", lambda_s)):
            check_float(name, value, low=0.0)
        self.k_target = float(k_target)
        self.tau_schedule = as_tau_schedule(tau_schedule)
        self.tau_schedule(0.0)
        self.alpha_min = check_float("alpha_min", alpha_min, low=0.0, low_open=True)
        self.gate = gate
        self.kappa_z, self.kappa_theta, self.lambda_s = float(kappa_z), float(kappa_theta), float(lambda_s)
        self.prior_pi = (
            k_target / n_experts
            if prior_pi is None
            else check_float("prior_pi", prior_pi, 0.0, 1.0, low_open=True, high_open=True)
        )
        self.prior_alpha = check_float("prior_alpha", prior_alpha, low=0.0, low_open=True)
        self.ramp = LinearRamp(warmup_frac)
        self.k_max = None if k_max is None else check_int("k_max", k_max, low=1, high=n_experts)
        self.straight_through = bool(straight_through)
        self.delta = check_float("delta", delta, low=0.0, low_open=True)
        self.selection = nn.Linear(d_model, n_experts)
        self.concentration = nn.Linear(d_model, n_experts)
        self.reset_parameters()

    def reset_parameters(self, generator: torch.Generator | None = None) -> None:
        """Weights ~ N(0, 0.1^2 / d_model); selection bias at logit(k/E) so that sum pi starts at k."""
        with torch.no_grad():
            for lin in (self.selection, self.concentration):
                lin.weight.normal_(0.0, 0.1 * self.d_model**-0.5, generator=generator)
            p = self.k_target / self.n_experts
            self.selection.bias.fill_(float(torch.logit(torch.tensor(p))))
            self.concentration.bias.zero_()

    @property
    def tau(self) -> float:
        """The Gumbel-sigmoid temperature at the current training progress."""
        return float(self.tau_schedule(self.progress))

    def heads(self, h: Tensor) -> tuple[Tensor, Tensor]:
        """Selection logits ``l`` and concentrations ``alpha``, both (..., n_experts)."""
        return self.selection(h), F.softplus(self.concentration(h)) + self.alpha_min

    def expected_active(self, h: Tensor) -> Tensor:
        """Expected number of active experts per token, ``sum_e sigmoid(l_e(h))``, shape ``h.shape[:-1]``."""
        self.check_input(h)
        return expected_active(torch.sigmoid(self.selection(h)))

    def route(self, h: Tensor) -> tuple[Tensor, dict[str, Tensor]]:
        logits, alpha = self.heads(h)
        pi = torch.sigmoid(logits)
        if self.training:
            z = relaxed_selection(logits, self.tau)
            if self.straight_through:
                z = (z > 0.5).to(z.dtype) + z - z.detach()
            if self.gate == "product":
                gates = _combine(z, Dirichlet(alpha).rsample(), self.delta)
            else:
                gates = Dirichlet(alpha * z + self.alpha_min).rsample()
                if self.straight_through:
                    gates = _combine(z, gates, self.delta)
        else:
            gates = _inference_gates(pi, alpha, self.k_max)
        kl_z = _bernoulli_kl(pi, self.prior_pi).sum(-1).mean()
        kl_theta = _dirichlet_kl(alpha, self.prior_alpha).mean()
        active = pi.sum(-1)  # expected_active(pi) and sparsity_penalty(pi, k) without their input checks
        sparsity = ((active - self.k_target) ** 2).mean()
        w = self.ramp(self.progress)
        loss = w * (self.kappa_z * kl_z + self.kappa_theta * kl_theta + self.lambda_s * sparsity)
        aux = {
            "loss": loss,
            "kl_z": kl_z,
            "kl_theta": kl_theta,
            "sparsity": sparsity,
            "expected_active": active,
            "pi": pi,
            "alpha": alpha,
            "tau": torch.tensor(self.tau),
        }
        return gates, aux
