"""RL for the sender: group-normalised policy gradients on persuasion environments, batched over games.

Paper: "Towards Strategic Persuasion with Language Models" (Cheng, You; ICLR 2026, arXiv 2509.22989). The paper
trains an LLM sender with PPO/GRPO on the reward r = v(a, omega) - v_hat(mu0) against a frozen receiver. Offline
the sender is a PyTorch policy that maps a state to logits over the signals (``"tabular"``: one logit matrix;
``"mlp"``: a one-hidden-layer network of the one-hot state). Two ways to train it:

* ``mode="commitment"`` (the default, the one the claim uses). The policy's logits theta define a scheme. Each
  update samples a group of schemes pi_j = softmax(theta + sigma eps_j), eps_j ~ N(0, I), sigma annealed
  geometrically (0.5 -> 0.05); scores each by its value against a receiver that *knows* pi_j (the exact
  V(pi_j) - V_0, or the mean reward of M sampled episodes); normalises the scores within the group (GRPO:
  A_j = (r_j - mean) / std; ``algo="reinforce"``: r_j - mean) and takes the REINFORCE step
  grad = (1/G) sum_j A_j grad_theta log N(theta + sigma eps_j; theta, sigma^2) = (1/G) sum_j A_j eps_j / sigma.
  This is the offline analogue of an LLM sender whose message decides what it discloses while the receiver
  reacts to the message's content.
* ``mode="per_episode"`` (the negative control). Each update samples a group of episodes omega ~ mu0,
  s ~ pi_theta(. | omega); the receiver decodes s with the *current* pi_theta and acts; the step is
  sum_j A_j grad log pi_theta(s_j | omega_j). It treats the receiver's reading of a signal as fixed, so it
  ignores that sending the favourable signal more often dilutes it.

Games of different sizes train together: states, actions and signals are padded and masked.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from iclr26.agents.bayesian_persuasion.env import PersuasionEnv, sample_index
from iclr26.agents.bayesian_persuasion.game import check_scheme
from iclr26.agents.bayesian_persuasion.receivers import outcome_probs
from iclr26.checks import check_choice, check_float, check_int

__all__ = [
    "MODES",
    "POLICIES",
    "BatchedMLP",
    "TabularLogits",
    "TrainedSender",
    "train_sender",
    "train_senders",
]

POLICIES = ("tabular", "mlp")
DEFAULT_LR = {"tabular": 0.02, "mlp": 0.001}  # Adam; a larger step overshoots the receiver's thresholds
DEFAULT_SIGMA = (2.0, 0.05)
INIT_FLOOR = 0.01  # a warm-start scheme's probabilities are floored here before taking logs
MODES = ("commitment", "per_episode")
ALGOS = ("grpo", "reinforce")
SCORINGS = ("exact", "sampled")


@dataclass
class TrainedSender:
    """The outcome of training one sender: its final scheme and value, and the value along training."""

    scheme: np.ndarray  # (Omega, S): softmax of the final logits (the deterministic committed scheme)
    value: float  # V(scheme) against the environment's receiver
    v0: float  # the no-information value v_hat(mu0)
    steps: list[int]  # evaluation points
    values: list[float]  # V(softmax(theta)) at each evaluation point
    mode: str
    policy: str


class _Padded:
    """Several environments' games, padded to common (Omega, A, S) with masks, as NumPy arrays."""

    def __init__(self, envs: Sequence[PersuasionEnv]) -> None:
        self.envs = list(envs)
        n = len(self.envs)
        self.n_states = np.array([e.game.n_states for e in envs])
        self.n_actions = np.array([e.game.n_actions for e in envs])
        self.n_signals = np.array([e.n_signals for e in envs])
        om, am, sm = self.n_states.max(), self.n_actions.max(), self.n_signals.max()
        self.prior = np.zeros((n, om))
        self.u = np.zeros((n, am, om))
        self.v = np.zeros((n, am, om))
        self.action_mask = np.zeros((n, am), dtype=bool)
        self.signal_mask = np.zeros((n, sm), dtype=bool)
        for b, e in enumerate(envs):
            g = e.game
            self.prior[b, : g.n_states] = g.prior
            self.u[b, : g.n_actions, : g.n_states] = g.u_receiver
            self.v[b, : g.n_actions, : g.n_states] = g.v_sender
            self.action_mask[b, : g.n_actions] = True
            self.signal_mask[b, : e.n_signals] = True
        self.gamma = np.array([e.receiver.gamma for e in envs])
        self.lam = np.array([e.receiver.lam for e in envs])
        self.tol = np.array([e.game.tie_tol for e in envs])
        self.v0 = np.array([e.v0 for e in envs])
        self.shape = (n, om, sm)

    def outcomes(self, pis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Action probabilities and weighted payoffs (B, K, S, A) for schemes `pis` (B, K, Omega, S)."""
        joint = self.prior[:, None, :, None] * pis
        return outcome_probs(
            self.prior[:, None],
            self.u[:, None],
            self.v[:, None],
            joint,
            tol=self.tol[:, None],
            gamma=self.gamma[:, None],
            lam=self.lam[:, None],
            action_mask=self.action_mask[:, None],
        )

    def values(self, pis: np.ndarray) -> np.ndarray:
        """V(pi) for schemes `pis` (B, K, Omega, S): (B, K)."""
        probs, payoff = self.outcomes(pis)
        return (probs * payoff).sum((-1, -2))

    def sampled_rewards(self, pis: np.ndarray, episodes: int, rng: np.random.Generator) -> np.ndarray:
        """Mean reward of `episodes` sampled episodes per scheme (B, K), each receiver knowing its scheme."""
        probs, _ = self.outcomes(pis)  # (B, K, S, A)
        b, k = pis.shape[:2]
        prior = np.broadcast_to(self.prior[:, None, None, :], (b, k, episodes, self.prior.shape[1]))
        omega = sample_index(prior, rng)  # (B, K, M)
        bi, ki = np.arange(b)[:, None, None], np.arange(k)[None, :, None]
        signal = sample_index(pis[bi, ki, omega], rng)
        action = sample_index(probs[bi, ki, signal], rng)
        return (self.v[bi, action, omega] - self.v0[:, None, None]).mean(-1)


class TabularLogits(nn.Module):
    """One logit matrix theta[b] (Omega, S) per game: the tabular sender."""

    def __init__(
        self,
        shape: tuple[int, int, int],
        generator: torch.Generator,
        init_scale: float = 0.01,
        init: np.ndarray | None = None,
    ) -> None:
        super().__init__()
        theta = init_scale * torch.randn(shape, generator=generator, dtype=torch.float64)
        if init is not None:
            theta = theta + torch.as_tensor(init)
        self.theta = nn.Parameter(theta)

    def forward(self) -> torch.Tensor:
        return self.theta


class BatchedMLP(nn.Module):
    """Per game, logits(omega) = W2 tanh(W1 onehot(omega) + b1) + b2 (one hidden layer of `hidden` units)."""

    def __init__(self, shape: tuple[int, int, int], generator: torch.Generator, hidden: int = 32) -> None:
        super().__init__()
        b, om, sm = shape

        def rand(*size: int, scale: float) -> nn.Parameter:
            return nn.Parameter(scale * torch.randn(size, generator=generator, dtype=torch.float64))

        self.w1 = rand(b, om, hidden, scale=1.0)  # onehot(omega) @ W1 is row omega of W1
        self.b1 = rand(b, 1, hidden, scale=0.1)
        self.w2 = rand(b, hidden, sm, scale=0.01 / math.sqrt(hidden))  # start near babbling
        self.b2 = nn.Parameter(torch.zeros(b, 1, sm, dtype=torch.float64))

    def forward(self) -> torch.Tensor:
        return torch.tanh(self.w1 + self.b1) @ self.w2 + self.b2


def _initial_logits(
    envs: Sequence[PersuasionEnv], init: Sequence[np.ndarray | None] | None, shape: tuple, policy: str
) -> np.ndarray | None:
    if init is None:
        return None
    if policy != "tabular":
        raise ValueError(f"init (warm-start schemes) needs policy='tabular', got policy={policy!r}")
    if len(init) != len(envs):
        raise ValueError(f"init must give one scheme or None per environment ({len(envs)}), got {len(init)}")
    out = np.zeros(shape)
    for b, (e, pi) in enumerate(zip(envs, init)):
        if pi is None:
            continue
        pi = check_scheme(e.game, pi)
        if pi.shape[1] != e.n_signals:
            raise ValueError(f"init[{b}] must have n_signals = {e.n_signals} columns, got shape {pi.shape}")
        floored = np.maximum(pi, INIT_FLOOR)
        out[b, : e.game.n_states, : e.n_signals] = np.log(floored / floored.sum(1, keepdims=True))
    return out


def _advantages(r: np.ndarray, algo: str) -> np.ndarray:
    """Within-group normalised rewards (over the last axis); zero for a group whose rewards are all equal."""
    centred = r - r.mean(-1, keepdims=True)
    if algo == "reinforce":
        return centred
    std = r.std(-1, keepdims=True)
    return np.where(std > 1e-12, centred / np.where(std > 1e-12, std, 1.0), 0.0)


def _sigma_schedule(sigma: float | tuple[float, float], steps: int) -> np.ndarray:
    if isinstance(sigma, (tuple, list)):
        if len(sigma) != 2:
            raise ValueError(f"sigma must be a float or a (start, end) pair, got {sigma!r}")
        start = check_float("sigma start", sigma[0], 0.0, low_open=True)
        end = check_float("sigma end", sigma[1], 0.0, low_open=True)
    else:
        start = end = check_float("sigma", sigma, 0.0, low_open=True)
    return start * (end / start) ** (np.arange(steps) / max(steps - 1, 1))


def train_senders(
    envs: Sequence[PersuasionEnv],
    policy: str = "tabular",
    mode: str = "commitment",
    algo: str = "grpo",
    group: int = 16,
    sigma: float | tuple[float, float] = DEFAULT_SIGMA,
    lr: float | None = None,
    steps: int = 3000,
    *,
    scoring: str = "exact",
    episodes: int = 32,
    hidden: int = 32,
    init: Sequence[np.ndarray | None] | None = None,
    eval_every: int = 50,
    seed: int = 0,
) -> list[TrainedSender]:
    """Train one sender per environment, all in one batch; see the module docstring for the two modes.

    Parameters
    ----------
    envs : the environments (their games, receivers and vocabularies; one sender each).
    policy : ``"tabular"`` or ``"mlp"`` (one hidden layer of `hidden` tanh units on the one-hot state).
    mode : ``"commitment"`` (groups of perturbed schemes, each scored against a receiver that knows it) or
        ``"per_episode"`` (groups of episodes decoded with the current scheme; the negative control).
    algo : ``"grpo"`` (advantages normalised by the group's std) or ``"reinforce"`` (mean baseline only).
    group : schemes (commitment) or episodes (per_episode) per update and game.
    sigma : the perturbation scale in logit space, a float or a geometric (start, end) schedule.
    lr : Adam's step (default 0.02 tabular, 0.001 mlp).
    steps : updates.
    scoring : ``"exact"`` (V(pi_j) - V_0) or ``"sampled"`` (mean reward of `episodes` episodes per scheme).
    init : per environment, None (start near the uniform, babbling scheme) or a scheme (Omega, S) to start
        from (tabular only; probabilities floored at 0.01).
    eval_every : record V(softmax(theta)) every this many updates.
    seed : seeds the initial logits, the perturbations and the episodes.
    """
    envs = list(envs)
    if not envs or not all(isinstance(e, PersuasionEnv) for e in envs):
        raise TypeError(f"envs must be a non-empty sequence of PersuasionEnv, got {envs!r}")
    check_choice("policy", policy, POLICIES)
    check_choice("mode", mode, MODES)
    check_choice("algo", algo, ALGOS)
    check_choice("scoring", scoring, SCORINGS)
    group = check_int("group", group, low=2)
    steps = check_int("steps", steps, low=1)
    episodes = check_int("episodes", episodes, low=1)
    eval_every = check_int("eval_every", eval_every, low=1)
    lr = check_float("lr", DEFAULT_LR[policy] if lr is None else lr, 0.0, low_open=True)
    hidden = check_int("hidden", hidden, low=1)
    sigmas = _sigma_schedule(sigma, steps)
    seed = check_int("seed", seed, low=0)

    batch = _Padded(envs)
    rng = np.random.default_rng([seed, 22989])
    gen = torch.Generator().manual_seed(int(rng.integers(2**31)))
    start = _initial_logits(envs, init, batch.shape, policy)
    if policy == "tabular":
        net: nn.Module = TabularLogits(batch.shape, gen, init=start)
    else:
        net = BatchedMLP(batch.shape, gen, hidden)
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    signal_mask = torch.as_tensor(batch.signal_mask)[:, None, :]  # (B, 1, S)

    def scheme(logits: torch.Tensor) -> torch.Tensor:
        return torch.softmax(logits.masked_fill(~signal_mask, -math.inf), dim=-1)

    curve_x: list[int] = []
    curve_y: list[np.ndarray] = []
    for t in range(steps):
        if t % eval_every == 0:
            with torch.no_grad():
                curve_x.append(t)
                curve_y.append(batch.values(scheme(net()).numpy()[:, None])[:, 0])
        logits = net()  # (B, Omega, S)
        if mode == "commitment":
            eps = torch.as_tensor(rng.standard_normal((*batch.shape[:1], group, *batch.shape[1:])))
            z = logits.detach()[:, None] + sigmas[t] * eps  # (B, G, Omega, S)
            pis = torch.softmax(z.masked_fill(~signal_mask[:, None], -math.inf), dim=-1).numpy()
            if scoring == "exact":
                r = batch.values(pis) - batch.v0[:, None]
            else:
                r = batch.sampled_rewards(pis, episodes, rng)
            adv = torch.as_tensor(_advantages(r, algo))  # (B, G)
            valid = signal_mask[:, None].to(logits.dtype)
            logp = -(((z - logits[:, None]) ** 2) * valid).sum((-1, -2)) / (2.0 * sigmas[t] ** 2)
            loss = -(adv * logp).sum() / group
        else:
            pi = scheme(logits)  # (B, Omega, S)
            pi_np = pi.detach().numpy()
            probs, _ = batch.outcomes(pi_np[:, None])  # the receiver decodes with the current scheme
            probs = probs[:, 0]  # (B, S, A)
            bi = np.arange(len(envs))[:, None]
            omega = sample_index(
                np.broadcast_to(batch.prior[:, None], (len(envs), group, batch.shape[1])), rng
            )
            signal = sample_index(pi_np[bi, omega], rng)
            action = sample_index(probs[bi, signal], rng)
            r = batch.v[bi, action, omega] - batch.v0[:, None]
            adv = torch.as_tensor(_advantages(r, algo))
            logp = torch.log(pi[torch.as_tensor(bi), torch.as_tensor(omega), torch.as_tensor(signal)] + 1e-30)
            loss = -(adv * logp).sum() / group
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    with torch.no_grad():
        final = scheme(net()).numpy()
    values = batch.values(final[:, None])[:, 0]
    curve_x.append(steps)
    curve_y.append(values)
    ys = np.stack(curve_y, axis=1)  # (B, n_eval)
    out = []
    for b, e in enumerate(envs):
        pi = final[b, : e.game.n_states, : e.n_signals]
        pi = pi / pi.sum(1, keepdims=True)
        out.append(
            TrainedSender(pi, float(values[b]), float(e.v0), list(curve_x), ys[b].tolist(), mode, policy)
        )
    return out


def train_sender(
    env: PersuasionEnv,
    policy: str = "tabular",
    mode: str = "commitment",
    algo: str = "grpo",
    group: int = 16,
    sigma: float | tuple[float, float] = DEFAULT_SIGMA,
    lr: float | None = None,
    steps: int = 3000,
    **kw,
) -> TrainedSender:
    """Train a sender on one environment (``train_senders([env], ...)[0]``).

    Examples
    --------
    >>> from iclr26.agents.bayesian_persuasion import PersuasionEnv, prosecutor
    >>> out = train_sender(PersuasionEnv(prosecutor()), steps=300, seed=0)
    >>> out.value > 0.5  # the optimum is 0.6; no disclosure gives 0, full disclosure 0.3
    True
    """
    if not isinstance(env, PersuasionEnv):
        raise TypeError(f"env must be a PersuasionEnv, got {type(env).__name__}")
    return train_senders([env], policy, mode, algo, group, sigma, lr, steps, **kw)[0]
