"""Concavification for two states: the sender's optimum is the upper concave envelope of v_hat at the prior.

Paper: "Towards Strategic Persuasion with Language Models" (Cheng, You; ICLR 2026, arXiv 2509.22989);
Kamenica and Gentzkow's theorem V* = (cav v_hat)(mu0), v_hat(mu) = E_mu v(a*(mu), .).

With two states a belief is p = mu(state 1). v_hat is linear in p between the receiver's indifference beliefs
and jumps at them (the receiver switches action; with sender-favourable ties the higher side is attained), so a
plain grid misses a kink by up to its spacing. :func:`concavify_binary` therefore evaluates v_hat on the grid
*and* at every indifference belief, then takes the upper convex hull of those points.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from iclr26.agents.bayesian_persuasion.game import Game
from iclr26.checks import check_array, check_float, check_int

__all__ = ["Envelope", "concavify_binary", "indifference_beliefs", "upper_hull", "v_hat_on"]


def _check_binary(game: Game) -> Game:
    if not isinstance(game, Game):
        raise TypeError(f"game must be a Game, got {type(game).__name__}")
    if game.n_states != 2:
        raise ValueError(f"concavify_binary needs |Omega| = 2 states, got {game.n_states}")
    return game


def indifference_beliefs(game: Game) -> np.ndarray:
    """Sorted beliefs p = mu(state 1) in [0, 1] where some pair of actions gives the receiver equal utility."""
    u = _check_binary(game).u_receiver
    out = []
    for a in range(game.n_actions):
        for b in range(a + 1, game.n_actions):
            d0, d1 = u[a, 0] - u[b, 0], u[a, 1] - u[b, 1]  # (1 - p) d0 + p d1 = 0
            if d0 != d1:
                p = d0 / (d0 - d1)
                if 0.0 <= p <= 1.0:
                    out.append(p)
    return np.unique(np.array(out, dtype=float))


def v_hat_on(game: Game, beliefs: np.ndarray) -> np.ndarray:
    """v_hat at each row of `beliefs` (n, Omega), vectorised (a best response with sender-favourable ties)."""
    eu, ev = beliefs @ game.u_receiver.T, beliefs @ game.v_sender.T  # (n, A)
    tied = eu >= eu.max(1, keepdims=True) - game.tie_tol
    return np.where(tied, ev, -np.inf).max(1)


def upper_hull(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vertices of the upper concave hull of the points (x, y) (x sorted ascending after the call)."""
    x, y = check_array("x", x, ndim=1), check_array("y", y, ndim=1)
    if x.shape != y.shape:
        raise ValueError(f"x and y must be points of one length, got shapes {x.shape} and {y.shape}")
    order = np.lexsort((-y, x))
    xs, ys = x[order], y[order]
    hull: list[int] = []
    for i in range(xs.size):
        if hull and xs[hull[-1]] == xs[i]:
            continue  # same x: the first one (sorted by -y) is the highest
        while len(hull) >= 2:
            o, a = hull[-2], hull[-1]
            cross = (xs[a] - xs[o]) * (ys[i] - ys[o]) - (ys[a] - ys[o]) * (xs[i] - xs[o])
            if cross >= 0:  # a lies on or below the chord o -> i: not a vertex of the upper hull
                hull.pop()
            else:
                break
        hull.append(i)
    return xs[hull], ys[hull]


@dataclass(frozen=True)
class Envelope:
    """v_hat and its upper concave envelope on beliefs p = mu(state 1)."""

    beliefs: np.ndarray
    v_hat: np.ndarray
    hull_x: np.ndarray
    hull_y: np.ndarray
    prior: float
    value: float

    def cav(self, p: float | np.ndarray) -> np.ndarray:
        """(cav v_hat)(p)."""
        return np.interp(p, self.hull_x, self.hull_y)


def concavify_binary(game: Game, grid: int | float | np.ndarray = 1e-3) -> Envelope:
    """The upper concave envelope of v_hat for a two-state game, and its value at the prior.

    `grid` is a spacing in (0, 1] (1e-3: 1,001 beliefs), an int number of intervals, or explicit beliefs;
    the receiver's indifference beliefs and 0, 1 and the prior are always added.

    Examples
    --------
    >>> from iclr26.agents.bayesian_persuasion import prosecutor
    >>> round(concavify_binary(prosecutor()).value, 9)
    0.6
    """
    _check_binary(game)
    if isinstance(grid, (int, np.integer)) and not isinstance(grid, bool):
        pts = np.linspace(0.0, 1.0, check_int("grid (intervals)", grid, low=1) + 1)
    elif isinstance(grid, float):
        step = check_float("grid (spacing)", grid, 0.0, 1.0, low_open=True)
        pts = np.linspace(0.0, 1.0, int(round(1.0 / step)) + 1)
    else:
        pts = np.asarray(grid, dtype=float).ravel()
        if pts.size == 0 or not np.all(np.isfinite(pts)) or pts.min() < 0 or pts.max() > 1:
            raise ValueError(f"grid beliefs must be finite numbers in [0, 1], got {pts.tolist()}")
    prior = float(game.prior[1])
    beliefs = np.unique(np.concatenate([pts, indifference_beliefs(game), [0.0, 1.0, prior]]))
    v_hat = v_hat_on(game, np.stack([1.0 - beliefs, beliefs], axis=1))
    hx, hy = upper_hull(beliefs, v_hat)
    return Envelope(beliefs, v_hat, hx, hy, prior, float(np.interp(prior, hx, hy)))
