"""DQN learners for continual RL: the shared fast learner and the baselines of the FAME paper (arXiv 2603.00903).

* :class:`Finetune` — one DQN trained through the whole sequence; its replay holds only the current task
  (cleared at every switch).
* :class:`Reset` — a fresh network and Adam at every task.
* :class:`LargeBuffer` — one DQN, one replay over the whole sequence (never cleared), its own lr (1e-4).
* :class:`MultiHeadDQN` — shared trunk, one output head per task id (a reference that is told the task).

Every learner owns separate seeded random streams for network initialization, action selection and replay
sampling (``numpy.random.SeedSequence(seed).spawn``), so that any extra randomness a subclass consumes (FAME's
meta learner) never shifts these streams. The TD loss is the MSE of ``Q(s, a)`` against
``r + gamma (1 - terminated) max_a' Q_target(s', a')``; the target network is hard-synced every ``target_sync``
gradient-eligible env steps; one Adam step every ``update_every`` env steps once the replay holds a batch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from iclr26.checks import check_float, check_int, check_probability, check_tensor
from iclr26.lab.rl import ReplayBuffer, epsilon_greedy, hard_update, linear_schedule, td_targets

__all__ = ["DQNConfig", "Finetune", "LargeBuffer", "MultiHeadDQN", "QNetwork", "Reset", "Transition"]


class Transition(NamedTuple):
    """One environment step as the learners see it (``next_obs`` is the true last observation at ends)."""

    obs: np.ndarray
    action: int
    reward: float
    next_obs: np.ndarray
    terminated: bool
    truncated: bool = False


@dataclass(frozen=True)
class DQNConfig:
    """Hyperparameters shared by every DQN learner (defaults: the gridworld quick setting of the brief)."""

    switch: int = 4000  # env steps per task
    lr: float = 5e-4
    gamma: float = 0.99
    batch_size: int = 64
    target_sync: int = 250
    epsilon: float = 0.1
    # epsilon starts at epsilon_start at every task arrival and falls linearly to epsilon over epsilon_decay
    # env steps of the task (0: a fixed epsilon, the official MinAtar code's setting)
    epsilon_start: float = 0.1
    epsilon_decay: int = 0
    update_every: int = 2
    replay_capacity: int = 4000
    channels: int = 32
    hidden: int = 256

    def __post_init__(self) -> None:
        for name in (
            "switch",
            "batch_size",
            "target_sync",
            "update_every",
            "replay_capacity",
            "channels",
            "hidden",
        ):
            check_int(name, getattr(self, name), low=1)
        check_float("lr", self.lr, low=0.0, low_open=True)
        check_probability("gamma", self.gamma)
        check_probability("epsilon", self.epsilon)
        check_probability("epsilon_start", self.epsilon_start)
        check_int("epsilon_decay", self.epsilon_decay, low=0)


def check_obs_shape(obs_shape: tuple[int, ...]) -> tuple[int, int, int]:
    """`obs_shape` as (channels, height, width): positive ints, the board at least 3 x 3 (the 3 x 3 conv)."""
    if isinstance(obs_shape, (str, bytes)) or not hasattr(obs_shape, "__len__") or len(obs_shape) != 3:
        raise ValueError(f"obs_shape must be (channels, height, width), got {obs_shape!r}")
    c, h, w = obs_shape
    return (
        check_int("obs_shape channels", c, low=1),
        check_int("obs_shape height", h, low=3),
        check_int("obs_shape width", w, low=3),
    )


def check_obs(
    name: str, obs: np.ndarray | torch.Tensor, obs_shape: tuple[int, ...], batched: bool
) -> torch.Tensor:
    """`obs` as a float32 tensor of shape `obs_shape` (with a leading batch axis when `batched`), finite."""
    try:
        x = torch.as_tensor(obs, dtype=torch.float32)
    except (TypeError, ValueError, RuntimeError) as e:
        raise TypeError(
            f"{name} must be a numeric array or tensor of shape {tuple(obs_shape)}, got {obs!r}"
        ) from e
    shape = tuple(obs_shape)
    if x.shape[int(batched) :] != shape or x.dim() != len(shape) + batched or not torch.isfinite(x).all():
        check_tensor(name, x, shape=((None,) if batched else ()) + shape, finite=True)
    return x


class QNetwork(nn.Module):
    """MinAtar-style CNN: conv3x3(channels) -> ReLU -> FC(hidden) -> ReLU -> ``n_heads * n_actions`` outputs.

    Kaiming-uniform weights and zero biases drawn from `generator`. With ``n_heads > 1`` the output is
    (batch, n_heads, n_actions).
    """

    def __init__(
        self,
        obs_shape: tuple[int, ...],
        n_actions: int,
        channels: int = 32,
        hidden: int = 256,
        n_heads: int = 1,
        generator: torch.Generator | None = None,
    ) -> None:
        super().__init__()
        c, h, w = self.obs_shape = check_obs_shape(obs_shape)
        self.n_actions, self.n_heads = (
            check_int("n_actions", n_actions, low=1),
            check_int("n_heads", n_heads, low=1),
        )
        channels, hidden = check_int("channels", channels, low=1), check_int("hidden", hidden, low=1)
        self.conv = nn.Conv2d(c, channels, 3)
        self.fc = nn.Linear(channels * (h - 2) * (w - 2), hidden)
        self.out = nn.Linear(hidden, n_actions * n_heads)
        for layer in (self.conv, self.fc, self.out):
            nn.init.kaiming_uniform_(layer.weight, nonlinearity="relu", generator=generator)
            nn.init.zeros_(layer.bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not (isinstance(x, torch.Tensor) and x.dim() == 4 and x.shape[1:] == self.obs_shape) or not (
            x.is_floating_point()
        ):  # the full check (and its message) only off the hot path
            check_tensor("x", x, floating=True, shape=(None, *self.obs_shape))
        z = F.relu(self.fc(F.relu(self.conv(x)).flatten(1)))
        out = self.out(z)
        return out.view(-1, self.n_heads, self.n_actions) if self.n_heads > 1 else out


def check_env(env, obs_shape: tuple[int, ...], n_actions: int) -> None:
    """Raise ValueError when `env`'s spaces differ from the learner's."""
    if not hasattr(env, "observation_space") or not hasattr(env, "action_space"):
        raise TypeError(f"env must be a gymnasium environment such as GridTasks, got {type(env).__name__}")
    shape = tuple(env.observation_space.shape)
    if shape != tuple(obs_shape):
        raise ValueError(
            f"env observation_space shape {shape} does not match the learner's obs_shape {obs_shape}"
        )
    n = int(getattr(env.action_space, "n", -1))
    if n != n_actions:
        raise ValueError(f"env action_space has {n} actions, the learner has n_actions={n_actions}")


class Finetune:
    """DQN that keeps training one network across tasks; its replay is cleared at every task switch.

    Parameters
    ----------
    obs_shape : (channels, height, width) of the image observations.
    n_actions : number of discrete actions.
    cfg : :class:`DQNConfig`.
    seed : root of the learner's random streams.
    """

    name = "finetune"
    clear_replay = True

    def __init__(self, obs_shape: tuple[int, ...], n_actions: int, cfg: DQNConfig, seed: int = 0) -> None:
        if not isinstance(cfg, DQNConfig):
            raise TypeError(f"cfg must be a DQNConfig, got {type(cfg).__name__}")
        check_obs_shape(obs_shape)
        check_int("n_actions", n_actions, low=2)
        check_int("seed", seed, low=0)
        self.obs_shape, self.n_actions, self.cfg = tuple(obs_shape), n_actions, cfg
        streams = np.random.SeedSequence(seed).spawn(5)
        self.init_gen = torch.Generator().manual_seed(int(streams[0].generate_state(1)[0]))
        self.act_rng = np.random.default_rng(streams[1])
        self.replay = ReplayBuffer(
            cfg.replay_capacity, self.obs_shape, 1, seed=int(streams[2].generate_state(1)[0])
        )
        self.aux_streams = streams[3:]  # for subclasses (meta learner, detection)
        self.q = self.new_network()
        self.q_target = self.new_network()
        hard_update(self.q_target, self.q)
        self.opt = self.new_optimizer(self.q)
        self.task_step = 0
        self.explore_from = 0
        self.task_index = -1
        self.task_id: str | None = None
        self.n_updates = 0

    def new_network(self) -> QNetwork:
        """A freshly initialized Q network drawn from the init stream."""
        return QNetwork(
            self.obs_shape, self.n_actions, self.cfg.channels, self.cfg.hidden, generator=self.init_gen
        )

    def new_optimizer(self, net: nn.Module) -> torch.optim.Optimizer:
        return torch.optim.Adam(net.parameters(), lr=self.cfg.lr)

    # -- the continual-RL interface -------------------------------------------------------------------------
    def on_task_start(self, env, task_id: str | None = None) -> None:
        """Prepare for a new task (bookkeeping; baselines step no env here)."""
        check_env(env, self.obs_shape, self.n_actions)
        self.task_index += 1
        self.task_id = task_id
        self.task_step = 0
        self.explore_from = 0  # task step where the epsilon schedule starts (FAME: after detection)
        if self.clear_replay:
            self.replay.clear()

    def q_values(self, obs: torch.Tensor, net: nn.Module | None = None) -> torch.Tensor:
        """Q(obs, .) of `net` (default: the online network) for the current task."""
        return (net or self.q)(obs)

    @torch.no_grad()
    def act(self, obs: np.ndarray) -> int:
        """Epsilon-greedy action of the online network for one observation."""
        q = self.q_values(check_obs("obs", obs, self.obs_shape, batched=False)[None])
        return int(epsilon_greedy(q, self.epsilon_now(), self.act_rng)[0])

    def epsilon_now(self) -> float:
        """The exploration rate at the current step of the task (see ``DQNConfig.epsilon_decay``)."""
        c = self.cfg
        if c.epsilon_decay == 0:
            return c.epsilon
        return linear_schedule(
            c.epsilon_start, c.epsilon, c.epsilon_decay, self.task_step - self.explore_from
        )

    @torch.no_grad()
    def greedy(self, obs: np.ndarray) -> np.ndarray:
        """Greedy actions for a batch of observations (the evaluation policy)."""
        return self.q_values(check_obs("obs", obs, self.obs_shape, batched=True)).argmax(-1).numpy()

    def observe(self, tr: Transition) -> None:
        """Store `tr`; every ``update_every`` steps take one TD step; sync the target every ``target_sync``."""
        check_int("tr.action", tr.action, 0, self.n_actions - 1)
        check_float("tr.reward", tr.reward)
        self.replay.add(tr.obs[None], [tr.action], [tr.reward], tr.next_obs[None], [float(tr.terminated)])
        self.task_step += 1
        cfg = self.cfg
        if len(self.replay) >= cfg.batch_size and self.task_step % cfg.update_every == 0:
            self.update()
        if self.task_step % cfg.target_sync == 0:
            hard_update(self.q_target, self.q)

    def on_task_end(self) -> None:
        """Nothing to do for plain DQN learners."""

    # -- learning -------------------------------------------------------------------------------------------
    def extra_loss(self, obs: torch.Tensor, q_all: torch.Tensor) -> torch.Tensor | None:
        """Hook for regularizers added to the TD loss (FAME's warm-up KL)."""
        return None

    def td_loss(self, batch: dict[str, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
        """MSE TD loss on a replay batch; returns (loss, Q(s, .))."""
        q_all = self.q_values(batch["obs"])
        q_sa = q_all.gather(1, batch["actions"][:, None]).squeeze(1)
        with torch.no_grad():
            nxt = self.q_values(batch["next_obs"], self.q_target).max(1).values
        target = td_targets(batch["rewards"], nxt, batch["terminated"], self.cfg.gamma)
        return F.mse_loss(q_sa, target), q_all

    def update(self) -> float:
        """One Adam step on a replay batch; returns the loss."""
        batch = {k: v[0] for k, v in self.replay.sample(self.cfg.batch_size).items()}
        loss, q_all = self.td_loss(batch)
        extra = self.extra_loss(batch["obs"], q_all)
        if extra is not None:
            loss = loss + extra
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        self.n_updates += 1
        return float(loss.detach())


class Reset(Finetune):
    """A fresh Q network (and Adam) at every task: no transfer, no interference."""

    name = "reset"

    def on_task_start(self, env, task_id: str | None = None) -> None:
        super().on_task_start(env, task_id)
        if self.task_index > 0:
            self.q = self.new_network()
            hard_update(self.q_target, self.q)
            self.opt = self.new_optimizer(self.q)


class LargeBuffer(Finetune):
    """One DQN and one replay holding the whole sequence (never cleared); set ``replay_capacity`` and ``lr``."""

    name = "largebuffer"
    clear_replay = False


class MultiHeadDQN(Finetune):
    """Shared trunk with one head per task id (the learner is told the task id at each switch)."""

    name = "multihead"

    def __init__(
        self,
        obs_shape: tuple[int, ...],
        n_actions: int,
        cfg: DQNConfig,
        task_ids: tuple[str, ...],
        seed: int = 0,
    ) -> None:
        if isinstance(task_ids, str) or not isinstance(task_ids, (tuple, list)):
            raise TypeError(f"task_ids must be a tuple of task names, got {task_ids!r}")
        if len(task_ids) < 1 or len(set(task_ids)) != len(task_ids):
            raise ValueError(f"task_ids must be distinct and non-empty, got {task_ids!r}")
        self.task_ids = tuple(task_ids)
        super().__init__(obs_shape, n_actions, cfg, seed)

    def new_network(self) -> QNetwork:
        return QNetwork(
            self.obs_shape,
            self.n_actions,
            self.cfg.channels,
            self.cfg.hidden,
            n_heads=len(self.task_ids),
            generator=self.init_gen,
        )

    def on_task_start(self, env, task_id: str | None = None) -> None:
        if task_id not in self.task_ids:
            raise ValueError(f"task_id must be one of {self.task_ids}, got {task_id!r}")
        super().on_task_start(env, task_id)

    def q_values(self, obs: torch.Tensor, net: nn.Module | None = None) -> torch.Tensor:
        head = self.task_ids.index(self.task_id) if self.task_id is not None else 0
        return (net or self.q)(obs)[:, head]
