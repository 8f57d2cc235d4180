"""FIFO replay buffer for one or several lockstep environments."""

from __future__ import annotations

import numpy as np
import torch

from iclr26.checks import check_int

__all__ = ["ReplayBuffer"]


class ReplayBuffer:
    """Stores transitions ``(obs, action, reward, next_obs, terminated)`` for ``n_envs`` streams.

    Each call to :meth:`add` appends one transition per stream (arrays with a leading ``n_envs`` axis). Once
    ``capacity`` transitions per stream are stored the oldest are overwritten. :meth:`sample` draws, for every
    stream independently, ``batch_size`` indices uniformly from that stream's stored transitions, and returns torch
    tensors with a leading ``n_envs`` axis — the layout an :class:`~iclr26.lab.rl.Ensemble` consumes. With
    ``n_envs = 1`` the leading axis is kept (use ``squeeze(0)``).
    """

    def __init__(
        self,
        capacity: int,
        obs_shape: tuple[int, ...],
        n_envs: int = 1,
        obs_dtype: np.dtype | type = np.float32,
        seed: int = 0,
    ) -> None:
        for name, value in (("capacity", capacity), ("n_envs", n_envs)):
            check_int(name, value, low=1)
        self.capacity, self.n_envs = capacity, n_envs
        self.obs_shape = tuple(int(s) for s in obs_shape)
        self.obs = np.zeros((n_envs, capacity, *self.obs_shape), dtype=obs_dtype)
        self.next_obs = np.zeros_like(self.obs)
        self.actions = np.zeros((n_envs, capacity), dtype=np.int64)
        self.rewards = np.zeros((n_envs, capacity), dtype=np.float32)
        self.terminated = np.zeros((n_envs, capacity), dtype=np.float32)
        self.pos = 0
        self.size = 0
        self.rng = np.random.default_rng(seed)

    def __len__(self) -> int:
        return self.size

    def add(self, obs, action, reward, next_obs, terminated) -> None:
        """Append one transition per stream; every argument has a leading ``n_envs`` axis."""
        obs = np.asarray(obs)
        if obs.shape != (self.n_envs, *self.obs_shape):
            raise ValueError(f"obs must have shape {(self.n_envs, *self.obs_shape)}, got {obs.shape}")
        i = self.pos
        self.obs[:, i] = obs
        self.next_obs[:, i] = np.asarray(next_obs)
        self.actions[:, i] = np.asarray(action)
        self.rewards[:, i] = np.asarray(reward)
        self.terminated[:, i] = np.asarray(terminated)
        self.pos = (self.pos + 1) % self.capacity
        self.size = min(self.size + 1, self.capacity)

    def clear(self) -> None:
        """Forget every stored transition (the sampling stream continues)."""
        self.pos = 0
        self.size = 0

    def ordered(self) -> dict[str, np.ndarray]:
        """Every stored transition, oldest first: arrays shaped (n_envs, size, ...) (a copy)."""
        idx = (np.arange(self.size) + (self.pos if self.size == self.capacity else 0)) % self.capacity
        return {
            "obs": self.obs[:, idx],
            "actions": self.actions[:, idx],
            "rewards": self.rewards[:, idx],
            "next_obs": self.next_obs[:, idx],
            "terminated": self.terminated[:, idx],
        }

    def sample(self, batch_size: int) -> dict[str, torch.Tensor]:
        """``batch_size`` transitions per stream: dict of tensors shaped (n_envs, batch_size, ...)."""
        check_int("batch_size", batch_size, low=1)
        if self.size == 0:
            raise ValueError("cannot sample from an empty replay buffer")
        idx = self.rng.integers(0, self.size, size=(self.n_envs, batch_size))
        rows = np.arange(self.n_envs)[:, None]
        return {
            "obs": torch.as_tensor(self.obs[rows, idx]),
            "actions": torch.as_tensor(self.actions[rows, idx]),
            "rewards": torch.as_tensor(self.rewards[rows, idx]),
            "next_obs": torch.as_tensor(self.next_obs[rows, idx]),
            "terminated": torch.as_tensor(self.terminated[rows, idx]),
        }
