"""Baselines of the SMC sampler: ancestral sampling, best-of-N, base-proposal SMC, guidance without weights."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch
import torch.nn.functional as F
from torch import Tensor

from iclr26.checks import check_int
from iclr26.lab.masked_diffusion import reverse_transition

from .smc import RewardFn, SMCResult, call_reward, model_device, sample_categorical, smc_sample

__all__ = ["ancestral", "base_smc", "best_of_n", "guidance_only"]


def ancestral(
    model: Callable[[Tensor], Tensor],
    num_samples: int,
    steps: int,
    generator: torch.Generator | None = None,
    seq_len: int | None = None,
) -> Tensor:
    """Plain ancestral samples (num_samples, L) from the untilted model (the lab's reverse process).

    The same steps and draws as :func:`iclr26.lab.masked_diffusion.ancestral_sample` (reverse kernel, Gumbel-max
    on float64 uniforms), written here so that a cuda model works with a CPU generator: the uniforms are drawn
    on the generator's device and moved to the model's (:func:`sample_categorical`).
    """
    check_int("num_samples", num_samples, low=1)
    check_int("steps", steps, low=1)
    length = check_int("seq_len", seq_len if seq_len is not None else getattr(model, "seq_len", None), low=1)
    mask_id = int(model.mask_id)
    x = torch.full((num_samples, length), mask_id, dtype=torch.long, device=model_device(model))
    with torch.no_grad():
        for k in range(steps):
            t, s = 1.0 - k / steps, 1.0 - (k + 1) / steps
            x = sample_categorical(reverse_transition(model(x), x, t, max(s, 0.0), mask_id), generator)
    return x


def best_of_n(
    model: Callable[[Tensor], Tensor],
    reward_fn: RewardFn,
    n: int,
    steps: int,
    runs: int = 1,
    generator: torch.Generator | None = None,
    seq_len: int | None = None,
) -> tuple[Tensor, Tensor]:
    """Per run, draw ``n`` ancestral samples and keep the highest-reward one: ``(best (runs, L), rewards)``.

    Uses ``n`` reward calls per run.
    """
    check_int("n", n, low=1)
    check_int("runs", runs, low=1)
    x = ancestral(model, runs * n, steps, generator, seq_len)
    with torch.no_grad():
        r = call_reward(reward_fn, F.one_hot(x, int(model.mask_id) + 1).float()).view(runs, n)
    best = r.argmax(-1)
    return x.view(runs, n, -1)[torch.arange(runs, device=x.device), best], r


def base_smc(
    model: Callable[[Tensor], Tensor], reward_fn: RewardFn, num_particles: int, steps: int, **kwargs
) -> SMCResult:
    """SMC with the base proposal ``q = p_theta`` (weights are twist ratios): :func:`smc_sample` shorthand."""
    return smc_sample(model, reward_fn, num_particles, steps, proposal="base", **kwargs)


def guidance_only(
    model: Callable[[Tensor], Tensor],
    reward_fn: RewardFn,
    num_samples: int,
    steps: int,
    alpha: float = 1.0,
    lambdas: Tensor | Sequence[float] | None = None,
    phi: int = 1,
    tau: float = 1.0,
    generator: torch.Generator | None = None,
    **kwargs,
) -> Tensor:
    """Samples of the gradient-tilted proposal alone (no weights, no resampling): (num_samples, L)."""
    res = smc_sample(
        model,
        reward_fn,
        1,
        steps,
        proposal="gradient",
        alpha=alpha,
        lambdas=lambdas,
        phi=phi,
        tau=tau,
        ess_threshold=0.0,
        runs=num_samples,
        generator=generator,
        **kwargs,
    )
    return res.particles[:, 0]
