"""The fluid benchmark nu* of L2FOB's regret (ICLR 2026, OpenReview AtbRCnvcrZ): an LP over randomized policies.

With the value law P and the competing-bid CDF G known, a randomized stationary policy x(v, b) (probability of
bidding b at value v) earns E[v G(b)] per round and pays E[p(b)], p(b) = b G(b) (first price) or
E[d 1{d <= b}] = b G(b) - int_0^b G (second price). The fluid problem is

    nu* = max_x  sum_i w_i sum_b x(v_i, b) v_i G(b)
          s.t.   sum_i w_i sum_b x(v_i, b) p(b) <= rho                          (budget per round)
                 sum_i w_i sum_b x(v_i, b) (gamma p(b) - v_i G(b)) <= 0          (ROI)
                 sum_b x(v_i, b) = 1,  x >= 0,

over a value grid v_i = F^{-1}((i + 1/2) / n) with weights w_i = 1/n and the bidder's bid grid; it is solved
with scipy's ``linprog`` (HiGHS). T nu* upper-bounds the expected reward of any policy that meets both
constraints in expectation, and regret is T nu* - sum_t r_t.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import sparse
from scipy.optimize import linprog

from iclr26.checks import check_choice, check_float, check_int
from iclr26.decision.l2fob.envs import PRICE_RULES
from iclr26.decision.l2fob.oracles import check_grid

__all__ = ["FluidSolution", "expected_payment", "fluid_benchmark"]


@dataclass(frozen=True)
class FluidSolution:
    """The fluid LP's optimum: nu*, the policy, its spend and ROI, and the constraints' dual prices."""

    nu: float
    policy: np.ndarray  # (n_values, n_grid): P(bid b | value v_i)
    grid: np.ndarray
    values: np.ndarray
    weights: np.ndarray
    spend: float
    roi: float
    budget_dual: float
    roi_dual: float

    def mean_bid(self) -> np.ndarray:
        """The policy's expected bid at each value of the value grid."""
        return self.policy @ self.grid


def _check_cdf(values: Any, shape: tuple[int, ...]) -> np.ndarray:
    win = np.asarray(values, dtype=float)
    if win.shape != shape or not np.all((win >= 0) & (win <= 1)):
        raise ValueError(f"cdf must return probabilities in [0, 1] of shape {shape}, got shape {win.shape}")
    return win


def expected_payment(grid: np.ndarray, cdf: Any, price_rule: str, n_quad: int = 4001) -> np.ndarray:
    """p(b) on the grid: b G(b) (first price) or b G(b) - int_0^b G(x) dx (second price, trapezoid rule)."""
    grid = check_grid(grid)
    if not callable(cdf):
        raise TypeError(f"cdf must be a callable (the competing bid's CDF), got {type(cdf).__name__}")
    check_choice("price_rule", price_rule, PRICE_RULES)
    check_int("n_quad", n_quad, low=2)
    win = _check_cdf(cdf(grid), grid.shape)
    if price_rule == "first":
        return grid * win
    x = np.linspace(0.0, float(grid[-1]), n_quad)
    g = _check_cdf(cdf(x), x.shape)
    integral = np.concatenate([[0.0], np.cumsum(0.5 * (g[1:] + g[:-1]) * np.diff(x))])
    return grid * win - np.interp(grid, x, integral)


def fluid_benchmark(
    value_dist: Any,
    competitor_dist: Any,
    grid: object,
    rho: float,
    gamma: float,
    price_rule: str = "first",
    n_values: int = 100,
) -> FluidSolution:
    """Solve the fluid LP for known laws; see the module docstring.

    Parameters
    ----------
    value_dist : value law with ``ppf`` (a scipy.stats frozen distribution).
    competitor_dist : competing-bid law with ``cdf``.
    grid : the bid grid (strictly increasing, >= 0).
    rho : budget per round (> 0); gamma : ROI target (> 0).
    price_rule : ``"first"`` or ``"second"``.
    n_values : size of the value grid (quantile midpoints).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> sol = fluid_benchmark(stats.uniform(), stats.uniform(), np.linspace(0, 1, 101), rho=0.01, gamma=1.8)
    >>> round(sol.nu, 3), round(sol.spend, 4)  # closed form: sqrt(3 rho) / 3 = 0.0577, spend = rho
    (0.058, 0.01)
    """
    grid = check_grid(grid)
    check_float("rho (the budget per round)", rho, low=0.0, low_open=True)
    check_float("gamma (the ROI target)", gamma, low=0.0, low_open=True)
    check_choice("price_rule", price_rule, PRICE_RULES)
    check_int("n_values", n_values, low=1)
    if not callable(getattr(value_dist, "ppf", None)):
        raise TypeError(f"value_dist must have a ppf method (a scipy.stats distribution), got {value_dist!r}")
    if not callable(getattr(competitor_dist, "cdf", None)):
        raise TypeError(
            f"competitor_dist must have a cdf method (a scipy.stats distribution), got {competitor_dist!r}"
        )
    values = np.asarray(value_dist.ppf((np.arange(n_values) + 0.5) / n_values), dtype=float)
    if values.shape != (n_values,) or not np.all(np.isfinite(values)) or np.any(values < 0):
        raise ValueError("value_dist must have finite non-negative quantiles (values are >= 0)")
    weights = np.full(n_values, 1.0 / n_values)
    win = _check_cdf(competitor_dist.cdf(grid), grid.shape)  # G(b) = P(d <= b)
    pay = expected_payment(grid, competitor_dist.cdf, price_rule)
    reward = weights[:, None] * values[:, None] * win[None, :]  # w_i v_i G(b)
    cost = weights[:, None] * np.broadcast_to(pay, reward.shape)  # w_i p(b)
    a_ub = np.stack([cost.ravel(), (gamma * cost - reward).ravel()])
    a_eq = sparse.kron(sparse.eye(n_values), np.ones((1, grid.size)), format="csr")  # sum_b x(v_i, b) = 1
    res = linprog(
        -reward.ravel(),
        A_ub=a_ub,
        b_ub=[rho, 0.0],
        A_eq=a_eq,
        b_eq=np.ones(n_values),
        bounds=(0, None),
        method="highs",
    )
    if res.status != 0:
        raise RuntimeError(f"the fluid LP failed: {res.message}")
    policy = np.clip(res.x.reshape(n_values, grid.size), 0.0, None)
    nu = float((reward * policy).sum())
    spend = float((cost * policy).sum())
    return FluidSolution(
        nu=nu,
        policy=policy,
        grid=grid,
        values=values,
        weights=weights,
        spend=spend,
        roi=nu / spend if spend > 0 else math.inf,
        budget_dual=float(-res.ineqlin.marginals[0]),
        roi_dual=float(-res.ineqlin.marginals[1]),
    )
