"""Masked (absorbing-state) discrete diffusion language models: a tiny denoiser, its ELBO, its reverse process.

The model family of MDLM (Sahoo et al., 2024) and of the dLLMs LLaDA and Dream. A clean sequence ``x_0`` is
corrupted by replacing each token, independently, by ``[MASK]`` with probability ``1 - alpha(t)`` (``alpha(0) =
1``, ``alpha(1) = 0``). The denoiser maps a partly masked sequence to logits over the clean tokens at every
position. With the SUBS parameterisation (:func:`subs_log_probs`) the prediction never puts mass on ``[MASK]`` and
copies unmasked tokens, so the continuous-time negative ELBO is

    NELBO(x_0) = E_{t ~ U(0,1)} [ -alpha'(t) / (1 - alpha(t)) * sum_{l masked in x_t} -log p_theta(x_0^l | x_t) ],

which for the linear schedule ``alpha(t) = 1 - t`` weights the masked cross-entropy by ``1/t``
(:func:`mdlm_loss`, reported per maskable token). The reverse step from ``t`` to ``s < t``
(:func:`reverse_transition`) keeps unmasked tokens, and unmasks each masked token with probability
``(alpha(s) - alpha(t)) / (1 - alpha(t))`` to a token drawn from the denoiser's prediction;
:func:`ancestral_sample` chains such steps from ``t = 1`` (all masked) to ``t = 0`` (none masked).

Any ``nn.Module`` mapping ids ``(B, L)`` to logits ``(B, L, V)`` and carrying an integer ``mask_id`` attribute can
play the denoiser (:class:`MaskedDiffusionLM` is that protocol); :class:`MaskedDiffusionTransformer` is the
project's tiny bidirectional one, built on :class:`iclr26.lab.transformer.Transformer`.

Example
-------
>>> import torch
>>> from iclr26.lab.masked_diffusion import MaskedDiffusionTransformer, ancestral_sample, mdlm_loss
>>> model = MaskedDiffusionTransformer(n_tokens=5, seq_len=6, d_model=16, n_layers=1, n_heads=2, init_seed=0)
>>> model.mask_id, model.vocab_size
(5, 6)
>>> x0 = torch.randint(0, 5, (4, 6), generator=torch.Generator().manual_seed(0))
>>> float(mdlm_loss(model, x0, torch.Generator().manual_seed(1))) > 0
True
>>> out = ancestral_sample(model, torch.zeros(2, 0, dtype=torch.long), gen_len=6, steps=3,
...                        generator=torch.Generator().manual_seed(2))
>>> out.shape, bool((out == model.mask_id).any())
(torch.Size([2, 6]), False)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Protocol, runtime_checkable

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from iclr26.checks import check_choice, check_float, check_int, check_logits, check_token_ids
from iclr26.lab.training import LoopResult, train_loop
from iclr26.lab.transformer import Transformer

__all__ = [
    "SCHEDULES",
    "MaskedDiffusionLM",
    "MaskedDiffusionTransformer",
    "alpha",
    "ancestral_sample",
    "check_mask_id",
    "elbo_weight",
    "mask_tokens",
    "mdlm_loss",
    "reverse_step",
    "reverse_transition",
    "subs_log_probs",
    "train_mdlm",
]

#: Noise schedules ``alpha(t)`` (probability that a token is still clean at time t).
SCHEDULES = ("linear", "cosine")


@runtime_checkable
class MaskedDiffusionLM(Protocol):
    """A denoiser: ``model(ids (B, L)) -> logits (B, L, V)`` with ``mask_id`` in ``[0, V)``."""

    mask_id: int

    def __call__(self, ids: Tensor) -> Tensor: ...


class MaskedDiffusionTransformer(Transformer):
    """A tiny bidirectional transformer denoiser over ``n_tokens`` clean tokens plus one ``[MASK]`` id.

    ``mask_id = n_tokens`` (the last id); ``vocab_size = n_tokens + 1``. Everything else is
    :class:`iclr26.lab.transformer.Transformer` with ``causal=False`` (learned absolute positions, pre-LN blocks,
    GELU MLPs, tied unembedding), so its hook points work too.
    """

    def __init__(
        self,
        n_tokens: int,
        seq_len: int,
        d_model: int = 128,
        n_layers: int = 3,
        n_heads: int = 4,
        *,
        d_mlp: int | None = None,
        init_seed: int | None = None,
    ) -> None:
        check_int("n_tokens", n_tokens, low=1)
        super().__init__(
            vocab_size=n_tokens + 1,
            seq_len=seq_len,
            d_model=d_model,
            n_layers=n_layers,
            n_heads=n_heads,
            d_mlp=d_mlp,
            causal=False,
            init_seed=init_seed,
        )
        self.n_tokens = n_tokens
        self.mask_id = n_tokens


def _check_schedule(schedule: str) -> None:
    check_choice("schedule", schedule, SCHEDULES)


def alpha(t: Tensor | float, schedule: str = "linear") -> Tensor:
    """Probability that a token is still clean at time ``t`` in [0, 1]: ``1 - t`` or ``cos(pi t / 2)``.

    Follows the input's precision: a tensor keeps its dtype, a Python number (double precision) gives a float64
    tensor, so the scalar rates of :func:`reverse_transition` carry no float32 rounding (~5e-8 before).
    The cosine schedule is ``cos(pi t / 2)`` (clean at t = 0, fully masked at t = 1); the other common convention,
    ``1 - cos(pi/2 (1 - t))``, is a different schedule and is not offered.
    """
    _check_schedule(schedule)
    t = torch.as_tensor(t, dtype=None if torch.is_tensor(t) else torch.float64)
    if bool(((t < 0) | (t > 1)).any()):
        raise ValueError(f"t must lie in [0, 1], got range [{float(t.min())}, {float(t.max())}]")
    if schedule == "linear":
        return 1.0 - t
    return torch.cos(0.5 * math.pi * t).clamp(0.0, 1.0)  # cos(pi/2) is -4e-8 in float32


def elbo_weight(t: Tensor, schedule: str = "linear") -> Tensor:
    """``-alpha'(t) / (1 - alpha(t))``: the weight of the masked cross-entropy in the continuous-time NELBO."""
    _check_schedule(schedule)
    if bool((t <= 0).any() | (t > 1).any()):
        raise ValueError("t must lie in (0, 1] for the ELBO weight (it diverges at t = 0)")
    if schedule == "linear":
        return 1.0 / t
    half_pi = 0.5 * math.pi
    return half_pi * torch.sin(half_pi * t) / (1.0 - torch.cos(half_pi * t))


def check_mask_id(ids: Tensor, mask_id: int, name: str = "ids") -> None:
    """Raise ValueError unless ``ids`` is an integer (B, L) tensor free of ``mask_id``."""
    if not torch.is_tensor(ids) or ids.dtype not in (torch.int64, torch.int32):
        raise ValueError(f"{name} must be an integer tensor of token ids")
    if ids.ndim != 2:
        raise ValueError(f"{name} must have shape (batch, length), got {tuple(ids.shape)}")
    if bool((ids == mask_id).any()):
        raise ValueError(f"{name} contains the mask id {mask_id}; clean sequences must not")


def mask_tokens(
    x0: Tensor,
    t: Tensor,
    mask_id: int,
    generator: torch.Generator | None = None,
    maskable: Tensor | None = None,
    schedule: str = "linear",
) -> tuple[Tensor, Tensor]:
    """Corrupt ``x0`` at per-row times ``t``: each maskable token becomes ``mask_id`` w.p. ``1 - alpha(t)``.

    Returns ``(x_t, masked)`` where ``masked`` is the boolean (B, L) set of positions replaced.
    """
    if t.shape != x0.shape[:1]:
        raise ValueError(f"t must have shape (batch,) = {tuple(x0.shape[:1])}, got {tuple(t.shape)}")
    p_mask = (1.0 - alpha(t, schedule))[:, None].expand(x0.shape)
    masked = torch.rand(x0.shape, generator=generator, device=x0.device) < p_mask
    if maskable is not None:
        if maskable.shape != x0.shape or maskable.dtype != torch.bool:
            raise ValueError(f"maskable must be a bool tensor of shape {tuple(x0.shape)}")
        masked &= maskable
    return torch.where(masked, torch.full_like(x0, mask_id), x0), masked


def subs_log_probs(logits: Tensor, x_t: Tensor, mask_id: int) -> Tensor:
    """MDLM's SUBS parameterisation: log p_theta(x_0 | x_t) with no mass on [MASK] and unmasked tokens copied.

    Masked positions get ``log_softmax`` of the logits with the mask logit removed; unmasked positions get a
    point mass on their current token (0 there, ``-inf`` elsewhere). Shapes (B, L, V) and (B, L).
    """
    if logits.ndim != 3 or logits.shape[:2] != x_t.shape:
        raise ValueError(
            f"logits must have shape (batch, length, vocab) matching x_t {tuple(x_t.shape)}, "
            f"got {tuple(logits.shape)}"
        )
    neg_inf = torch.finfo(logits.dtype).min
    logits = logits.clone()
    logits[..., mask_id] = neg_inf
    logp = F.log_softmax(logits, dim=-1)
    copied = torch.full_like(logp, -math.inf).scatter(-1, x_t[..., None], 0.0)
    out = torch.where((x_t == mask_id)[..., None], logp, copied)
    out[..., mask_id] = -math.inf
    return out


def mdlm_loss(
    model: Callable[[Tensor], Tensor],
    x0: Tensor,
    generator: torch.Generator | None = None,
    *,
    maskable: Tensor | None = None,
    schedule: str = "linear",
    eps: float = 1e-3,
    t: Tensor | None = None,
) -> Tensor:
    """Monte-Carlo continuous-time NELBO of ``x0`` per maskable token (MDLM), differentiable in the model.

    One time ``t ~ U(eps, 1)`` per row (or the given ``t``), mask with :func:`mask_tokens`, and sum
    ``elbo_weight(t) * CE`` over the masked positions; divide by the number of maskable tokens in the batch.
    ``maskable`` (bool, (B, L)) excludes positions that are never corrupted, e.g. a prompt. For a model that
    ignores its input the expectation equals the per-token NLL exactly (a unit test checks this).
    """
    mask_id = int(model.mask_id)
    check_mask_id(x0, mask_id, "x0")
    check_float("eps", eps, 0.0, 1.0, high_open=True)
    if t is None:
        t = eps + (1.0 - eps) * torch.rand(x0.shape[0], generator=generator, device=x0.device)
    x_t, masked = mask_tokens(x0, t, mask_id, generator, maskable, schedule)
    logp = subs_log_probs(model(x_t), x_t, mask_id)
    nll = -logp.gather(-1, x0[..., None]).squeeze(-1)
    nll = torch.where(masked, nll, torch.zeros_like(nll))
    n_tokens = x0.numel() if maskable is None else int(maskable.sum())
    return (elbo_weight(t, schedule)[:, None] * nll).sum() / max(n_tokens, 1)


def reverse_transition(
    logits: Tensor,
    x_t: Tensor,
    t: float,
    s: float,
    mask_id: int,
    schedule: str = "linear",
    temperature: float = 1.0,
) -> Tensor:
    """log q(x_s | x_t) per position, (B, L, V): the ancestral reverse kernel of the masked diffusion.

    Unmasked tokens stay with probability 1. A masked token stays masked w.p. ``(1 - alpha_s)/(1 - alpha_t)``
    and otherwise becomes token v w.p. ``(alpha_s - alpha_t)/(1 - alpha_t) * p_theta(v | x_t)``, with
    ``p_theta`` the SUBS prediction of ``logits / temperature``.
    """
    if not 0.0 <= s < t <= 1.0:
        raise ValueError(f"times must satisfy 0 <= s < t <= 1, got t={t}, s={s}")
    check_float("temperature", temperature, low=0.0, low_open=True, finite=False)
    check_logits("logits", logits, ndim=3)
    check_int("mask_id", mask_id, 0, logits.shape[-1] - 1)
    check_token_ids("x_t", x_t, logits.shape[-1])
    a_t, a_s = float(alpha(t, schedule)), float(alpha(s, schedule))
    logp = subs_log_probs(logits / temperature, x_t, mask_id)
    p_unmask = (a_s - a_t) / (1.0 - a_t)
    stay = math.log(max(1.0 - p_unmask, 0.0)) if p_unmask < 1.0 else -math.inf
    masked_row = logp + math.log(p_unmask) if p_unmask > 0 else torch.full_like(logp, -math.inf)
    masked_row[..., mask_id] = stay
    return torch.where((x_t == mask_id)[..., None], masked_row, logp)


def reverse_step(
    logits: Tensor,
    x_t: Tensor,
    t: float,
    s: float,
    mask_id: int,
    generator: torch.Generator | None = None,
    schedule: str = "linear",
    temperature: float = 1.0,
) -> Tensor:
    """Draw ``x_s ~ q(. | x_t)`` from :func:`reverse_transition` (Gumbel-max on the log-probabilities)."""
    logq = reverse_transition(logits, x_t, t, s, mask_id, schedule, temperature)
    u = torch.rand(logq.shape, generator=generator, device=logq.device, dtype=torch.float64)
    gumbel = -torch.log(-torch.log(u.clamp_min(1e-300)))
    return (logq.double() + gumbel).argmax(-1)


@torch.no_grad()
def ancestral_sample(
    model: Callable[[Tensor], Tensor],
    prompt: Tensor,
    gen_len: int,
    steps: int,
    generator: torch.Generator | None = None,
    *,
    schedule: str = "linear",
    temperature: float = 1.0,
    return_trajectory: bool = False,
) -> Tensor | tuple[Tensor, list[Tensor]]:
    """Sample ``gen_len`` tokens after ``prompt`` (B, P) by ``steps`` reverse steps on the uniform time grid.

    Starts from all-masked continuations at t = 1 and steps t_k = 1 - k/steps down to 0; the last step
    unmasks everything. Returns (B, P + gen_len) ids, plus the list of intermediate ``x_t`` when asked.
    """
    mask_id = int(model.mask_id)
    check_mask_id(prompt, mask_id, "prompt")
    for name, value in (("gen_len", gen_len), ("steps", steps)):
        check_int(name, value, low=1)
    x = torch.cat([prompt, torch.full((prompt.shape[0], gen_len), mask_id, dtype=prompt.dtype)], dim=1)
    trajectory = [x.clone()]
    for k in range(steps):
        t, s = 1.0 - k / steps, 1.0 - (k + 1) / steps
        x = reverse_step(model(x), x, t, max(s, 0.0), mask_id, generator, schedule, temperature)
        if return_trajectory:
            trajectory.append(x.clone())
    return (x, trajectory) if return_trajectory else x


def train_mdlm(
    model: nn.Module,
    batch_fn: Callable[[torch.Generator], tuple[Tensor, Tensor | None]],
    *,
    steps: int,
    lr: float,
    seed: int,
    schedule: str = "linear",
    eps: float = 1e-3,
    eval_fn: Callable[[nn.Module], dict[str, float]] | None = None,
    eval_every: int | None = None,
    description: str = "train MDLM",
    **loop_kwargs,
) -> LoopResult:
    """Train a denoiser on the MDLM NELBO with :func:`iclr26.lab.training.train_loop`.

    ``batch_fn(generator) -> (x0, maskable)`` draws a clean batch (``maskable`` may be None); the same seed gives
    the same run.
    """

    def loss_fn(m: nn.Module, gen: torch.Generator) -> Tensor:
        x0, maskable = batch_fn(gen)
        return mdlm_loss(m, x0, gen, maskable=maskable, schedule=schedule, eps=eps)

    return train_loop(
        model,
        loss_fn,
        steps=steps,
        lr=lr,
        seed=seed,
        eval_fn=eval_fn,
        eval_every=eval_every,
        description=description,
        **loop_kwargs,
    )
