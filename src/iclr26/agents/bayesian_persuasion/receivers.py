"""Receivers of a persuasion game: how a signal becomes a belief, and a belief an action.

Paper: "Towards Strategic Persuasion with Language Models" (Cheng, You; ICLR 2026, arXiv 2509.22989).

* :class:`BayesianReceiver`: the posterior mu_s(omega) ∝ mu0(omega) pi(s | omega), and a best response
  argmax_a E_{mu_s} u(a, .), ties broken in the sender's favour (the standard convention of the theory);
* :class:`PartialUpdater` (gamma): the belief gamma * mu_s + (1 - gamma) * mu0, then a best response; a
  conservative updater, as LLM receivers tend to be (gamma = 1 is Bayesian, gamma = 0 ignores the signal);
* :class:`QuantalReceiver` (lam): the Bayesian posterior and a softmax response
  P(a | s) ∝ exp(lam * E_{mu_s} u(a, .)).

Every receiver knows the scheme it is shown. The computations run on the *mass-weighted* beliefs
w_s = P(s) * belief_s, so that the best response compares sums of the same joint probabilities the linear
programme constrains, and ties hold within an absolute tolerance whatever P(s) is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from iclr26.agents.bayesian_persuasion.game import check_scheme
from iclr26.checks import check_float

__all__ = [
    "BayesianReceiver",
    "PartialUpdater",
    "QuantalReceiver",
    "Receiver",
    "check_receiver",
    "outcome_probs",
]


@dataclass(frozen=True)
class Receiver:
    """A receiver as two numbers: the update weight ``gamma`` and the response temperature ``lam``.

    ``lam = inf`` is a best response with sender-favourable ties; a finite ``lam`` a softmax response.
    Use the three named receivers below; this base is what the batched computations read.
    """

    gamma: float = 1.0
    lam: float = math.inf

    def __post_init__(self) -> None:
        check_float("gamma", self.gamma, low=0.0)
        check_float("lam", self.lam, low=0.0, finite=False)  # inf: a best response

    @property
    def best_responds(self) -> bool:
        return math.isinf(self.lam)

    def posterior(self, game, pi: np.ndarray) -> np.ndarray:
        """(S, Omega): the belief after each signal of `pi` (the prior for a signal that is never sent)."""
        pi = check_scheme(game, pi)
        joint = game.prior[:, None] * pi  # (Omega, S): mu0(omega) pi(s | omega)
        mass = joint.sum(0)
        w = weighted_beliefs(game.prior, joint, self.gamma)  # (S, Omega)
        safe = np.where(mass > 0, mass, 1.0)[:, None]
        return np.where(mass[:, None] > 0, w / safe, game.prior[None, :])

    def action_probs(self, game, pi: np.ndarray) -> np.ndarray:
        """(S, A): the probability of each action after each signal of `pi`."""
        pi = check_scheme(game, pi)
        probs, _ = outcome_probs(
            game.prior, game.u_receiver, game.v_sender, game.prior[:, None] * pi, self, game.tie_tol
        )
        return probs


class BayesianReceiver(Receiver):
    """Bayes' rule and a best response, ties in the sender's favour.

    Examples
    --------
    >>> from iclr26.agents.bayesian_persuasion import prosecutor
    >>> import numpy as np
    >>> BayesianReceiver().posterior(prosecutor(), np.array([[1.0, 0.0], [0.0, 1.0]])).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """

    def __init__(self) -> None:
        super().__init__(1.0, math.inf)

    def __repr__(self) -> str:
        return "BayesianReceiver()"


class PartialUpdater(Receiver):
    """Belief ``gamma * Bayes + (1 - gamma) * prior``, then a best response (sender-favourable ties)."""

    def __init__(self, gamma: float = 0.6) -> None:
        super().__init__(check_float("gamma", gamma, 0.0, 1.0), math.inf)

    def __repr__(self) -> str:
        return f"PartialUpdater(gamma={self.gamma:g})"


class QuantalReceiver(Receiver):
    """Bayes' rule and a softmax response with inverse temperature ``lam`` (0: uniform; large: best response)."""

    def __init__(self, lam: float = 10.0) -> None:
        super().__init__(1.0, check_float("lam", lam, 0.0))

    def __repr__(self) -> str:
        return f"QuantalReceiver(lam={self.lam:g})"


def check_receiver(receiver: object) -> Receiver:
    if not isinstance(receiver, Receiver):
        raise TypeError(
            "receiver must be a BayesianReceiver, PartialUpdater or QuantalReceiver, "
            f"got {type(receiver).__name__}"
        )
    return receiver


def weighted_beliefs(prior: np.ndarray, joint: np.ndarray, gamma) -> np.ndarray:
    """(..., S, Omega): P(s) times the receiver's belief, gamma q_s + (1 - gamma) P(s) mu0, from the joint
    q[..., omega, s] = mu0(omega) pi(s | omega). `prior` (..., Omega) and `gamma` broadcast over the batch."""
    q = np.swapaxes(joint, -1, -2)  # (..., S, Omega)
    mass = q.sum(-1, keepdims=True)
    g = np.asarray(gamma, dtype=float)[..., None, None]
    return g * q + (1.0 - g) * mass * np.asarray(prior)[..., None, :]


def outcome_probs(
    prior: np.ndarray,
    u: np.ndarray,
    v: np.ndarray,
    joint: np.ndarray,
    receiver: Receiver | None = None,
    tol: float | np.ndarray = 1e-9,
    *,
    gamma: np.ndarray | None = None,
    lam: np.ndarray | None = None,
    action_mask: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The receiver's action probabilities (..., S, A) and the sender's weighted payoffs W (..., S, A).

    W[s, a] = sum_omega q(omega, s) v(a, omega), so the sender's value is sum_{s, a} P(a | s) W[s, a]. Batched:
    `prior` (..., Omega), `u`, `v` (..., A, Omega) and `joint` (..., Omega, S) broadcast over leading axes. One
    receiver for all, or per-batch arrays `gamma` and `lam` (inf: best response); `action_mask` (..., A) marks
    the real actions of padded games.
    """
    if receiver is not None:
        gamma, lam = np.asarray(receiver.gamma), np.asarray(receiver.lam)
    gamma = np.asarray(1.0 if gamma is None else gamma, dtype=float)
    lam = np.asarray(math.inf if lam is None else lam, dtype=float)
    w = weighted_beliefs(prior, joint, gamma)  # (..., S, Omega)
    eu = w @ np.swapaxes(u, -1, -2)  # (..., S, A): P(s) E_belief u(a, .)
    payoff = np.swapaxes(joint, -1, -2) @ np.swapaxes(v, -1, -2)  # (..., S, A): sum_omega q v
    valid = (
        np.ones(eu.shape[-1], dtype=bool) if action_mask is None else np.asarray(action_mask)[..., None, :]
    )
    eu = np.where(valid, eu, -np.inf)
    tol = np.asarray(tol, dtype=float)[..., None, None]
    # best response: the receiver's ties (within tol), then the sender's favourite among them
    tied = eu >= eu.max(-1, keepdims=True) - tol
    choice = np.argmax(np.where(tied, payoff, -np.inf), axis=-1)
    best = np.zeros(eu.shape)
    np.put_along_axis(best, choice[..., None], 1.0, axis=-1)
    lam_b = lam[..., None, None]
    if np.all(np.isinf(lam_b)):
        return best, payoff
    mass = np.swapaxes(joint, -1, -2).sum(-1, keepdims=True)
    safe = np.where(mass > 0, mass, 1.0)
    scale = np.where(np.isinf(lam_b), 0.0, lam_b)
    logits = np.where(valid, scale * np.where(valid, eu, 0.0) / safe, -np.inf)
    logits = logits - logits.max(-1, keepdims=True)
    soft = np.exp(logits)
    soft = soft / soft.sum(-1, keepdims=True)
    return np.where(np.isinf(lam_b), best, soft), payoff
