"""A gymnasium-style persuasion environment: one episode is one state, one signal, one receiver action.

Paper: "Towards Strategic Persuasion with Language Models" (Cheng, You; ICLR 2026, arXiv 2509.22989).

The sender observes the state omega ~ mu0 and emits a signal from a vocabulary of |A| + 1; the receiver reads
the signal through the scheme the sender is *currently committed to* (:meth:`PersuasionEnv.commit`, uniform
until then), forms its belief, acts, and the sender is paid the paper's reward r(omega, s, a) = v(a, omega) -
v_hat(mu0). The episode ends there.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from iclr26.agents.bayesian_persuasion.game import Game, as_generator, check_scheme
from iclr26.agents.bayesian_persuasion.receivers import BayesianReceiver, Receiver, check_receiver
from iclr26.agents.bayesian_persuasion.value import no_disclosure, value
from iclr26.checks import check_int

__all__ = ["PersuasionEnv", "sample_index"]


def sample_index(probs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One draw per row of `probs` (..., K) (rows summing to 1), by the inverse CDF."""
    cdf = np.cumsum(probs, axis=-1)
    u = rng.random(probs.shape[:-1] + (1,)) * cdf[..., -1:]
    return np.minimum((u >= cdf).sum(-1), probs.shape[-1] - 1)


class PersuasionEnv(gym.Env):
    """One-shot persuasion episodes for a sender policy.

    Parameters
    ----------
    game : the persuasion game.
    receiver : who reads the signals (default :class:`BayesianReceiver`); it knows the committed scheme.
    n_signals : the sender's vocabulary (default |A| + 1).
    seed : seeds the environment's generator (states and the receiver's random responses).

    Observation: the state index. Action: the signal index. Reward: v(a, omega) - v_hat(mu0).

    Examples
    --------
    >>> from iclr26.agents.bayesian_persuasion import prosecutor
    >>> env = PersuasionEnv(prosecutor(), seed=0)
    >>> env.commit([[4 / 7, 3 / 7, 0.0], [0.0, 1.0, 0.0]])
    >>> state, info = env.reset(seed=1)
    >>> _, reward, terminated, truncated, info = env.step(1)  # signal 1 is 'convict' under this scheme
    >>> reward, terminated, info["action"]
    (1.0, True, 1)
    """

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(
        self,
        game: Game,
        receiver: Receiver | None = None,
        n_signals: int | None = None,
        seed: int | None = None,
    ) -> None:
        if not isinstance(game, Game):
            raise TypeError(f"game must be a Game, got {type(game).__name__}")
        self.game = game
        self.receiver = check_receiver(BayesianReceiver() if receiver is None else receiver)
        self.n_signals = check_int("n_signals", game.n_actions + 1 if n_signals is None else n_signals, low=1)
        self.observation_space = gym.spaces.Discrete(game.n_states)
        self.action_space = gym.spaces.Discrete(self.n_signals)
        self.v0 = value(game, no_disclosure(game), self.receiver)  # v_hat(mu0), the no-information value
        self._rng = as_generator(seed, "seed")
        self._state: int | None = None
        self.commit(np.full((game.n_states, self.n_signals), 1.0 / self.n_signals))

    @property
    def scheme(self) -> np.ndarray:
        """The committed scheme pi[Omega, S] the receiver decodes with."""
        return self._scheme.copy()

    def commit(self, pi: np.ndarray) -> None:
        """Commit to a scheme (Omega, n_signals); the receiver's responses to every signal follow from it."""
        pi = check_scheme(self.game, pi)
        if pi.shape[1] != self.n_signals:
            raise ValueError(f"pi must have n_signals = {self.n_signals} columns, got shape {pi.shape}")
        self._scheme = pi
        self._responses = self.receiver.action_probs(self.game, pi)  # (S, A)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[int, dict]:
        if seed is not None:
            self._rng = as_generator(seed, "seed")
        self._state = int(sample_index(self.game.prior, self._rng))
        return self._state, {"state": self.game.states[self._state]}

    def step(self, action: int) -> tuple[int, float, bool, bool, dict]:
        if self._state is None:
            raise RuntimeError("call reset() before step(): the episode has ended or never started")
        signal = check_int("action (a signal index)", action, 0, self.n_signals - 1)
        a = int(sample_index(self._responses[signal], self._rng))
        omega, self._state = self._state, None
        reward = float(self.game.v_sender[a, omega] - self.v0)
        info = {
            "action": a,
            "receiver_action": self.game.actions[a],
            "posterior": self.receiver.posterior(self.game, self._scheme)[signal],
        }
        return omega, reward, True, False, info

    def rollout(self, pi: np.ndarray, n: int, rng: np.random.Generator | int | None = None) -> np.ndarray:
        """Rewards of `n` episodes of the scheme `pi` against a receiver that knows `pi` (vectorised)."""
        pi = check_scheme(self.game, pi)
        n = check_int("n", n, low=1)
        gen = self._rng if rng is None else as_generator(rng)
        responses = self.receiver.action_probs(self.game, pi)
        omega = sample_index(np.broadcast_to(self.game.prior, (n, self.game.n_states)), gen)
        signal = sample_index(pi[omega], gen)
        action = sample_index(responses[signal], gen)
        return self.game.v_sender[action, omega] - self.v0
