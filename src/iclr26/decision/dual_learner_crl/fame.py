"""FAME: a fast DQN learner plus a meta learner that integrates every task's behaviour by maximum likelihood.

Paper: "Principled Fast and Meta Knowledge Learners for Continual Reinforcement Learning" (arXiv 2603.00903,
OpenReview loNTDX3wTn). Value-based version, following the MinAtar code's order of operations:

* fast learner: the DQN of :class:`~.agents.Finetune` (replay cleared at switches);
* fast2meta buffer: the last ``N`` (s, a) pairs the fast learner behaved with during a task;
* end of task k >= 2: a fresh Adam (lr ``meta_lr``, x0.95 every 2 epochs) trains the meta policy pi^M for
  ``meta_epochs`` epochs of ``|meta|/batch - 1`` NLL steps on meta-buffer batches, adding an NLL term on a fast2meta
  batch when ``i % (k - 1) == 0`` — the MLE of Proposition 1, ``argmax_pi sum_i E_{w_i}[log pi(a|s)]``, with the
  current task weighted like one old task; then fast2meta is appended to the FIFO meta buffer (also after task 1);
* start of task k >= 2 (adaptive meta warm-up): greedy rollouts of the fast learner and (k >= 3) of pi^M for
  ``detection_steps`` env steps each, stored in the fast replay; pi^M is chosen if its mean episode return beats
  the fast learner's (or a one-sided Welch t-test, ``use_ttest``) and a random reference (max Q of a fresh network
  at the first state), else the fast learner if it beats both, else the fast learner is reset (network and Adam);
* meta warm-up: while ``task_step < warmup`` (detection steps included) the TD loss gets
  ``lambda * KL(pi^M(.|s) || softmax(Q(s, .)))`` with pi^M detached; the fast network is not overwritten.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from scipy import stats
from torch.nn import functional as F

from iclr26.checks import check_bool, check_float, check_int, check_probability, check_tensor
from iclr26.decision.dual_learner_crl.agents import DQNConfig, Finetune, QNetwork, Transition, check_env
from iclr26.lab.rl import ReplayBuffer, hard_update

__all__ = ["FAME", "FAMEConfig", "kl_regularizer", "meta_nll_epochs"]


@dataclass(frozen=True)
class FAMEConfig(DQNConfig):
    """:class:`DQNConfig` plus the meta-learner and warm-up settings (gridworld quick defaults)."""

    meta_lr: float = 1e-3
    meta_capacity: int = 10_000
    fast2meta: int = 1_000  # N: last N steps of each task kept for the meta learner
    meta_epochs: int = 50
    meta_batch: int = 64
    detection_steps: int = 300  # 0 disables detection (always keep the fast learner)
    warmup: int = 2_000  # L
    kl_weight: float = 1.0  # lambda
    use_ttest: bool = False
    p_explore: float = 0.0  # meta-guided exploration during warm-up (undefined in the official parser)
    # the detection's "random" reference V_r: "q_max" (official: max Q of a fresh network at the first state)
    # or "random_policy" (the env's expected return of a uniform random policy, ``env.random_return()``)
    random_reference: str = "q_max"

    def __post_init__(self) -> None:
        check_float("kl_weight (lambda)", self.kl_weight, low=0.0)
        check_int("detection_steps", self.detection_steps, low=0)
        check_int("warmup", self.warmup, low=0)
        check_probability("p_explore", self.p_explore)
        if self.random_reference not in ("q_max", "random_policy"):
            raise ValueError(
                f"random_reference must be 'q_max' or 'random_policy', got {self.random_reference!r}"
            )
        check_bool("use_ttest", self.use_ttest)
        super().__post_init__()
        for name in ("meta_capacity", "fast2meta", "meta_epochs", "meta_batch"):
            check_int(name, getattr(self, name), low=1)
        check_float("meta_lr", self.meta_lr, low=0.0, low_open=True)
        if self.fast2meta > self.switch:
            raise ValueError(
                f"fast2meta (N = {self.fast2meta}) must not exceed switch (= {self.switch}) steps"
            )
        if 2 * self.detection_steps >= self.switch:
            raise ValueError(
                f"detection_steps ({self.detection_steps}) x 2 must be smaller than switch ({self.switch})"
            )


def kl_regularizer(q_values: torch.Tensor, meta_logits: torch.Tensor) -> torch.Tensor:
    """``KL(pi^M || softmax(Q))`` averaged over the batch, pi^M detached (``kl_div(log_softmax(Q), pi^M)``)."""
    check_tensor("q_values", q_values, ndim=2, floating=True, finite=True)
    check_tensor("meta_logits", meta_logits, floating=True, finite=True, shape=tuple(q_values.shape))
    return F.kl_div(F.log_softmax(q_values, -1), F.softmax(meta_logits.detach(), -1), reduction="batchmean")


def meta_nll_epochs(
    net: torch.nn.Module,
    meta: ReplayBuffer,
    fresh: ReplayBuffer | None,
    task_number: int,
    epochs: int,
    batch_size: int,
    lr: float,
) -> list[float]:
    """Train `net`'s logits by NLL on `meta` batches, plus a `fresh` batch when ``i % (task_number - 1) == 0``.

    A new Adam(lr) with lr x 0.95 every 2 epochs; each epoch has ``max(len(meta) // batch_size - 1, 1)`` steps
    (``len(fresh) // batch_size`` steps when `meta` is empty). Returns the mean loss of each epoch.
    """
    if not isinstance(net, torch.nn.Module):
        raise TypeError(f"net must be a torch.nn.Module, got {type(net).__name__}")
    for name, buf in (("meta", meta), ("fresh", fresh)):
        if not (isinstance(buf, ReplayBuffer) or (name == "fresh" and buf is None)):
            raise TypeError(
                f"{name} must be a ReplayBuffer{' or None' if name == 'fresh' else ''}, got {buf!r}"
            )
    check_int("task_number", task_number, low=1)
    check_int("epochs", epochs, low=1)
    check_int("batch_size", batch_size, low=1)
    check_float("lr", lr, low=0.0, low_open=True)
    if len(meta) == 0 and (fresh is None or len(fresh) == 0):
        raise ValueError("meta_nll_epochs needs data in the meta or the fast2meta buffer")
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.95)
    every = max(task_number - 1, 1)
    steps = max(len(meta) // batch_size - 1, 1) if len(meta) else max(len(fresh) // batch_size, 1)
    losses = []
    for _ in range(epochs):
        total = 0.0
        for i in range(steps):
            loss = torch.zeros(())
            if len(meta):
                b = meta.sample(batch_size)
                loss = loss + F.cross_entropy(net(b["obs"][0]), b["actions"][0])
            if fresh is not None and len(fresh) and (i % every == 0 or not len(meta)):
                b = fresh.sample(batch_size)
                loss = loss + F.cross_entropy(net(b["obs"][0]), b["actions"][0])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach())
        sched.step()
        losses.append(total / steps)
    return losses


def _ordered(buf: ReplayBuffer) -> tuple[np.ndarray, np.ndarray]:
    """A buffer's stored (obs, actions) from oldest to newest."""
    stored = buf.ordered()
    return stored["obs"][0], stored["actions"][0]


class FAME(Finetune):
    """FAME with a DQN fast learner (see the module docstring for the algorithm).

    Parameters
    ----------
    obs_shape, n_actions : observation image shape (C, H, W) and number of actions.
    cfg : :class:`FAMEConfig`.
    seed : root of the random streams (fast init, actions, replay, meta learner, detection are separate).

    :attr:`decisions` logs one dict per task arrival: ``task_index``, ``task``, ``choice`` ("meta", "fast",
    "reset" or "none" at the first task), the detection mean returns and the random reference.
    """

    name = "fame"

    def __init__(self, obs_shape: tuple[int, ...], n_actions: int, cfg: FAMEConfig, seed: int = 0) -> None:
        if not isinstance(cfg, FAMEConfig):
            raise TypeError(f"cfg must be a FAMEConfig, got {type(cfg).__name__}")
        super().__init__(obs_shape, n_actions, cfg, seed)
        meta_stream, det_stream = self.aux_streams
        meta_seed = int(meta_stream.generate_state(1)[0])
        self.meta_gen = torch.Generator().manual_seed(meta_seed)
        self.meta_net = self.new_network_from(self.meta_gen)
        self.meta_buffer = ReplayBuffer(cfg.meta_capacity, self.obs_shape, 1, seed=meta_seed + 1)
        self.fast2meta = ReplayBuffer(cfg.fast2meta, self.obs_shape, 1, seed=meta_seed + 2)
        self.det_rng = np.random.default_rng(det_stream)
        self.warm = False
        self.meta_trained = False
        self.decisions: list[dict] = []
        self.meta_losses: list[list[float]] = []

    def new_network_from(self, gen: torch.Generator) -> QNetwork:
        """A network of the fast learner's architecture drawn from `gen`."""
        c = self.cfg
        return QNetwork(self.obs_shape, self.n_actions, c.channels, c.hidden, generator=gen)

    # -- detection ------------------------------------------------------------------------------------------
    def _rollout(self, env, policy, steps: int) -> list[float]:
        """Run `policy` greedily for `steps` env steps, storing transitions in the fast replay; episode returns."""
        obs, _ = env.reset(seed=int(self.det_rng.integers(2**31)))
        returns, ret = [], 0.0
        for _ in range(steps):
            a = policy(obs)
            nxt, r, term, trunc, _ = env.step(a)
            self.replay.add(obs[None], [a], [r], nxt[None], [float(term)])
            self.task_step += 1
            ret += r
            if term or trunc:
                returns.append(ret)
                ret = 0.0
                nxt, _ = env.reset()
            obs = nxt
        return returns or [ret]

    @torch.no_grad()
    def _greedy_fast(self, obs: np.ndarray) -> int:
        return int(self.q(torch.as_tensor(obs)[None]).argmax(-1)[0])

    @torch.no_grad()
    def _greedy_meta(self, obs: np.ndarray) -> int:
        return int(self.meta_net(torch.as_tensor(obs)[None]).argmax(-1)[0])

    def _detect(self, env) -> dict:
        cfg = self.cfg
        fresh = self.new_network()
        obs0, _ = env.reset(seed=int(self.det_rng.integers(2**31)))
        if cfg.random_reference == "random_policy":
            if not callable(getattr(env, "random_return", None)):
                raise TypeError(
                    "random_reference='random_policy' needs an env with random_return(), e.g. GridTasks"
                )
            v_random = float(env.random_return())
        else:
            with torch.no_grad():
                v_random = float(fresh(torch.as_tensor(obs0)[None]).max())
        fast = self._rollout(env, self._greedy_fast, cfg.detection_steps)
        use_meta = self.meta_trained
        meta = self._rollout(env, self._greedy_meta, cfg.detection_steps) if use_meta else []
        m_fast = float(np.mean(fast))
        m_meta = float(np.mean(meta)) if meta else -np.inf
        if use_meta and cfg.use_ttest:
            if np.std(meta) == 0 and np.std(fast) == 0:
                meta_better = m_meta > m_fast
            else:
                meta_better = bool(
                    stats.ttest_ind(meta, fast, equal_var=False, alternative="greater").pvalue < 0.05
                )
        else:
            meta_better = m_meta > m_fast
        if use_meta and meta_better and m_meta > v_random:
            choice = "meta"
        elif m_fast > m_meta and m_fast > v_random:
            choice = "fast"
        else:
            choice = "reset"
            self.q = fresh
            self.opt = self.new_optimizer(self.q)
        hard_update(self.q_target, self.q)
        return {
            "choice": choice,
            "fast_return": m_fast,
            "meta_return": m_meta if meta else None,
            "random_value": v_random,
            "meta_ran": use_meta,
        }

    # -- the continual-RL interface -------------------------------------------------------------------------
    def on_task_start(self, env, task_id: str | None = None) -> None:
        """Clear the fast replay, then (from the second task on) run detection and choose the warm-up."""
        super().on_task_start(env, task_id)
        entry: dict = {"task_index": self.task_index, "task": task_id, "choice": "none", "meta_ran": False}
        self.warm = False
        if self.task_index > 0 and self.cfg.detection_steps > 0:
            entry |= self._detect(env)
            self.warm = entry["choice"] == "meta"
        self.explore_from = self.task_step  # greedy detection rollouts do not use up the exploration schedule
        self.decisions.append(entry)

    @torch.no_grad()
    def act(self, obs: np.ndarray) -> int:
        """Epsilon-greedy fast learner; during warm-up, with prob ``p_explore`` the meta learner's greedy action."""
        if self.warm and self.cfg.p_explore > 0 and self.task_step < self.cfg.warmup:
            if self.det_rng.random() < self.cfg.p_explore:
                return self._greedy_meta(obs)
        return super().act(obs)

    def observe(self, tr: Transition) -> None:
        """Fast-learner step plus the (s, a) record in the fast2meta window."""
        self.fast2meta.add(tr.obs[None], [tr.action], [0.0], tr.obs[None], [0.0])
        super().observe(tr)

    def extra_loss(self, obs: torch.Tensor, q_all: torch.Tensor) -> torch.Tensor | None:
        if not self.warm or self.task_step >= self.cfg.warmup or self.cfg.kl_weight == 0:
            return None
        with torch.no_grad():
            logits = self.meta_net(obs)
        return self.cfg.kl_weight * kl_regularizer(q_all, logits)

    def on_task_end(self) -> None:
        """Train the meta learner (task k >= 2), then move the fast2meta window into the meta buffer."""
        cfg = self.cfg
        if self.task_index >= 1:
            self.meta_losses.append(
                meta_nll_epochs(
                    self.meta_net,
                    self.meta_buffer,
                    self.fast2meta,
                    self.task_index + 1,
                    cfg.meta_epochs,
                    cfg.meta_batch,
                    cfg.meta_lr,
                )
            )
            self.meta_trained = True
        obs, actions = _ordered(self.fast2meta)
        for o, a in zip(obs, actions):
            self.meta_buffer.add(o[None], [a], [0.0], o[None], [0.0])
        self.fast2meta.clear()

    @torch.no_grad()
    def meta_greedy(self, obs: np.ndarray) -> np.ndarray:
        """Greedy actions of the meta learner for a batch of observations."""
        return self.meta_net(torch.as_tensor(obs, dtype=torch.float32)).argmax(-1).numpy()


def check_sequence(env, sequence, obs_shape, n_actions) -> None:
    """Every task of `sequence` must exist in `env` and share the learner's spaces."""
    check_env(env, obs_shape, n_actions)
    if isinstance(sequence, str) or not isinstance(sequence, (tuple, list)) or not sequence:
        raise ValueError(f"sequence must be a non-empty tuple of task names, got {sequence!r}")
    for t in sequence:
        if t not in env.tasks:
            raise ValueError(f"sequence task {t!r} is not in the env's tasks {sorted(env.tasks)}")
