"""Uniform discretisation + Delayed-UCB1 (Joulani, Gyorgy and Szepesvari 2013): a delayed Lipschitz baseline.

Baseline of "Lipschitz Bandits with Stochastic Delayed Feedback" (Liu, Kang and Lee, ICLR 2026, arXiv
2510.00309). The arm space [0, 1]^d is discretised into K = ceil((T / log T)^(d / (d + 2))) arms, rounded up
to a full grid of m = ceil(K^(1/d)) cell centres per axis, and UCB1 runs on the rewards observed so far
(Joulani et al.'s black-box reduction with delayed feedback):

    x_t = argmax_k mu_hat_k + c sqrt(2 log t / v_k)   (v_k = 0: infinite index; among such arms the
                                                      least-pulled one, lowest k on ties).
"""

from __future__ import annotations

import math

import numpy as np

from iclr26.checks import check_float, check_int
from iclr26.decision.delayed_lipschitz_bandit.confidence import check_problem

__all__ = ["GridDelayedUCB1", "grid_arms"]


def grid_arms(dim: int, horizon: int) -> np.ndarray:
    """Cell centres of the uniform grid with m = ceil(K^(1/d)) points per axis, K = ceil((T/log T)^(d/(d+2))).

    Examples
    --------
    >>> grid_arms(1, 20_000).shape, grid_arms(2, 20_000).shape
    ((13, 1), (49, 2))
    """
    k = math.ceil((horizon / math.log(max(horizon, 2))) ** (dim / (dim + 2)))
    m = max(1, math.ceil(k ** (1.0 / dim) - 1e-9))
    axis = (np.arange(m) + 0.5) / m
    mesh = np.meshgrid(*([axis] * dim), indexing="ij")
    return np.stack([g.ravel() for g in mesh], axis=1)


class GridDelayedUCB1:
    """UCB1 on a uniform grid of arms, using only the rewards that have arrived (Delayed-UCB1).

    Parameters
    ----------
    dim, horizon, delta : as for the other algorithms (delta is validated for a uniform signature; UCB1's
        bonus uses log t).
    conf_scale : c, multiplies the UCB1 bonus.

    Examples
    --------
    >>> algo = GridDelayedUCB1(dim=1, horizon=1000, conf_scale=0.1)
    >>> [algo.select(t)[1] for t in (1, 2)]
    [0, 1]
    """

    def __init__(self, dim: int, horizon: int, delta: float | None = None, conf_scale: float = 1.0) -> None:
        self.delta = check_problem(dim, horizon, delta, conf_scale)
        self.dim, self.horizon, self.conf_scale = int(dim), int(horizon), float(conf_scale)
        self.arms = grid_arms(self.dim, self.horizon)
        self.n_active = len(self.arms)
        self.v = np.zeros(self.n_active)
        self.sums = np.zeros(self.n_active)
        self.pulls = np.zeros(self.n_active, dtype=np.int64)

    def select(self, t: int) -> tuple[np.ndarray, int]:
        check_int("t", t, 1, self.horizon)
        fresh = np.flatnonzero(self.v == 0)
        if fresh.size:
            # arms with no observation yet have an infinite index; play the least-pulled, lowest first
            k = int(fresh[np.argmin(self.pulls[fresh])])
        else:
            index = self.sums / self.v + self.conf_scale * np.sqrt(2.0 * math.log(t) / self.v)
            k = int(np.argmax(index))
        self.pulls[k] += 1
        return self.arms[k], k

    def receive(self, t: int, arm_id: int, pull_t: int, y: float) -> None:
        check_int("arm_id", arm_id, 0, self.n_active - 1)
        check_float("y", y)
        self.v[arm_id] += 1
        self.sums[arm_id] += y

    def feedback_counts(self) -> dict[str, int]:
        return {"incorporated": int(self.v.sum()), "buffered": 0, "discarded": 0}
