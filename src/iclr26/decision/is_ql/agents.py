"""DQN, target-free DQN and iS-DQN on N lockstep seeds (a vmapped ensemble), with one shared training loop.

Every agent holds ``n_members`` independent Q-networks stacked in an :class:`iclr26.lab.rl.Ensemble`; one Adam
over the stacked parameters performs the N independent Adam updates. Batches have a leading member axis
(the layout of :class:`iclr26.lab.rl.ReplayBuffer`).

* :class:`DQN` — online net + hard-copied target net, refreshed every ``target_update`` updates.
* :class:`TargetFreeDQN` — targets from the current net (stop-gradient), no copy.
* :class:`ISDQN` — K+1 heads on one trunk; head k regresses on head k-1's bootstrapped values through the
  current trunk; every ``target_update`` updates the heads shift by one. ``shared_trunk=False`` keeps a full
  network copy for the frozen head 0 (equals DQN when K = 1).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field

import gymnasium as gym
import numpy as np
import torch
from gymnasium import spaces

from iclr26.checks import check_bool, check_float, check_int, check_probability, check_tensor
from iclr26.decision.is_ql.networks import SharedHeadQNet, check_hidden, shift_head_rows_
from iclr26.harness.progress import track
from iclr26.lab.rl import (
    Ensemble,
    ReplayBuffer,
    epsilon_greedy,
    hard_update,
    linear_schedule,
    make_vector_env,
    td_targets,
)

__all__ = ["DQN", "ISDQN", "TargetFreeDQN", "TrainResult", "ValueAgent", "train"]


def _member_seed(seed: int, j: int) -> int:
    return int(np.random.SeedSequence([seed, j]).generate_state(1)[0])


class ValueAgent:
    """Common machinery: spaces, the stacked online networks, Adam, acting, and the update step.

    Parameters
    ----------
    observation_space : a 1-D ``gymnasium.spaces.Box``.
    action_space : a ``gymnasium.spaces.Discrete``.
    n_members : number of independent seeds trained in lockstep.
    hidden, layer_norm : trunk of the Q-network.
    lr, adam_eps : Adam settings.
    gamma : discount.
    seed : initialisation seed (member j uses a seed derived from ``(seed, j)``).
    dtype : parameter dtype (float64 for exact tests).
    """

    K: int = 0

    def __init__(
        self,
        observation_space: spaces.Space,
        action_space: spaces.Space,
        *,
        n_members: int = 1,
        hidden: Sequence[int] = (128, 128),
        layer_norm: bool = False,
        lr: float = 3e-4,
        adam_eps: float = 1e-8,
        gamma: float = 0.99,
        seed: int = 0,
        dtype: torch.dtype = torch.float32,
    ) -> None:
        if not isinstance(action_space, spaces.Discrete):
            raise ValueError(
                f"action_space must be a gymnasium Discrete space, got {type(action_space).__name__}"
            )
        if not isinstance(observation_space, spaces.Box) or len(observation_space.shape) != 1:
            raise ValueError(f"observation_space must be a 1-D gymnasium Box, got {observation_space!r}")
        check_int("n_members", n_members, low=1)
        check_float("lr", lr, low=0.0, low_open=True)
        check_float("adam_eps", adam_eps, low=0.0)
        check_probability("gamma", gamma)
        check_int("seed", seed, low=0)
        if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
            raise TypeError(f"dtype must be a floating-point torch.dtype, got {dtype!r}")
        self.obs_dim = int(observation_space.shape[0])
        self.n_actions = int(action_space.n)
        self.n_members, self.gamma, self.dtype = n_members, float(gamma), dtype
        self.hidden, self.layer_norm = check_hidden(hidden), check_bool("layer_norm", layer_norm)
        members = []
        for j in range(n_members):
            with torch.random.fork_rng(devices=[]):
                torch.manual_seed(_member_seed(seed, j))
                members.append(self._make_net().to(dtype))
        self.template = members[0]
        self.online = Ensemble(members)
        self.optimizer = torch.optim.Adam(self.online.parameters(), lr=lr, eps=adam_eps, fused=True)
        self.n_updates = 0

    def _make_net(self) -> SharedHeadQNet:
        return SharedHeadQNet(self.obs_dim, self.n_actions, self.K, self.hidden, self.layer_norm)

    def stacked(self, ensemble: Ensemble | None = None) -> dict[str, torch.Tensor]:
        """The stacked (n_members, ...) parameters of ``ensemble`` (default: the online nets) by name."""
        ens = self.online if ensemble is None else ensemble
        if not isinstance(ens, Ensemble):
            raise TypeError(f"ensemble must be None or an Ensemble, got {type(ens).__name__}")
        return dict(ens.named_stacked())

    def _check_obs(self, obs: torch.Tensor, name: str) -> None:
        check_tensor(name, obs, floating=True, finite=True)
        if obs.ndim != 3 or obs.shape[0] != self.n_members or obs.shape[2] != self.obs_dim:
            raise ValueError(
                f"{name} must have shape (n_members={self.n_members}, batch, obs_dim={self.obs_dim}), "
                f"got {tuple(obs.shape)}"
            )

    def _batch(self, batch: dict[str, torch.Tensor]) -> tuple[torch.Tensor, ...]:
        missing = {"obs", "next_obs", "actions", "rewards", "terminated"} - set(
            batch if isinstance(batch, dict) else ()
        )
        if not isinstance(batch, dict) or missing:
            raise ValueError(
                "batch must be a dict with obs, next_obs, actions, rewards and terminated"
                + (
                    f"; missing {sorted(missing)}"
                    if isinstance(batch, dict)
                    else f", got {type(batch).__name__}"
                )
            )
        obs = torch.as_tensor(batch["obs"], dtype=self.dtype)
        next_obs = torch.as_tensor(batch["next_obs"], dtype=self.dtype)
        self._check_obs(obs, "batch['obs']")
        self._check_obs(next_obs, "batch['next_obs']")
        raw_actions = torch.as_tensor(batch["actions"])
        if raw_actions.is_floating_point() or raw_actions.is_complex() or raw_actions.dtype == torch.bool:
            raise TypeError(f"batch['actions'] must hold integer actions, got {raw_actions.dtype}")
        actions = raw_actions.to(torch.long)
        rewards = torch.as_tensor(batch["rewards"], dtype=self.dtype)
        terminated = torch.as_tensor(batch["terminated"], dtype=self.dtype)
        if (
            actions.shape != obs.shape[:2]
            or rewards.shape != obs.shape[:2]
            or terminated.shape != obs.shape[:2]
        ):
            raise ValueError("batch actions, rewards and terminated must have shape (n_members, batch)")
        bad = torch.stack(
            [
                ((actions < 0) | (actions >= self.n_actions)).any(),
                ~torch.isfinite(rewards).all(),
                ((terminated != 0) & (terminated != 1)).any(),
            ]
        ).tolist()
        if bad[0]:
            raise ValueError(
                f"batch['actions'] must lie in [0, n_actions={self.n_actions}), got values in "
                f"[{int(actions.min())}, {int(actions.max())}]"
            )
        if bad[1]:
            raise ValueError("batch['rewards'] must be finite, but holds NaN or infinite values")
        if bad[2]:
            raise ValueError("batch['terminated'] must hold 0/1 flags")
        return obs, actions, rewards, next_obs, terminated

    def acting_q(self, obs: np.ndarray | torch.Tensor) -> torch.Tensor:
        """Q-values used to act, (n_members, n_actions), for one observation per member."""
        arr = np.asarray(obs)
        if not np.issubdtype(arr.dtype, np.number):
            raise TypeError(f"obs must hold numbers, got dtype {arr.dtype}")
        x = torch.as_tensor(arr, dtype=self.dtype)
        if x.shape != (self.n_members, self.obs_dim):
            raise ValueError(
                f"obs must have shape (n_members={self.n_members}, obs_dim={self.obs_dim}), got {tuple(x.shape)}"
            )
        check_tensor("obs", x, finite=True)
        with torch.no_grad():
            q = self.online(x[:, None])[:, 0]  # (N, heads, A)
        if self.K == 0:
            return q[:, 0]
        return q[torch.arange(self.n_members), self._heads()]

    def _heads(self) -> torch.Tensor:
        return torch.zeros(self.n_members, dtype=torch.long)

    def act(self, obs: np.ndarray, epsilon: float, rng: np.random.Generator) -> np.ndarray:
        """Epsilon-greedy actions (n_members,) for observations (n_members, obs_dim)."""
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
        return epsilon_greedy(self.acting_q(obs), epsilon, rng)

    def losses(self, batch: dict[str, torch.Tensor]) -> torch.Tensor:
        """Per-member loss (n_members,) with gradient on the online parameters."""
        raise NotImplementedError

    def update(self, batch: dict[str, torch.Tensor]) -> np.ndarray:
        """One Adam step on every member, then the periodic target update / head shift; returns the losses."""
        loss = self.losses(batch)
        self.optimizer.zero_grad(set_to_none=True)
        loss.sum().backward()
        self.optimizer.step()
        self.n_updates += 1
        self._after_update()
        return loss.detach().cpu().numpy()

    def _after_update(self) -> None:
        pass

    def param_count(self) -> int:
        """Parameters one member keeps in memory (online net plus any target copy)."""
        return self.template.param_count()


class TargetFreeDQN(ValueAgent):
    """Target-free DQN: ``(sg[r + gamma (1 - done) max_a' Q(s', a')] - Q(s, a))^2`` with the current net."""

    def losses(self, batch: dict[str, torch.Tensor]) -> torch.Tensor:
        obs, actions, rewards, next_obs, terminated = self._batch(batch)
        b = obs.shape[1]
        q = self.online(torch.cat([obs, next_obs], 1))[:, :, 0]  # (N, 2B, A)
        q_sa = q[:, :b].gather(-1, actions[..., None])[..., 0]
        target = td_targets(rewards, q[:, b:].max(-1).values, terminated, self.gamma)
        return (q_sa - target).square().mean(1)


class DQN(ValueAgent):
    """DQN with a hard-copied target network refreshed every ``target_update`` updates."""

    def __init__(self, observation_space: spaces.Space, action_space: spaces.Space, *, target_update: int = 500,
                 **kwargs) -> None:  # fmt: skip
        self.target_update = check_int("target_update", target_update, low=1)
        super().__init__(observation_space, action_space, **kwargs)
        self.target = copy.deepcopy(self.online)
        self.target.requires_grad_(False)

    def losses(self, batch: dict[str, torch.Tensor]) -> torch.Tensor:
        obs, actions, rewards, next_obs, terminated = self._batch(batch)
        q_sa = self.online(obs)[:, :, 0].gather(-1, actions[..., None])[..., 0]
        with torch.no_grad():
            next_v = self.target(next_obs)[:, :, 0].max(-1).values
        return (q_sa - td_targets(rewards, next_v, terminated, self.gamma)).square().mean(1)

    def _after_update(self) -> None:
        if self.n_updates % self.target_update == 0:
            hard_update(self.target, self.online)

    def param_count(self) -> int:
        return 2 * self.template.param_count()


class ISDQN(ValueAgent):
    """iS-DQN: K Bellman iterations learned in parallel by heads 1..K of one shared-trunk network.

    Loss: ``sum_k mean_batch (sg[r + gamma (1 - done) max_a' Q_{k-1}(s', a')] - Q_k(s, a))^2`` where all heads
    use the current trunk, evaluated once on ``concat(s, s')``. Every ``target_update`` updates the heads shift
    (``omega_i <- omega_{i+1}``, head K kept). Acting uses a head drawn uniformly from 1..K per member and step,
    from its own random stream (``seed`` -> ``head_rng``) so that the draw leaves the other streams untouched.

    ``shared_trunk=False`` keeps a full copy (trunk + head 0) as the frozen Q_0 (refreshed at each shift): with
    K = 1 this is exactly DQN, with K > 1 an iterated DQN whose frozen network is a separate copy.
    """

    def __init__(self, observation_space: spaces.Space, action_space: spaces.Space, *, K: int = 4,
                 target_update: int = 500, shared_trunk: bool = True, seed: int = 0, **kwargs) -> None:  # fmt: skip
        self.K = check_int("K", K, low=1)
        self.target_update = check_int("target_update", target_update, low=1)
        self.shared_trunk = check_bool("shared_trunk", shared_trunk)
        super().__init__(observation_space, action_space, seed=seed, **kwargs)
        self.head_rng = np.random.default_rng([seed, 7919])
        self.frozen: Ensemble | None = None
        if not self.shared_trunk:
            self.frozen = copy.deepcopy(self.online)
            self.frozen.requires_grad_(False)

    def _heads(self) -> torch.Tensor:
        return torch.as_tensor(self.head_rng.integers(1, self.K + 1, size=self.n_members))

    def all_q(self, obs: torch.Tensor) -> torch.Tensor:
        """Q-values of every head, (n_members, batch, K+1, n_actions)."""
        self._check_obs(obs, "obs")
        return self.online(obs)

    def targets(self, batch: dict[str, torch.Tensor], q_next: torch.Tensor | None = None) -> torch.Tensor:
        """Stop-gradient targets (n_members, batch, K): column k-1 is head k's target from head k-1."""
        _, _, rewards, next_obs, terminated = self._batch(batch)
        if q_next is None:
            q_next = self.online(next_obs)
        next_v = q_next[:, :, : self.K].max(-1).values  # (N, B, K)
        if self.frozen is not None:
            with torch.no_grad():
                v0 = self.frozen(next_obs)[:, :, 0].max(-1).values
            next_v = torch.cat([v0[..., None], next_v[..., 1:]], -1)
        return td_targets(rewards[..., None], next_v, terminated[..., None], self.gamma)

    def head_losses(self, batch: dict[str, torch.Tensor]) -> torch.Tensor:
        """Per-member, per-head losses (n_members, K)."""
        obs, actions, _, next_obs, _ = self._batch(batch)
        b = obs.shape[1]
        q = self.online(torch.cat([obs, next_obs], 1))  # (N, 2B, K+1, A)
        idx = actions[:, :, None, None].expand(-1, -1, self.K, 1)
        q_sa = q[:, :b, 1:].gather(-1, idx)[..., 0]  # (N, B, K)
        target = self.targets(batch, q_next=q[:, b:])
        return (q_sa - target).square().mean(1)

    def losses(self, batch: dict[str, torch.Tensor]) -> torch.Tensor:
        return self.head_losses(batch).sum(-1)

    def shift_heads_(self) -> None:
        """Window shift of every member's heads (and refresh of the frozen copy when the trunk is not shared)."""
        p = self.stacked()
        shift_head_rows_(p["head.weight"], p["head.bias"], self.K + 1, self.n_actions)
        if self.frozen is not None:
            hard_update(self.frozen, self.online)

    def _after_update(self) -> None:
        if self.n_updates % self.target_update == 0:
            self.shift_heads_()

    def param_count(self) -> int:
        n = self.template.param_count()
        if self.frozen is not None:  # frozen trunk + head 0 replace the online head 0, which is never read
            n += self.template.trunk_param_count()
        return n


@dataclass
class TrainResult:
    """Per-member training episodes: ``episodes[j]`` lists ``(end_step, return)``; ``unfinished[j]`` is the
    return so far of the episode still running at the end; ``losses`` per update."""

    steps: int
    episodes: list[list[tuple[int, float]]]
    unfinished: list[float] = field(default_factory=list)
    losses: list[np.ndarray] = field(default_factory=list)

    def curve(self, n_points: int) -> tuple[np.ndarray, np.ndarray]:
        """Mean return of the episodes ending in each of ``n_points`` equal windows (carried forward when a
        window has none; windows before the first ending take its return, and a member that finished no
        episode takes the return so far of its running one): x (n_points,), y (n_members, n_points)."""
        check_int("n_points", n_points, low=1)
        check_int("steps", self.steps, low=1)
        if not self.unfinished and any(not eps for eps in self.episodes):
            raise ValueError(
                "every member needs a finished episode or an unfinished return (unfinished) to plot"
            )
        for j, eps in enumerate(self.episodes):
            for end, ret in eps:
                check_int(f"episodes[{j}] end step (in [1, steps={self.steps}])", end, 1, self.steps)
                check_float(f"episodes[{j}] return", ret)
        edges = np.linspace(0, self.steps, n_points + 1)
        y = np.full((len(self.episodes), n_points), np.nan)
        for j, eps in enumerate(self.episodes):
            ends = np.array([e for e, _ in eps], dtype=float)
            rets = np.array([r for _, r in eps], dtype=float)
            last = rets[0] if rets.size else (self.unfinished[j] if self.unfinished else np.nan)
            for i in range(n_points):
                sel = (ends > edges[i]) & (ends <= edges[i + 1])
                if sel.any():
                    last = float(rets[sel].mean())
                y[j, i] = last
        return edges[1:], y

    def auc(self, n_points: int = 50) -> np.ndarray:
        """Area under the windowed return curve (its mean), one value per member."""
        return self.curve(n_points)[1].mean(1)


def train(
    agent: ValueAgent,
    env_id: str,
    steps: int,
    *,
    seed: int = 0,
    buffer_size: int = 20_000,
    batch_size: int = 32,
    warmup: int = 1_000,
    eps_start: float = 1.0,
    eps_end: float = 0.01,
    eps_decay: int = 5_000,
    description: str = "",
) -> TrainResult:
    """Run ``agent`` on ``agent.n_members`` copies of ``env_id`` (copy j seeded ``seed + j``), one update per step.

    Epsilon decays linearly from ``eps_start`` to ``eps_end`` over ``eps_decay`` environment steps; updates start
    once ``warmup`` transitions per member are stored. Replay sampling uses ``seed``, the epsilon draws
    ``(seed, 1)``. The true last observation of an ending episode is stored as ``next_obs``; truncation is not
    termination.
    """
    if not isinstance(agent, ValueAgent):
        raise TypeError(f"agent must be a ValueAgent (DQN, TargetFreeDQN, ISDQN), got {type(agent).__name__}")
    if not isinstance(env_id, str) or env_id not in gym.registry:
        raise ValueError(f"env_id must be a registered gymnasium environment id, got {env_id!r}")
    check_int("steps", steps, low=1)
    check_int("seed", seed, low=0)
    check_int("warmup", warmup, low=1)
    check_int("buffer_size (at least warmup)", buffer_size, low=warmup)
    check_int("batch_size", batch_size, low=1)
    check_probability("eps_start", eps_start)
    check_probability("eps_end", eps_end)
    check_int("eps_decay", eps_decay, low=1)
    if not isinstance(description, str):
        raise TypeError(f"description must be a str, got {type(description).__name__}")
    n = agent.n_members
    venv, obs = make_vector_env(env_id, n, seed)
    if venv.single_observation_space.shape != (agent.obs_dim,):
        raise ValueError(
            f"env {env_id!r} observations have shape {venv.single_observation_space.shape}, the agent expects "
            f"({agent.obs_dim},)"
        )
    buffer = ReplayBuffer(buffer_size, (agent.obs_dim,), n, seed=seed)
    rng = np.random.default_rng([seed, 1])
    ep_ret = np.zeros(n)
    episodes: list[list[tuple[int, float]]] = [[] for _ in range(n)]
    losses: list[np.ndarray] = []
    for t in track(range(steps), description=description or f"{type(agent).__name__} {env_id}"):
        eps = linear_schedule(eps_start, eps_end, eps_decay, t)
        actions = agent.act(obs, eps, rng)
        next_obs, rewards, terminated, truncated, info = venv.step(actions)
        done = np.logical_or(terminated, truncated)
        real_next = np.array(next_obs, copy=True)
        for i in np.flatnonzero(done):
            real_next[i] = info["final_obs"][i]
        buffer.add(obs, actions, rewards, real_next, terminated.astype(np.float32))
        ep_ret += rewards
        for i in np.flatnonzero(done):
            episodes[i].append((t + 1, float(ep_ret[i])))
            ep_ret[i] = 0.0
        obs = next_obs
        if len(buffer) >= warmup:
            losses.append(agent.update(buffer.sample(batch_size)))
    venv.close()
    return TrainResult(steps=steps, episodes=episodes, unfinished=ep_ret.tolist(), losses=losses)
