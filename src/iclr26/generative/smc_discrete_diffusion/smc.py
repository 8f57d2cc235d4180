"""Twisted sequential Monte Carlo for reward-tilted sampling from a masked discrete diffusion model.

Target: ``pi(x_0) ∝ p_theta(x_0) exp(r(x_0) / alpha)`` where ``p_theta`` is the ancestral sampler of a masked
diffusion denoiser on the uniform grid ``t_k = 1 - k / steps``. Particle ``i`` in state ``x_{t_k}`` carries the
twist ``log phi_k(x_{t_k}) = lambda_k * r_hat(x_{t_k}) / alpha`` with the look-ahead estimate

    r_hat(x_t) = (1 / c) log mean_j exp(c * r(x_hat_0^j)),   c = lambda_k / alpha,

``x_hat_0^j`` drawn from the denoiser at the masked positions (straight-through Gumbel-softmax with temperature
``tau``; unmasked positions copied). Moving ``x_t -> x_s ~ q`` multiplies the weight by

    [p_theta(x_s | x_t) / q(x_s | x_t)] * [phi_{k+1}(x_s) / phi_k(x_t)],

the first weight is ``phi_0(x_1)`` and the last step ends with ``exp(r(x_0) / alpha)`` in place of a twist. Weights
are resampled (systematic or multinomial) whenever the effective sample size falls below
``ess_threshold * N``; the log-weights are then reset to their log-mean-exp, so that
``Z_hat = mean_i w_i`` at the end is an unbiased estimate of ``Z = sum_x p_theta(x) exp(r(x) / alpha)``.

Proposals: ``"base"`` (``q = p_theta``), ``"gradient"`` (first-order tilt of the base transition by
``lambda_{k+1} / alpha * d r_hat / d onehot(x_t)``, see :func:`tilted_transition`), ``"amortised"`` (a trained
:class:`~iclr26.generative.smc_discrete_diffusion.amortised.AmortisedProposal`), or any callable
``proposal(x_t, k, base_logq, generator) -> (x_s, log q(x_s | x_t))`` (e.g. the exact locally optimal one).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor

from iclr26.checks import check_choice, check_float, check_int, check_logits, check_tensor, check_token_ids
from iclr26.lab.masked_diffusion import SCHEDULES, reverse_transition

__all__ = [
    "MASK_MASS_RULES",
    "PROPOSALS",
    "RESAMPLERS",
    "SMCResult",
    "call_reward",
    "ess_from_log_weights",
    "lookahead_twist",
    "logmeanexp",
    "model_device",
    "model_logits",
    "resample_indices",
    "sample_categorical",
    "smc_sample",
    "tempering_schedule",
    "tilted_transition",
    "token_reward",
    "uniform",
]

PROPOSALS = ("base", "gradient", "amortised")
RESAMPLERS = ("systematic", "multinomial")
MASK_MASS_RULES = ("sequence", "position")

RewardFn = Callable[[Tensor], Tensor]
ProposalFn = Callable[[Tensor, int, Tensor, "torch.Generator | None"], tuple[Tensor, Tensor]]
TwistFn = Callable[[Tensor, int], Tensor]


@dataclass
class SMCResult:
    """What :func:`smc_sample` returns.

    With ``runs=None`` the leading run axis below is absent.

    particles : (R, N, L) final token ids.
    log_weights : (R, N) unnormalised final log-weights (float64); ``logmeanexp`` over N is ``log_z``.
    ess : (R, steps + 1) effective sample size after each weight update (before any resampling).
    log_z : (R,) log of the unbiased normalising-constant estimate ``Z_hat``.
    rewards : (R, N) ``r(x_0)`` of the final particles.
    log_increments : (R, N, steps + 1) incremental log-weights of the particles alive at each update.
    n_resampled : (R,) number of resampling events.
    reward_calls : number of sequences passed to ``reward_fn`` in all (look-ahead and final).
    """

    particles: Tensor
    log_weights: Tensor
    ess: Tensor
    log_z: Tensor
    rewards: Tensor
    log_increments: Tensor
    n_resampled: Tensor
    reward_calls: int

    def sample(self, generator: torch.Generator | None = None) -> Tensor:
        """Draw one particle per run with probability proportional to its final weight: (R, L) or (L,)."""
        lw = self.log_weights if self.log_weights.ndim == 2 else self.log_weights[None]
        parts = self.particles if self.particles.ndim == 3 else self.particles[None]
        probs = torch.softmax(lw, dim=-1)
        # drawn on the generator's device (a CPU generator for a cuda run) and moved back
        idx = (
            torch.multinomial(_on_gen(probs, generator), 1, generator=generator).squeeze(-1).to(parts.device)
        )
        out = parts[torch.arange(parts.shape[0], device=parts.device), idx]
        return out if self.particles.ndim == 3 else out[0]


def logmeanexp(x: Tensor, dim: int = -1) -> Tensor:
    """``log mean exp(x)`` along ``dim`` without overflow."""
    check_tensor("x", x, floating=True)
    return torch.logsumexp(x, dim=dim) - math.log(x.shape[dim])


def ess_from_log_weights(log_w: Tensor) -> Tensor:
    """Effective sample size ``(sum w)^2 / sum w^2`` along the last axis, from log-weights (in [1, N])."""
    check_tensor("log_w", log_w, floating=True)
    return torch.exp(2.0 * torch.logsumexp(log_w, -1) - torch.logsumexp(2.0 * log_w, -1))


def tempering_schedule(steps: int, one_at: int | None = None, floor: float = 1e-3) -> Tensor:
    """``lambda_k`` for ``k = 0..steps``: linear from 0 to 1 over the first ``one_at`` steps, then 1, >= floor.

    >>> tempering_schedule(4, one_at=2).tolist()
    [0.001, 0.5, 1.0, 1.0, 1.0]
    """
    check_int("steps", steps, low=1)
    one_at = steps if one_at is None else check_int("one_at", one_at, low=1)
    floor = check_float("floor", floor, 0.0, 1.0)
    k = torch.arange(steps + 1, dtype=torch.float64)
    return (k / one_at).clamp(max=1.0).clamp(min=floor)


def token_reward(fn: Callable[[Tensor], Tensor]) -> RewardFn:
    """Adapt a reward on token ids (B, L) to the one-hot interface of :func:`smc_sample` (not differentiable)."""

    def wrapped(onehot: Tensor) -> Tensor:
        check_tensor("onehot", onehot, ndim=3, floating=True, finite=True)
        return fn(onehot.argmax(-1)).to(onehot.dtype)

    return wrapped


def model_logits(model: Callable[[Tensor], Tensor], onehot: Tensor) -> Tensor:
    """Denoiser logits as a differentiable function of one-hot inputs (B, L, V).

    Uses ``model.forward_embeds(onehot @ model.W_E)`` when the model exposes them (the lab transformer);
    otherwise calls the model on the ids (no gradient through the denoiser).
    """
    if hasattr(model, "forward_embeds") and isinstance(getattr(model, "W_E", None), Tensor):
        w_e = model.W_E
        return model.forward_embeds(onehot.to(w_e.dtype) @ w_e)
    return model(onehot.argmax(-1))


def model_device(model: object) -> torch.device:
    """The device of a module's first parameter or buffer; the CPU for a parameterless callable."""
    if isinstance(model, torch.nn.Module):
        for t in (*model.parameters(), *model.buffers()):
            return t.device
    return torch.device("cpu")


def _on_gen(t: Tensor, generator: torch.Generator | None) -> Tensor:
    """``t`` on the generator's device (where ``torch.multinomial(t, generator=...)`` must run)."""
    return t if generator is None else t.to(generator.device)


def uniform(
    shape: Sequence[int],
    generator: torch.Generator | None,
    device: torch.device,
    dtype: torch.dtype = torch.float32,
) -> Tensor:
    """``torch.rand(shape)`` drawn on the generator's device and moved to ``device``.

    A run on cuda with the CPU generators of this module thus draws exactly the numbers a CPU run draws (and
    the CPU path is ``torch.rand(shape, generator=...)`` unchanged).
    """
    where = generator.device if generator is not None else device
    return torch.rand(tuple(shape), generator=generator, dtype=dtype, device=where).to(device)


def sample_categorical(log_probs: Tensor, generator: torch.Generator | None = None) -> Tensor:
    """Gumbel-max draw from per-position log-probabilities (..., V) -> ids (...)."""
    u = uniform(log_probs.shape, generator, log_probs.device, torch.float64)
    gumbel = -torch.log(-torch.log(u.clamp_min(1e-300)))
    return (log_probs.double() + gumbel).argmax(-1)


def call_reward(reward_fn: RewardFn, onehot: Tensor) -> Tensor:
    """``reward_fn(onehot)``, checked: a finite tensor of shape ``(batch,)`` (the samplers and baselines call it)."""
    r = reward_fn(onehot)
    if not torch.is_tensor(r):
        raise ValueError(
            f"reward_fn must return a tensor of shape ({onehot.shape[0]},), got {type(r).__name__}"
        )
    if r.shape != onehot.shape[:1]:
        raise ValueError(f"reward_fn must return shape (batch,) = ({onehot.shape[0]},), got {tuple(r.shape)}")
    if not bool(torch.isfinite(r).all()):
        raise ValueError("reward_fn returned NaN or infinite rewards")
    return r


def lookahead_twist(
    model: Callable[[Tensor], Tensor],
    x_t: Tensor,
    reward_fn: RewardFn,
    scale: float,
    phi: int = 1,
    tau: float = 1.0,
    need_grad: bool = False,
    generator: torch.Generator | None = None,
) -> tuple[Tensor, Tensor, Tensor | None]:
    """Denoiser logits at ``x_t``, the look-ahead estimate ``r_hat(x_t)`` and, if asked, ``d r_hat / d onehot``.

    ``r_hat = logmeanexp_j(scale * r(x_hat_0^j)) / scale`` over ``phi`` straight-through Gumbel-softmax samples
    (temperature ``tau``) at the masked positions, unmasked positions copied. Returns ``(logits (B, L, V),
    r_hat (B,), grad (B, L, V) or None)``.
    """
    mask_id = int(model.mask_id)
    check_tensor("x_t", x_t, ndim=2, floating=False)
    with torch.enable_grad() if need_grad else torch.no_grad():
        n_vocab = _vocab_size(model, x_t)
        check_token_ids("x_t", x_t, n_vocab)
        onehot = F.one_hot(x_t, n_vocab).float()
        if need_grad:
            onehot.requires_grad_(True)
        logits = model_logits(model, onehot) if need_grad else model(x_t)
        masked = onehot[..., mask_id : mask_id + 1]
        keep = onehot.clone() if not need_grad else onehot
        keep_clean = torch.cat([keep[..., :mask_id], torch.zeros_like(masked), keep[..., mask_id + 1 :]], -1)
        lp = logits.float().clone()
        lp[..., mask_id] = -1e9
        lp = F.log_softmax(lp, -1)
        rewards = []
        for _ in range(phi):
            u = uniform(lp.shape, generator, lp.device).clamp(1e-20, 1.0 - 1e-7)
            y_soft = torch.softmax((lp - torch.log(-torch.log(u))) / tau, -1)
            y_hard = F.one_hot(y_soft.argmax(-1), n_vocab).to(y_soft.dtype)
            sample = y_hard - y_soft.detach() + y_soft
            x_hat = masked * sample + keep_clean
            rewards.append(call_reward(reward_fn, x_hat))
        r = torch.stack(rewards, -1).double()
        r_hat = logmeanexp(scale * r, -1) / scale
        grad = None
        if need_grad:
            (grad,) = torch.autograd.grad(r_hat.sum(), onehot)
            grad = grad.detach().double()
    return logits.detach(), r_hat.detach(), grad


def _vocab_size(model: Callable[[Tensor], Tensor], x: Tensor) -> int:
    v = getattr(model, "vocab_size", None)
    if isinstance(v, int):
        return v
    with torch.no_grad():
        return int(model(x[:1]).shape[-1])


def tilted_transition(
    base_logq: Tensor, guidance: Tensor, x_t: Tensor, mask_id: int, mask_mass: str = "sequence"
) -> Tensor:
    """First-order (gradient) proposal: log q(x_s | x_t) per position (B, L, V), from the base transition.

    ``log_softmax(base_logq + guidance)`` per position, then the mask-schedule correction:

    - ``"sequence"`` (default; the brief's rule for plain MDLM): shift every *still-masked* position's non-mask
      log-probabilities by one constant per sequence so that their summed non-mask mass equals the base's, cap
      positions whose mass then exceeds 1 (mask probability 0) and give the rest to the mask class;
    - ``"position"``: keep each position's base unmasking probability and tilt only which token it becomes.

    Unmasked positions keep the base point mass. ``guidance = 0`` returns the base transition.

    Relation to the official release (J-zin/smc_ddm_iclr): neither released scheduler applies exactly this rule.
    The language-modelling ReMDM scheduler (``language_modelling/smc/scheduler.py``) has the correction commented
    out, so its proposal is the plain ``log_softmax(base_logq + guidance)`` over all classes, mask included. The
    image ReMDM scheduler (``image_generation/meissonic/smc/scheduler.py``) applies the shift, the cap and the
    mask mass, but computes the shift from sums over *all* positions (``logsumexp`` over ``dim=(1, 2)``),
    unmasked ones included, and shifts those too. Under ReMDM remasking an unmasked position keeps its token
    with probability ``1 - sigma_t`` and is remasked otherwise, so its non-mask mass is part of both sums and
    the shift moves its remasking probability; without remasking (``sigma_t = 0``, plain MDLM) it is a point
    mass of 1 in both sums, the constant becomes ``log(U + S_base) - log(U + S_tilted)`` with U unmasked
    positions instead of ``log S_base - log S_tilted`` here, and those positions are shifted as well (a
    positive shift is undone by the cap; a negative one gives them a positive probability of being remasked).
    The two agree when no position is unmasked (the first step). Restricting the sums to still-masked
    positions is the brief's choice for plain MDLM, where unmasked positions are copied and carry no choice.
    """
    check_choice("mask_mass", mask_mass, MASK_MASS_RULES)
    check_tensor("base_logq", base_logq, ndim=3, floating=True)
    check_tensor("guidance", guidance, floating=True, shape=tuple(base_logq.shape))
    check_token_ids("x_t", check_tensor("x_t", x_t, shape=tuple(base_logq.shape[:2])), base_logq.shape[-1])
    base_logq = base_logq.double()
    guidance = guidance.double()
    masked = x_t == mask_id
    not_mask = torch.ones(base_logq.shape[-1], dtype=torch.bool, device=base_logq.device)
    not_mask[mask_id] = False
    neg_inf = torch.tensor(-math.inf, dtype=base_logq.dtype, device=base_logq.device)
    base_nm = torch.logsumexp(base_logq[..., not_mask], -1)  # log non-mask mass per position
    if mask_mass == "position":
        tok = F.log_softmax((base_logq + guidance)[..., not_mask], -1) + base_nm[..., None]
        out = base_logq.clone()
        out[..., not_mask] = tok
    else:
        tilted = F.log_softmax(base_logq + guidance, -1)
        nm = torch.logsumexp(tilted[..., not_mask], -1)
        tok = tilted[..., not_mask] - nm[..., None]
        lo = torch.where(masked, nm, neg_inf)
        target = torch.logsumexp(torch.where(masked, base_nm, neg_inf), -1)
        current = torch.logsumexp(lo, -1)
        shift = torch.where(torch.isfinite(current), target - current, torch.zeros_like(current))
        new_nm = (nm + shift[:, None]).clamp(max=0.0)
        out = base_logq.clone()
        out[..., not_mask] = tok + new_nm[..., None]
        out[..., mask_id] = torch.log(-torch.expm1(new_nm)).nan_to_num(nan=-math.inf)
    return torch.where(masked[..., None], out, base_logq)


def resample_indices(
    log_w: Tensor, method: str = "systematic", generator: torch.Generator | None = None
) -> Tensor:
    """Ancestor indices (R, N) drawn ∝ weights per run (row) of ``log_w`` (R, N)."""
    check_choice("resample", method, RESAMPLERS)
    check_logits("log_w", log_w, ndim=2)
    probs = torch.softmax(log_w.double(), -1)
    n, dev = probs.shape[-1], probs.device
    if method == "multinomial":
        return torch.multinomial(_on_gen(probs, generator), n, replacement=True, generator=generator).to(dev)
    u = (uniform((probs.shape[0], 1), generator, dev, torch.float64) + torch.arange(n, device=dev)) / n
    cdf = probs.cumsum(-1)
    cdf[:, -1] = 1.0
    return torch.searchsorted(cdf, u).clamp(max=n - 1)


def _check_args(
    num_particles: int,
    steps: int,
    alpha: float,
    lambdas: Tensor | Sequence[float] | None,
    phi: int,
    tau: float,
    ess_threshold: float,
    resample: str,
    runs: int | None,
    resample_frequency: int,
) -> Tensor:
    check_int("num_particles", num_particles, low=1)
    check_int("steps", steps, low=1)
    check_int("phi", phi, low=1)
    check_int("resample_frequency", resample_frequency, low=1)
    if runs is not None:
        check_int("runs", runs, low=1)
    check_float("alpha (the KL weight)", alpha, low=0.0, low_open=True)
    check_float("tau", tau, low=0.0, low_open=True, finite=False)
    check_float("ess_threshold (a fraction of num_particles)", ess_threshold, 0.0, 1.0)
    check_choice("resample", resample, RESAMPLERS)
    if isinstance(lambdas, str) or (torch.is_tensor(lambdas) and not lambdas.is_floating_point()):
        raise TypeError(f"lambdas must be floats (a tensor or a sequence), got {_describe(lambdas)}")
    lam = torch.ones(steps + 1, dtype=torch.float64) if lambdas is None else torch.as_tensor(lambdas).double()
    if lam.ndim != 1 or lam.numel() != steps + 1:
        raise ValueError(f"lambdas must have length steps + 1 = {steps + 1}, got shape {tuple(lam.shape)}")
    if not bool(torch.isfinite(lam).all()) or bool((lam < 0).any()):
        raise ValueError("lambdas must be finite and non-negative")
    return lam.clamp(min=1e-3)


def _describe(x: object) -> str:
    return f"a {x.dtype} tensor" if torch.is_tensor(x) else repr(x)


def smc_sample(
    model: Callable[[Tensor], Tensor],
    reward_fn: RewardFn,
    num_particles: int,
    steps: int,
    proposal: str | ProposalFn = "base",
    alpha: float = 1.0,
    lambdas: Tensor | Sequence[float] | None = None,
    phi: int = 1,
    tau: float = 1.0,
    ess_threshold: float = 0.5,
    resample: str = "systematic",
    *,
    runs: int | None = None,
    seq_len: int | None = None,
    final_reweight: bool = True,
    mask_mass: str = "sequence",
    schedule: str = "linear",
    amortised: torch.nn.Module | None = None,
    log_twist_fn: TwistFn | None = None,
    resample_frequency: int = 1,
    generator: torch.Generator | None = None,
) -> SMCResult:
    """Twisted SMC from a masked diffusion denoiser towards ``p_theta(x) exp(r(x) / alpha)``.

    Parameters
    ----------
    model : denoiser ``ids (B, L) -> logits (B, L, V)`` with ``mask_id`` (and ``seq_len``).
    reward_fn : ``onehot (B, L, V) float -> (B,)`` rewards; differentiable for the gradient proposal (wrap an
        ids-based reward with :func:`token_reward`).
    num_particles : N particles per run.
    steps : denoising steps on the uniform grid ``t_k = 1 - k / steps``.
    proposal : ``"base"``, ``"gradient"``, ``"amortised"`` (needs ``amortised=``), an ``AmortisedProposal``, or a
        callable ``(x_t, k, base_logq, generator) -> (x_s, log q(x_s | x_t) (B,))``.
    alpha : KL weight (> 0); the target tilts by ``exp(r / alpha)``.
    lambdas : tempering ``lambda_0..lambda_steps`` (length ``steps + 1``, clamped at 1e-3); default all ones.
    phi, tau : look-ahead samples per twist and their Gumbel-softmax temperature.
    ess_threshold : resample a run when its ESS < ``ess_threshold * N`` (0 never resamples).
    resample : ``"systematic"`` or ``"multinomial"``.
    runs : independent SMC runs batched together (adds a leading axis to every output).
    final_reweight : end with ``r(x_0) / alpha - log phi_K``; ``False`` mirrors the released LM pipeline, which
        returns the particles after the last proposal without updating their weights.
    mask_mass : gradient proposal's unmasking-mass rule (see :func:`tilted_transition`).
    log_twist_fn : ``(x_t, k) -> log phi_k(x_t)`` replacing the look-ahead twist (e.g. the exact one).
    generator : torch generator of every draw; a CPU generator works with a cuda model (draws are made on the
        CPU and moved, so they equal a CPU run's).

    Runs on the device of ``model`` (its first parameter; the CPU for a plain callable); the returned tensors
    are on that device.
    """
    lam = _check_args(
        num_particles, steps, alpha, lambdas, phi, tau, ess_threshold, resample, runs, resample_frequency
    )
    check_choice("schedule", schedule, SCHEDULES)
    check_choice("mask_mass", mask_mass, MASK_MASS_RULES)
    if not callable(reward_fn):
        raise TypeError("reward_fn must be callable: onehot (B, L, V) -> rewards (B,)")
    if isinstance(proposal, str):
        if proposal not in PROPOSALS:
            raise ValueError(f"proposal must be one of {PROPOSALS} or a callable, got {proposal!r}")
        if proposal == "amortised" and amortised is None:
            raise ValueError("proposal='amortised' needs amortised=<AmortisedProposal>")
    elif isinstance(proposal, torch.nn.Module) and hasattr(proposal, "transition"):
        amortised, proposal = proposal, "amortised"
    elif not callable(proposal):
        raise TypeError(f"proposal must be a string or a callable, got {type(proposal).__name__}")
    mask_id = int(model.mask_id)
    length = seq_len if seq_len is not None else getattr(model, "seq_len", None)
    length = check_int("seq_len", length, low=1)
    n_runs, n = runs or 1, num_particles
    batch = n_runs * n
    dev = model_device(
        model
    )  # the particles live on the denoiser's device; random draws come from `generator`
    x = torch.full((batch, length), mask_id, dtype=torch.long, device=dev)
    log_w = torch.zeros(n_runs, n, dtype=torch.float64, device=dev)
    log_twist = torch.zeros(batch, dtype=torch.float64, device=dev)
    pending = torch.zeros(batch, dtype=torch.float64, device=dev)  # log p - log q of the last move
    ess_trace, increments = [], []
    n_resampled = torch.zeros(n_runs, dtype=torch.long, device=dev)
    reward_calls = 0
    need_grad = proposal == "gradient"
    rows = torch.arange(n_runs, device=dev)[:, None] * n
    for k in range(steps):
        t, s = 1.0 - k / steps, max(1.0 - (k + 1) / steps, 0.0)
        scale_cur, scale_next = float(lam[k]) / alpha, float(lam[k + 1]) / alpha
        logits, r_hat, grad = lookahead_twist(model, x, reward_fn, scale_cur, phi, tau, need_grad, generator)
        reward_calls += batch * phi
        new_twist = scale_cur * r_hat if log_twist_fn is None else log_twist_fn(x, k).double()
        inc = pending + new_twist - log_twist
        increments.append(inc.view(n_runs, n))
        log_w = log_w + inc.view(n_runs, n)
        log_twist = new_twist
        ess = ess_from_log_weights(log_w)
        ess_trace.append(ess)
        if (k + 1) % resample_frequency == 0 and ess_threshold > 0:
            do = ess < ess_threshold * n
            if bool(do.any()):
                idx = resample_indices(log_w, resample, generator)
                idx = torch.where(do[:, None], idx, torch.arange(n, device=dev)[None, :])
                flat = (rows + idx).reshape(-1)
                x, logits, log_twist = x[flat], logits[flat], log_twist[flat]
                grad = grad[flat] if grad is not None else None
                mean = logmeanexp(log_w, -1)[:, None].expand(n_runs, n)
                log_w = torch.where(do[:, None], mean, log_w)
                n_resampled += do.long()
        base_logq = reverse_transition(logits.double(), x, t, s, mask_id, schedule)
        if proposal == "base":
            x_new = sample_categorical(base_logq, generator)
            pending = torch.zeros(batch, dtype=torch.float64, device=dev)
        else:
            if proposal == "gradient":
                logq_pos = tilted_transition(base_logq, scale_next * grad, x, mask_id, mask_mass)
                x_new = sample_categorical(logq_pos, generator)
                log_q = logq_pos.gather(-1, x_new[..., None]).squeeze(-1).sum(-1)
            elif proposal == "amortised":
                with torch.no_grad():
                    logq_pos = amortised.transition(logits, x, t, s, mask_id, schedule).double()
                x_new = sample_categorical(logq_pos, generator)
                log_q = logq_pos.gather(-1, x_new[..., None]).squeeze(-1).sum(-1)
            else:
                x_new, log_q = proposal(x, k, base_logq, generator)
                log_q = log_q.double()
            log_p = base_logq.gather(-1, x_new[..., None]).squeeze(-1).sum(-1)
            pending = log_p - log_q
        x = x_new
    rewards = call_reward(reward_fn, F.one_hot(x, _vocab_size(model, x)).float()).double()
    reward_calls += batch
    if final_reweight:
        inc = pending + rewards / alpha - log_twist
        increments.append(inc.view(n_runs, n))
        log_w = log_w + inc.view(n_runs, n)
    else:
        increments.append(torch.zeros(n_runs, n, dtype=torch.float64, device=dev))
    ess_trace.append(ess_from_log_weights(log_w))
    out = SMCResult(
        particles=x.view(n_runs, n, length),
        log_weights=log_w,
        ess=torch.stack(ess_trace, -1),
        log_z=logmeanexp(log_w, -1),
        rewards=rewards.view(n_runs, n),
        log_increments=torch.stack(increments, -1),
        n_resampled=n_resampled,
        reward_calls=reward_calls,
    )
    if runs is None:
        for name in ("particles", "log_weights", "ess", "log_z", "rewards", "log_increments", "n_resampled"):
            setattr(out, name, getattr(out, name)[0])
    return out
