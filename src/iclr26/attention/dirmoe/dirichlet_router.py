"""DirMoE's router module (ICLR 2026, OpenReview a15cDnzr6r, arXiv 2602.09001): the paper's three-head router with
the gate-conditioned (spike-and-slab) Dirichlet, and the earlier one-head reconstruction behind the same class.

The equations are in :mod:`iclr26.attention.dirmoe.dirichlet` (selection, gates, KLs, inference) and
:mod:`iclr26.attention.dirmoe.spike_slab` (the concentrations and the calibrated prior).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.distributions import Dirichlet

from iclr26.attention.dirmoe.dirichlet import (
    DEFAULT_TAU,
    GATES,
    VARIANTS,
    bernoulli_kl_unchecked,
    combine,
    dirichlet_kl_unchecked,
    expected_active,
    inference_gates_unchecked,
    relaxed_selection_unchecked,
    selection_mask,
)
from iclr26.attention.dirmoe.spike_slab import PriorParams, SpikeSlabPrior, spike_slab_mix
from iclr26.checks import check_bool, check_choice, check_float, check_int
from iclr26.lab.moe.router import LinearRamp, Router, TauSchedule, as_tau_schedule

__all__ = ["DirichletRouter"]

# defaults that differ between the paper's router and the earlier reconstruction from the abstract
_DEFAULTS = {
    "paper": {"kappa_z": 0.0, "kappa_theta": 1.0, "warmup_frac": 0.0},
    "abstract": {"kappa_z": 1e-3, "kappa_theta": 1e-3, "warmup_frac": 0.1},
}


def _softplus_inverse(y: float) -> float:
    """``x`` with ``softplus(x) = y`` (y > 0)."""
    return y + math.log(-math.expm1(-y))


class DirichletRouter(Router):
    """DirMoE router: a Bernoulli head decides which experts fire, a Dirichlet how much each selected one counts.

    Parameters
    ----------
    d_model, n_experts : token width and number of experts E.
    k_target : target expected number of active experts, 0 < k < E.
    tau_schedule : Gumbel-sigmoid temperature tau_z, a :class:`TauSchedule` (default 1.0 -> 0.1 over 70% of
        training) or a constant float.
    variant : ``"paper"`` (default): heads l, a_hi, a_lo, the posterior ``Dir(lambda^q (z~ a_hi + (1 - z~) a_lo))``,
        the spike-and-slab prior, the reconstruction term and the penalty on the sampled selections.
        ``"abstract"``: the earlier one-head reconstruction (``theta ~ Dir(alpha)``, uniform prior, Bernoulli KL,
        penalty on ``sum pi``), kept for comparison.
    alpha_min : floor added to every concentration head (chosen 1e-2).
    gate : ``"product"`` (``z~ theta`` renormalised, the paper's) or ``"masked_alpha"`` (the Dirichlet sample itself:
        ``Dir(alpha^q)`` in the paper variant, ``Dir(alpha z~ + alpha_min)`` in the abstract one).
    kappa_theta : weight of the Dirichlet KL, the paper's beta_theta (paper default 1: the ELBO; abstract 1e-3).
    kappa_z : weight of ``sum_e KL(Bern(pi_e) || Bern(prior_pi))`` (paper default 0, the paper has no such term;
        abstract 1e-3). ``kl_z`` is reported either way.
    lambda_s : weight of the sparsity penalty, ``(sum z~ - k)^2`` (paper) or ``(sum pi - k)^2`` (abstract).
    prior_pi : Bernoulli prior pi_0 of ``kl_z`` (default k/E).
    prior : the spike-and-slab prior and its schedule (paper only; default :class:`SpikeSlabPrior`).
    lambda_q : posterior scale lambda^q (paper only; None ties it to the prior's lambda^p at each step).
    recon_weight : weight of the per-dimension squared error of the linear decoder ``r -> x`` (paper only,
        default 1; 0 drops the reconstruction term).
    prior_alpha : symmetric Dirichlet prior alpha_0 (abstract only; default 1).
    warmup_frac : the KL weights and lambda_s ramp linearly from 0 over this fraction of training (paper 0,
        abstract 0.1).
    k_max : optional cap on the number of experts selected at inference.
    straight_through : hard 0/1 selection forward, relaxed gradient backward (gives exact zeros in training).
    delta : the constant in the product gate's denominator.

    ``forward(h)`` returns ``(gates, aux)``. aux keys: ``loss, kl_z, kl_theta, sparsity, expected_active, pi, alpha,
    tau`` (both variants; ``alpha`` is the posterior concentration used), and in the paper variant also ``recon, z,
    sampled_active, alpha_hi, alpha_lo, alpha_prior, lambda_q, lambda_p, mass``. In ``train()`` mode gates are
    sampled; in ``eval()`` mode they are the sparse deterministic ones and z is the hard selection.

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
        variant: str = "paper",
        alpha_min: float = 1e-2,
        gate: str = "product",
        kappa_z: float | None = None,
        kappa_theta: float | None = None,
        lambda_s: float = 1e-2,
        prior_pi: float | None = None,
        prior: SpikeSlabPrior | None = None,
        lambda_q: float | None = None,
        recon_weight: float | None = None,
        prior_alpha: float | None = None,
        warmup_frac: float | None = None,
        k_max: int | None = None,
        straight_through: bool = False,
        delta: float = 1e-6,
    ) -> None:
        super().__init__(d_model, n_experts)
        check_float(
            f"k_target (< n_experts = {self.n_experts})",
            k_target,
            0.0,
            float(self.n_experts),
            low_open=True,
            high_open=True,
            type_error=True,
        )
        self.variant = check_choice("variant", variant, VARIANTS)
        check_choice("gate", gate, GATES)
        defaults = _DEFAULTS[variant]
        kappa_z = defaults["kappa_z"] if kappa_z is None else kappa_z
        kappa_theta = defaults["kappa_theta"] if kappa_theta is None else kappa_theta
        warmup_frac = defaults["warmup_frac"] if warmup_frac is None else warmup_frac
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
        self.ramp = LinearRamp(warmup_frac)
        self.k_max = None if k_max is None else check_int("k_max", k_max, low=1, high=n_experts)
        self.straight_through = check_bool("straight_through", straight_through)
        self.delta = check_float("delta", delta, low=0.0, low_open=True)
        self.selection = nn.Linear(d_model, n_experts)
        if variant == "paper":
            if prior_alpha is not None:
                raise ValueError(
                    "prior_alpha is a parameter of variant='abstract'; the paper's prior is `prior`"
                )
            self.prior = SpikeSlabPrior() if prior is None else prior
            if not isinstance(self.prior, SpikeSlabPrior):
                raise TypeError(f"prior must be a SpikeSlabPrior, got {type(self.prior).__name__}")
            self.prior.check(self.k_target, self.n_experts)
            self.lambda_q = (
                None if lambda_q is None else check_float("lambda_q", lambda_q, low=0.0, low_open=True)
            )
            self.recon_weight = check_float(
                "recon_weight", 1.0 if recon_weight is None else recon_weight, low=0.0
            )
            self.concentration_hi = nn.Linear(d_model, n_experts)
            self.concentration_lo = nn.Linear(d_model, n_experts)
            self.decoder = nn.Linear(n_experts, d_model)
        else:
            for name, value in (("prior", prior), ("lambda_q", lambda_q), ("recon_weight", recon_weight)):
                if value is not None:
                    raise ValueError(f"{name} is a parameter of variant='paper', not of variant='abstract'")
            self.prior_alpha = check_float(
                "prior_alpha", 1.0 if prior_alpha is None else prior_alpha, low=0.0, low_open=True
            )
            self.concentration = nn.Linear(d_model, n_experts)
        self.reset_parameters()

    def reset_parameters(self, generator: torch.Generator | None = None) -> None:
        """Head weights ~ N(0, 0.1^2 / d_model); selection bias at logit(k/E), so that sum pi starts at k.

        Paper variant: the slab/spike biases start where the posterior equals the prior at the start of training
        (``a_hi = abar_hi``, ``a_lo = abar_lo``, as far as ``alpha_min`` allows); decoder weights ~ N(0, 1/E), bias 0.
        Abstract variant: concentration bias 0 (alpha starts near 0.70).
        """
        heads = [self.selection]
        heads += (
            [self.concentration_hi, self.concentration_lo]
            if self.variant == "paper"
            else [self.concentration]
        )
        with torch.no_grad():
            for lin in heads:
                lin.weight.normal_(0.0, 0.1 * self.d_model**-0.5, generator=generator)
            p = self.k_target / self.n_experts
            self.selection.bias.fill_(float(torch.logit(torch.tensor(p))))
            if self.variant == "abstract":
                self.concentration.bias.zero_()
                return
            start = self.prior_params(0.0)
            for lin, target in ((self.concentration_hi, start.high), (self.concentration_lo, start.low)):
                lin.bias.fill_(_softplus_inverse(max(target - self.alpha_min, 1e-4)))
            self.decoder.weight.normal_(0.0, self.n_experts**-0.5, generator=generator)
            self.decoder.bias.zero_()

    @property
    def tau(self) -> float:
        """The Gumbel-sigmoid temperature at the current training progress."""
        return float(self.tau_schedule(self.progress))

    def prior_params(self, progress: float | None = None) -> PriorParams:
        """The spike-and-slab prior (abar_hi, abar_lo, lambda^p, mass, Simpson target) at `progress` (default: now)."""
        if self.variant != "paper":
            raise ValueError("prior_params is defined for variant='paper' only")
        return self.prior(self.progress if progress is None else progress, self.k_target, self.n_experts)

    def heads(self, h: Tensor) -> tuple[Tensor, ...]:
        """The heads, each (..., n_experts): ``(l, a_hi, a_lo)`` (paper) or ``(l, alpha)`` (abstract)."""
        if self.variant == "abstract":
            return self.selection(h), F.softplus(self.concentration(h)) + self.alpha_min
        return (
            self.selection(h),
            F.softplus(self.concentration_hi(h)) + self.alpha_min,
            F.softplus(self.concentration_lo(h)) + self.alpha_min,
        )

    def expected_active(self, h: Tensor) -> Tensor:
        """Expected number of active experts per token, ``sum_e sigmoid(l_e(h))``, shape ``h.shape[:-1]``."""
        self.check_input(h)
        return expected_active(torch.sigmoid(self.selection(h)))

    def _relaxed(self, logits: Tensor) -> Tensor:
        z = relaxed_selection_unchecked(logits, self.tau)
        if self.straight_through:
            z = (z > 0.5).to(z.dtype) + z - z.detach()
        return z

    def route(self, h: Tensor) -> tuple[Tensor, dict[str, Tensor]]:
        return self._route_paper(h) if self.variant == "paper" else self._route_abstract(h)

    def _route_paper(self, h: Tensor) -> tuple[Tensor, dict[str, Tensor]]:
        logits, a_hi, a_lo = self.heads(h)
        pi = torch.sigmoid(logits)
        prior = self.prior_params()
        lam_q = prior.scale if self.lambda_q is None else self.lambda_q
        if self.training:
            z = self._relaxed(logits)
            alpha_q = spike_slab_mix(z, a_hi, a_lo, lam_q)  # alpha^q = lambda^q (z~ a_hi + (1 - z~) a_lo)
            theta = Dirichlet(alpha_q).rsample()
            if self.gate == "product":
                gates = combine(z, theta, self.delta)  # r = normalize(z~ * theta)
            else:
                gates = combine(z, theta, self.delta) if self.straight_through else theta
        else:
            z = selection_mask(pi, self.k_max).to(pi.dtype)
            alpha_q = spike_slab_mix(z, a_hi, a_lo, lam_q)
            gates = inference_gates_unchecked(pi, a_hi, self.k_max)  # E[theta | hard z] renormalised on S
        alpha_p = spike_slab_mix(z, prior.high, prior.low, prior.scale)
        kl_theta = dirichlet_kl_unchecked(alpha_q, alpha_p).mean()
        sampled = z.sum(-1)
        sparsity = ((sampled - self.k_target) ** 2).mean()  # on the samples, not on sum pi
        recon = ((self.decoder(gates) - h.detach()) ** 2).mean()  # per-dimension squared error of D r + d
        kl_z = bernoulli_kl_unchecked(pi, self.prior_pi).sum(-1).mean()
        w = self.ramp(self.progress)
        loss = w * (self.kappa_theta * kl_theta + self.lambda_s * sparsity + self.kappa_z * kl_z)
        loss = loss + self.recon_weight * recon
        aux = {
            "loss": loss,
            "kl_z": kl_z,
            "kl_theta": kl_theta,
            "sparsity": sparsity,
            "recon": recon,
            "expected_active": pi.sum(-1),
            "sampled_active": sampled,
            "pi": pi,
            "z": z,
            "alpha": alpha_q,
            "alpha_hi": a_hi,
            "alpha_lo": a_lo,
            "alpha_prior": alpha_p,
            "tau": torch.tensor(self.tau),
            "lambda_q": torch.tensor(lam_q),
            "lambda_p": torch.tensor(prior.scale),
            "mass": torch.tensor(prior.mass),
        }
        return gates, aux

    def _route_abstract(self, h: Tensor) -> tuple[Tensor, dict[str, Tensor]]:
        logits, alpha = self.heads(h)
        pi = torch.sigmoid(logits)
        if self.training:
            z = self._relaxed(logits)
            if self.gate == "product":
                gates = combine(z, Dirichlet(alpha).rsample(), self.delta)
            else:
                gates = Dirichlet(alpha * z + self.alpha_min).rsample()
                if self.straight_through:
                    gates = combine(z, gates, self.delta)
        else:
            gates = inference_gates_unchecked(pi, alpha, self.k_max)
        kl_z = bernoulli_kl_unchecked(pi, self.prior_pi).sum(-1).mean()
        kl_theta = dirichlet_kl_unchecked(alpha, self.prior_alpha).mean()
        active = pi.sum(-1)
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
