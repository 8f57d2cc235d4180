"""Value-based pieces: epsilon-greedy action choice, schedules, TD targets, target-network copies."""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from iclr26.checks import check_int, check_probability

__all__ = ["epsilon_greedy", "hard_update", "linear_schedule", "td_targets"]


def linear_schedule(start: float, end: float, duration: int, t: int) -> float:
    """``start`` at t = 0, linearly to ``end`` at t = ``duration``, then constant."""
    check_int("duration", duration, low=1)
    return end + (start - end) * max(0.0, 1.0 - t / duration)


def epsilon_greedy(q_values: torch.Tensor, epsilon: float, rng: np.random.Generator) -> np.ndarray:
    """Greedy actions of ``q_values`` (..., A), each replaced by a uniform action with probability ``epsilon``."""
    check_probability("epsilon", epsilon)
    greedy = q_values.argmax(-1).cpu().numpy()
    explore = rng.random(greedy.shape) < epsilon
    random = rng.integers(0, q_values.shape[-1], size=greedy.shape)
    return np.where(explore, random, greedy)


def td_targets(
    rewards: torch.Tensor, next_values: torch.Tensor, terminated: torch.Tensor, gamma: float
) -> torch.Tensor:
    """One-step targets ``r + gamma (1 - terminated) V(s')`` without gradient (truncation is not termination)."""
    check_probability("gamma", gamma)
    return (rewards + gamma * (1.0 - terminated) * next_values).detach()


@torch.no_grad()
def hard_update(target: nn.Module, source: nn.Module) -> None:
    """Copy ``source``'s parameters and buffers into ``target``."""
    target.load_state_dict(source.state_dict())
