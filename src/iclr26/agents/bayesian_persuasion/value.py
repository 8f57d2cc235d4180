"""The sender's value of a scheme against a receiver, and what the scheme makes the receiver believe and do.

Paper: "Towards Strategic Persuasion with Language Models" (Cheng, You; ICLR 2026, arXiv 2509.22989).

    V(pi) = sum_omega mu0(omega) sum_s pi(s | omega) sum_a P(a | s) v(a, omega)

with P(a | s) the receiver's response to signal s (for a Bayesian receiver the indicator of a*(mu_s)).
:func:`value` is the batched computation; :func:`naive_value` the signal-by-signal oracle beside it.
The paper's persuasion gain is the raw Delta = V(pi) - V_0, with V_0 = v_hat(mu0) the value of no information;
:func:`normalized_gain` is G = (V - V_0) / (V* - V_0), ours, defined when V* > V_0.
"""

from __future__ import annotations

import math

import numpy as np

from iclr26.agents.bayesian_persuasion.game import Game, check_scheme
from iclr26.agents.bayesian_persuasion.receivers import (
    BayesianReceiver,
    Receiver,
    check_receiver,
    outcome_probs,
    weighted_beliefs,
)
from iclr26.checks import check_float

__all__ = [
    "full_disclosure",
    "naive_value",
    "no_disclosure",
    "normalized_gain",
    "obedience_gap",
    "posterior_distribution",
    "straightforward",
    "strategy_tv",
    "value",
]


def value(game: Game, pi: np.ndarray, receiver: Receiver | None = None) -> float:
    """The sender's expected utility V(pi) against `receiver` (default Bayesian), who knows `pi`.

    Examples
    --------
    >>> from iclr26.agents.bayesian_persuasion import prosecutor
    >>> g = prosecutor()
    >>> round(value(g, [[4 / 7, 3 / 7], [0.0, 1.0]]), 6)  # convict on 'guilty' always, on 'innocent' 3/7
    0.6
    """
    rec = check_receiver(BayesianReceiver() if receiver is None else receiver)
    pi = check_scheme(game, pi)
    probs, payoff = outcome_probs(
        game.prior, game.u_receiver, game.v_sender, game.prior[:, None] * pi, rec, game.tie_tol
    )
    return float((probs * payoff).sum())


def naive_value(game: Game, pi: np.ndarray, receiver: Receiver | None = None) -> float:
    """The oracle for :func:`value`: one signal at a time, posterior, response, expected payoff."""
    rec = check_receiver(BayesianReceiver() if receiver is None else receiver)
    pi = check_scheme(game, pi)
    total = 0.0
    for s in range(pi.shape[1]):
        q = game.prior * pi[:, s]  # mu0(omega) pi(s | omega)
        p_s = q.sum()
        if p_s <= 0:
            continue
        belief = rec.gamma * q / p_s + (1.0 - rec.gamma) * game.prior
        eu = game.u_receiver @ belief
        ev = game.v_sender @ (q / p_s)  # the sender is paid in the true state, not the receiver's belief
        if rec.best_responds:
            tied = np.flatnonzero(eu >= eu.max() - game.tie_tol / p_s)
            response = np.zeros(game.n_actions)
            response[tied[np.argmax(ev[tied])]] = 1.0
        else:
            z = rec.lam * (eu - eu.max())
            response = np.exp(z) / np.exp(z).sum()
        total += p_s * float(response @ ev)
    return total


def no_disclosure(game: Game) -> np.ndarray:
    """The babbling scheme (one signal, always sent): the receiver acts on the prior. Its value is V_0."""
    if not isinstance(game, Game):
        raise TypeError(f"game must be a Game, got {type(game).__name__}")
    return np.ones((game.n_states, 1))


def full_disclosure(game: Game) -> np.ndarray:
    """The scheme that reveals the state (signal omega in state omega)."""
    if not isinstance(game, Game):
        raise TypeError(f"game must be a Game, got {type(game).__name__}")
    return np.eye(game.n_states)


def normalized_gain(v: float, v0: float, v_star: float, min_gap: float = 1e-9) -> float:
    """G = (V - V_0) / (V* - V_0): 0 for no information, 1 at the optimum; NaN when V* - V_0 < min_gap."""
    v, v0, v_star = (check_float(n, x) for n, x in (("v", v), ("v0", v0), ("v_star", v_star)))
    gap = v_star - v0
    return (v - v0) / gap if gap >= check_float("min_gap", min_gap, 0.0) and gap > 0 else math.nan


def straightforward(game: Game, pi: np.ndarray, receiver: Receiver | None = None) -> np.ndarray:
    """(Omega, A): the scheme with the signals that induce the same action merged, P(a | omega).

    By the revelation principle it has the same value and leads the receiver to the same actions; its joint
    mu0(omega) P(a | omega) is the distribution of induced posteriors, each labelled by the action it causes.
    """
    rec = check_receiver(BayesianReceiver() if receiver is None else receiver)
    pi = check_scheme(game, pi)
    probs, _ = outcome_probs(
        game.prior, game.u_receiver, game.v_sender, game.prior[:, None] * pi, rec, game.tie_tol
    )
    return pi @ probs


def strategy_tv(game: Game, pi_a: np.ndarray, pi_b: np.ndarray, receiver: Receiver | None = None) -> float:
    """Total variation between two schemes' induced posterior distributions, posteriors labelled by the action
    they induce: (1/2) sum_{omega, a} mu0(omega) |P_a(a | omega) - P_b(a | omega)|, in [0, 1]."""
    for name, pi in (("pi_a", pi_a), ("pi_b", pi_b)):
        try:
            check_scheme(game, pi)
        except ValueError as err:
            raise ValueError(f"{name}: {err}") from None
    sa = straightforward(game, pi_a, receiver)
    sb = straightforward(game, pi_b, receiver)
    return float(0.5 * np.abs(game.prior[:, None] * (sa - sb)).sum())


def posterior_distribution(
    game: Game, pi: np.ndarray, receiver: Receiver | None = None, min_mass: float = 1e-12
) -> tuple[np.ndarray, np.ndarray]:
    """``(P(s), beliefs[s])`` for the signals sent with probability > `min_mass` (the receiver's beliefs)."""
    rec = check_receiver(BayesianReceiver() if receiver is None else receiver)
    pi = check_scheme(game, pi)
    mass = game.prior @ pi
    keep = mass > check_float("min_mass", min_mass, 0.0)
    return mass[keep], rec.posterior(game, pi)[keep]


def obedience_gap(game: Game, pi: np.ndarray, receiver: Receiver | None = None) -> float:
    """For a scheme over recommended actions (Omega, A): the largest mass-weighted gain a receiver would get by
    disobeying a recommendation, max_{a, a'} P(a) (E_{belief_a} u(a', .) - E_{belief_a} u(a, .)); <= 0 when
    every recommendation is obeyed."""
    rec = check_receiver(BayesianReceiver() if receiver is None else receiver)
    pi = check_scheme(game, pi)
    if pi.shape[1] != game.n_actions:
        raise ValueError(f"pi must recommend actions: shape [Omega, A] = [{game.n_states}, {game.n_actions}]")
    w = weighted_beliefs(game.prior, game.prior[:, None] * pi, rec.gamma)  # (A, Omega)
    eu = w @ game.u_receiver.T  # (recommended a, alternative a')
    return float((eu - np.diag(eu)[:, None]).max())
