"""Deferral curves and their area (AUDC), one definition for every router.

UniRoute ("Universal Model Routing for Efficient LLM Inference", ICLR 2026, OpenReview ka82fvJ5f1, arXiv
2502.08773) scores a router by its deferral curve: for each lambda of a sweep, route every test prompt with
``r(x) = argmin_h gamma(x, h) + lambda c(h)`` and plot the mean accuracy against the mean cost.

Conventions (the brief's, used by every router here, ZeroRouter included):

* costs are min-max normalised to [0, 1] over the pool: ``c'(h) = (c(h) - min c) / (max c - min c)``; this is
  an affine change of the cost, so it only rescales lambda and leaves the set of routes unchanged;
* lambda runs over 0 plus a log grid wide enough that its largest value routes everything to the cheapest LLM
  (:func:`lambda_grid`);
* AUDC: sort the (mean cost, mean accuracy) points by cost, interpolate linearly, hold the accuracy flat from
  the last point to cost 1 (and from cost 0 to the first point, which the grid puts at cost 0 anyway), and
  integrate over [0, 1] with the trapezoid rule (:func:`audc`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from iclr26.checks import check_array, check_float, check_int
from iclr26.inference.uniroute.checks import check_costs, check_errors

__all__ = [
    "DeferralCurve",
    "audc",
    "curve_from_routes",
    "lambda_grid",
    "normalize_costs",
    "quality_neutral_cost",
    "route_scores",
]


def normalize_costs(costs: np.ndarray) -> np.ndarray:
    """Min-max normalise `costs` to [0, 1] over the pool (all zeros when every cost is equal).

    Examples
    --------
    >>> normalize_costs(np.array([2.0, 4.0, 10.0])).tolist()
    [0.0, 0.25, 1.0]
    """
    costs = check_costs(costs, positive=False)
    span = float(costs.max() - costs.min())
    if span <= 0.0:
        return np.zeros_like(costs)
    return (costs - costs.min()) / span


def route_scores(gamma: np.ndarray, costs: np.ndarray, lam: float) -> np.ndarray:
    """The routing rule ``argmin_h gamma[x, h] + lam * costs[h]`` for every row x of ``gamma (n, pool)``.

    Ties go to the lowest index (``np.argmin``). ``lam = inf`` routes to the cheapest LLM; among equally cheap
    ones, to the lowest predicted error.
    """
    gamma = check_array("gamma", gamma)
    if gamma.ndim != 2 or gamma.shape[1] == 0:
        raise ValueError(f"gamma must be an (n, pool) array of predicted errors, got shape {gamma.shape}")
    if not np.all(np.isfinite(gamma)):
        raise ValueError("gamma contains non-finite values (NaN or inf)")
    costs = check_costs(costs, size=gamma.shape[1], positive=False)
    lam = check_float("lam", lam, low=0.0, finite=False)
    if np.isinf(lam):
        cheapest = np.flatnonzero(costs == costs.min())
        return cheapest[np.argmin(gamma[:, cheapest], axis=1)]
    return np.argmin(gamma + lam * costs[None, :], axis=1)


def lambda_grid(costs: np.ndarray, n: int = 200, lo: float = 1e-4) -> np.ndarray:
    """0 plus `n` log-spaced lambdas from `lo` to one that routes every prompt to the cheapest LLM.

    `costs` are the pool's costs (any scale; normalised here). Since predicted errors lie in [0, 1], any
    ``lambda > 1 / (c'_2 - c'_min)`` (``c'_2`` the next-cheapest normalised cost) makes the cheapest LLM the
    argmin; the grid ends at twice that. The grid is on the normalised cost scale.

    Examples
    --------
    >>> g = lambda_grid(np.array([1.0, 2.0, 5.0]), n=4)
    >>> g[0], bool(g[-1] * 0.25 > 1.0)
    (np.float64(0.0), True)
    """
    check_int("n", n, low=2)
    lo = check_float("lo", lo, low=0.0, low_open=True)
    c = normalize_costs(costs)
    gaps = c[c > c.min()] - c.min()
    hi = 2.0 / float(gaps.min()) if gaps.size else 1.0
    hi = max(hi, 10.0 * lo)
    return np.concatenate([[0.0], np.geomspace(lo, hi, n)])


def _curve_points(cost: object, accuracy: object) -> tuple[np.ndarray, np.ndarray]:
    """The points of a deferral curve: `cost` and `accuracy` as 1-D float arrays (one entry per lambda)."""
    return check_array("cost", cost, ndim=1), check_array("accuracy", accuracy, ndim=1)


def audc(cost: np.ndarray, accuracy: np.ndarray) -> float:
    """Area under the deferral curve over normalised cost [0, 1] (see the module docstring).

    Examples
    --------
    >>> audc(np.array([0.0, 1.0]), np.array([0.5, 0.9]))  # a straight line: (0.5 + 0.9) / 2
    0.7
    >>> audc(np.array([0.0, 0.5]), np.array([0.5, 0.9]))  # flat after cost 0.5
    0.8
    """
    cost, accuracy = _curve_points(cost, accuracy)
    if cost.size != accuracy.size or cost.size == 0:
        raise ValueError(
            f"cost and accuracy must be non-empty and of equal length, got {cost.size}, {accuracy.size}"
        )
    if not (np.all(np.isfinite(cost)) and np.all(np.isfinite(accuracy))):
        raise ValueError("cost and accuracy must be finite (no NaN or inf)")
    if np.any(cost < -1e-12) or np.any(cost > 1 + 1e-12):
        raise ValueError(f"cost must be normalised to [0, 1], got range [{cost.min()}, {cost.max()}]")
    if np.any(accuracy < 0) or np.any(accuracy > 1):
        raise ValueError(f"accuracy must lie in [0, 1], got range [{accuracy.min()}, {accuracy.max()}]")
    order = np.lexsort((accuracy, cost))
    x = np.clip(cost[order], 0.0, 1.0)
    y = accuracy[order]
    x = np.concatenate([[0.0], x, [1.0]])
    y = np.concatenate([[y[0]], y, [y[-1]]])
    return float(np.sum(np.diff(x) * (y[1:] + y[:-1]) / 2.0))


def quality_neutral_cost(cost: np.ndarray, accuracy: np.ndarray, target: float) -> float:
    """The smallest normalised cost at which the interpolated deferral curve reaches accuracy `target`.

    NaN when the curve never reaches it. With the points sorted by cost and linearly interpolated (as in
    :func:`audc`), this is the first crossing of `target`.

    Examples
    --------
    >>> quality_neutral_cost(np.array([0.0, 0.5]), np.array([0.5, 1.0]), 0.75)
    0.25
    """
    cost, accuracy = _curve_points(cost, accuracy)
    if cost.size != accuracy.size or cost.size == 0:
        raise ValueError(
            f"cost and accuracy must be non-empty and of equal length, got {cost.size}, {accuracy.size}"
        )
    if not (np.all(np.isfinite(cost)) and np.all(np.isfinite(accuracy))):
        raise ValueError("cost and accuracy must be finite (no NaN or inf)")
    check_float("target", target)
    order = np.lexsort((accuracy, cost))
    x, y = cost[order], accuracy[order]
    if y[0] >= target:
        return float(x[0])
    for i in range(1, x.size):
        if y[i] >= target:
            if y[i] == y[i - 1]:
                return float(x[i])
            t = (target - y[i - 1]) / (y[i] - y[i - 1])
            return float(x[i - 1] + t * (x[i] - x[i - 1]))
    return float("nan")


@dataclass(frozen=True)
class DeferralCurve:
    """Mean cost and accuracy of a router over a lambda sweep.

    lams : lambdas on the normalised cost scale, shape (n_lams,).
    cost : mean normalised cost (in [0, 1]) per lambda.
    accuracy : mean accuracy (1 - error) per lambda.
    raw_cost : mean cost in the pool's own units per lambda.
    share : fraction of prompts routed to each LLM per lambda, shape (n_lams, pool).
    """

    lams: np.ndarray
    cost: np.ndarray
    accuracy: np.ndarray
    raw_cost: np.ndarray
    share: np.ndarray

    def area(self) -> float:
        """AUDC of this curve (:func:`audc`)."""
        return audc(self.cost, self.accuracy)

    def quality_neutral_cost(self, target: float) -> float:
        """Normalised cost needed to reach accuracy `target` (:func:`quality_neutral_cost`)."""
        return quality_neutral_cost(self.cost, self.accuracy, target)


def curve_from_routes(
    routes: np.ndarray, test_errors: np.ndarray, costs: np.ndarray, lams: np.ndarray
) -> DeferralCurve:
    """The deferral curve of `routes` (n_lams, n) of indices into the pool, on the test labels.

    test_errors : (n, pool) 0/1 (or soft) errors of every pool LLM on the test prompts.
    costs : (pool,) costs in the pool's own units.
    """
    test_errors = check_errors(test_errors, "test_errors", (None, None))
    n, pool = test_errors.shape
    costs = check_costs(costs, size=pool)
    raw = np.asarray(routes)
    if raw.ndim != 2 or raw.shape[1] != n or raw.dtype.kind not in "iu":
        raise ValueError(
            f"routes must be an integer (n_lams, n={n}) array of pool indices, got {raw.dtype} of shape {raw.shape}"
        )
    if raw.size and (raw.min() < 0 or raw.max() >= pool):
        raise ValueError(
            f"routes must hold pool indices in [0, {pool}), got values in [{raw.min()}, {raw.max()}]"
        )
    lams = check_array("lams", lams, ndim=1)
    if lams.size != raw.shape[0]:
        raise ValueError(f"lams must have one entry per row of routes ({raw.shape[0]}), got {lams.size}")
    routes = np.asarray(routes, dtype=int)
    rows = np.arange(n)[None, :]
    err = test_errors[rows, routes].mean(axis=1)
    norm = normalize_costs(costs)
    share = np.stack([np.bincount(r, minlength=costs.size) / n for r in routes])
    return DeferralCurve(
        lams=lams,
        cost=norm[routes].mean(axis=1),
        accuracy=1.0 - err,
        raw_cost=costs[routes].mean(axis=1),
        share=share,
    )
