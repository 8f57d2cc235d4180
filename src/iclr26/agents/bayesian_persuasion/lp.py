"""The sender's optimal scheme as a linear programme over recommendation schemes (the revelation principle).

Paper: "Towards Strategic Persuasion with Language Models" (Cheng, You; ICLR 2026, arXiv 2509.22989).

    maximize   sum_omega mu0(omega) sum_a pi(a | omega) v(a, omega)
    subject to sum_omega w_a(omega) [u(a, omega) - u(a', omega)] >= 0   for all a != a'   (obedience)
               pi(. | omega) in the simplex,

where w_a is the mass-weighted belief after the recommendation a: w_a(omega) = mu0(omega) pi(a | omega) for a
Bayesian receiver and gamma mu0(omega) pi(a | omega) + (1 - gamma) P(a) mu0(omega) for a :class:`PartialUpdater`
(still linear in pi, so the same LP gives the optimum against it). Solved with ``scipy.optimize.linprog``
(HiGHS) at tight feasibility tolerances, so the recommendations are obeyed to about 1e-10.

:func:`lp_optimum_is_unique` checks that the optimal face is a single point (in the joint over state and
recommendation): it re-solves with the objective held at its optimum and random tie-breaking objectives.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linprog

from iclr26.agents.bayesian_persuasion.game import Game, as_generator
from iclr26.agents.bayesian_persuasion.receivers import BayesianReceiver, Receiver, check_receiver
from iclr26.checks import check_float, check_int

__all__ = ["lp_optimum_is_unique", "optimal_face_width", "solve_lp"]

HIGHS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}


def _obedience(game: Game, gamma: float) -> np.ndarray:
    """Rows of A_ub x <= 0 (x = pi flattened omega-major, x[omega * A + a]), one per ordered pair a != a'."""
    n_s, n_a = game.n_states, game.n_actions
    mu, u = game.prior, game.u_receiver
    rows = []
    for a in range(n_a):
        for b in range(n_a):
            if a == b:
                continue
            delta = u[a] - u[b]  # (Omega,)
            # sum_omega w_a(omega) delta(omega), coefficient of pi(a | omega'):
            #   gamma mu0(omega') delta(omega') + (1 - gamma) mu0(omega') sum_omega mu0(omega) delta(omega)
            coef = gamma * mu * delta + (1.0 - gamma) * mu * float(mu @ delta)
            row = np.zeros(n_s * n_a)
            row[np.arange(n_s) * n_a + a] = -coef
            rows.append(row)
    return np.array(rows)


def _solve(game: Game, gamma: float, objective: np.ndarray, extra=None) -> np.ndarray:
    n_s, n_a = game.n_states, game.n_actions
    a_ub, b_ub = _obedience(game, gamma), np.zeros(n_a * (n_a - 1))
    if extra is not None:
        a_ub, b_ub = np.vstack([a_ub, extra[0][None, :]]), np.append(b_ub, extra[1])
    a_eq = np.kron(np.eye(n_s), np.ones((1, n_a)))  # sum_a pi(a | omega) = 1
    res = linprog(
        -objective,
        A_ub=a_ub,
        b_ub=b_ub,
        A_eq=a_eq,
        b_eq=np.ones(n_s),
        bounds=(0.0, 1.0),
        method="highs",
        options=HIGHS,
    )
    if res.status != 0:
        raise RuntimeError(f"the persuasion LP failed for {game!r}: {res.message}")
    pi = np.clip(res.x.reshape(n_s, n_a), 0.0, 1.0)
    return pi / pi.sum(1, keepdims=True)


def _gamma(receiver: Receiver | None) -> float:
    rec = check_receiver(BayesianReceiver() if receiver is None else receiver)
    if not rec.best_responds:
        raise ValueError(
            f"solve_lp needs a best-responding receiver (BayesianReceiver or PartialUpdater), got {rec!r}"
        )
    return rec.gamma


def _sender_objective(game: Game) -> np.ndarray:
    return (game.prior[:, None] * game.v_sender.T).ravel()  # mu0(omega) v(a, omega), omega-major


def solve_lp(game: Game, receiver: Receiver | None = None) -> tuple[np.ndarray, float]:
    """The optimal scheme over recommendations, ``(pi[Omega, A], V*)``.

    Examples
    --------
    >>> from iclr26.agents.bayesian_persuasion import prosecutor
    >>> pi, v = solve_lp(prosecutor())
    >>> round(v, 6), round(float(pi[0, 1]), 6)  # convict the innocent with probability 3/7
    (0.6, 0.428571)
    """
    if not isinstance(game, Game):
        raise TypeError(f"game must be a Game, got {type(game).__name__}")
    c = _sender_objective(game)
    pi = _solve(game, _gamma(receiver), c)
    return pi, float(c @ pi.ravel())


def optimal_face_width(
    game: Game,
    receiver: Receiver | None = None,
    n_directions: int = 4,
    rng: np.random.Generator | int | None = 0,
    slack: float = 1e-9,
) -> float:
    """How far apart optimal schemes can be: the largest total variation, in the joint mu0(omega) pi(a | omega),
    between the LP optimum and the schemes that maximise +-r . pi over {value >= V* - slack} for random r."""
    if not isinstance(game, Game):
        raise TypeError(f"game must be a Game, got {type(game).__name__}")
    gamma = _gamma(receiver)
    n_directions = check_int("n_directions", n_directions, low=1)
    slack = check_float("slack", slack, 0.0)
    gen = as_generator(rng)
    c = _sender_objective(game)
    base = _solve(game, gamma, c)
    v_star = float(c @ base.ravel())
    hold = (-c, -(v_star - slack * max(1.0, abs(v_star))))  # -c . x <= -(V* - slack)
    width = 0.0
    for _ in range(n_directions):
        r = gen.uniform(-1.0, 1.0, c.size)
        for sign in (1.0, -1.0):
            other = _solve(game, gamma, sign * r, extra=hold)
            width = max(width, float(0.5 * np.abs(game.prior[:, None] * (other - base)).sum()))
    return width


def lp_optimum_is_unique(
    game: Game, receiver: Receiver | None = None, tol: float = 1e-4, rng: np.random.Generator | int | None = 0
) -> bool:
    """True when every optimal recommendation scheme is within `tol` (total variation) of the LP's."""
    return optimal_face_width(game, receiver, rng=rng) <= check_float("tol", tol, 0.0)
