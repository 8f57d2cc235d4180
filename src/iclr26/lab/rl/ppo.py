"""Policy-gradient pieces with action masking: masked distributions, GAE, the clipped PPO loss."""

from __future__ import annotations

import torch
from torch.distributions import Categorical

__all__ = ["gae", "masked_categorical", "masked_logits", "ppo_loss"]


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Logits with invalid actions (``mask`` False) set to the dtype's minimum; every row needs a valid action."""
    mask = mask.bool()
    if mask.shape != logits.shape:
        raise ValueError(f"mask must have the logits' shape {tuple(logits.shape)}, got {tuple(mask.shape)}")
    if not mask.any(-1).all():
        raise ValueError("mask must allow at least one action in every row")
    return logits.masked_fill(~mask, torch.finfo(logits.dtype).min)


def masked_categorical(logits: torch.Tensor, mask: torch.Tensor | None = None) -> Categorical:
    """A categorical distribution that gives masked actions probability exactly 0."""
    return Categorical(logits=logits if mask is None else masked_logits(logits, mask))


def gae(
    rewards: torch.Tensor,
    values: torch.Tensor,
    dones: torch.Tensor,
    last_value: torch.Tensor,
    gamma: float = 0.99,
    lam: float = 0.95,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Generalized advantage estimation over a rollout of shape (T, ...): returns ``(advantages, returns)``.

    ``dones[t]`` marks that the episode ended after step t (no bootstrap through it); ``last_value`` is V of the
    state after the last step.
    """
    if rewards.shape != values.shape or rewards.shape != dones.shape:
        raise ValueError("rewards, values and dones must have the same shape (T, ...)")
    adv = torch.zeros_like(rewards)
    running = torch.zeros_like(last_value)
    next_value = last_value
    for t in range(rewards.shape[0] - 1, -1, -1):
        live = 1.0 - dones[t].float()
        delta = rewards[t] + gamma * next_value * live - values[t]
        running = delta + gamma * lam * live * running
        adv[t] = running
        next_value = values[t]
    return adv, adv + values


def ppo_loss(
    new_logp: torch.Tensor,
    old_logp: torch.Tensor,
    advantages: torch.Tensor,
    values: torch.Tensor,
    returns: torch.Tensor,
    entropy: torch.Tensor,
    clip: float = 0.2,
    value_coef: float = 0.5,
    entropy_coef: float = 0.01,
) -> tuple[torch.Tensor, dict[str, float]]:
    """Clipped-surrogate PPO loss (Schulman et al., 2017) plus value and entropy terms; returns (loss, stats)."""
    ratio = (new_logp - old_logp).exp()
    surrogate = torch.min(ratio * advantages, ratio.clamp(1 - clip, 1 + clip) * advantages)
    policy = -surrogate.mean()
    value = (values - returns).square().mean()
    ent = entropy.mean()
    loss = policy + value_coef * value - entropy_coef * ent
    stats = {
        "policy_loss": float(policy.detach()),
        "value_loss": float(value.detach()),
        "entropy": float(ent.detach()),
        "clip_frac": float(((ratio.detach() - 1).abs() > clip).float().mean()),
    }
    return loss, stats
