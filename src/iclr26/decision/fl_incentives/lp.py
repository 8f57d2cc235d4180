"""The covering LP of the planner, its rounding, the lower bound and the exact integer optimum.

Paper: "Incentives in Federated Learning with Heterogeneous Agents" (Procaccia, Shao, Shapira; ICLR 2026,
arXiv 2509.21612). With a the k x |B| matrix a_j(h) = -ln(1 - d_j(h)) and unit costs c, the planner solves

    min_m  sum_j c_j m_j   s.t.  sum_j a_j(h) m_j >= rhs_h  for every h in B,   m >= 0       (covering LP)

with rhs = L1 = ln(|B|/delta) (or the per-agent ln(|B_i|/delta)) for a sufficient allocation, rounded up, and
rhs = L0 = ln(1/delta) for the relaxation that lower-bounds the optimum. The LP is linear in its right-hand
side, so cost(LP(L1)) = (L1/L0) cost(LP(L0)) <= (1 + ln|B| / ln(1/delta)) OPT. Solved with scipy's HiGHS
(`linprog(method="highs")`); the integer program with `scipy.optimize.milp`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, linprog, milp

from iclr26.checks import check_bool, check_float
from iclr26.decision.fl_incentives.instances import floats

__all__ = ["Allocation", "integer_optimum", "lower_bound", "round_up", "solve_allocation"]

SNAP = 1e-9  # LP values within SNAP of an integer count as that integer before rounding up


@dataclass(frozen=True)
class Allocation:
    """Sample counts m_j (fractional for the LP, integer after rounding or from the MILP) and their cost."""

    m: np.ndarray
    cost: float


def _check(
    a: np.ndarray | Sequence[Sequence[float]],
    c: np.ndarray | Sequence[float],
    rhs: float | np.ndarray | Sequence[float],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    a = floats("a", a, "a (k, n_rows) matrix of exponents a_j(h)")
    if a.ndim != 2 or a.shape[0] < 1:
        raise ValueError(f"a must be a (k, n_rows) matrix of a_j(h) with k >= 1 agents, got shape {a.shape}")
    if not np.all(np.isfinite(a)) or np.any(a < 0):
        raise ValueError("a must hold finite nonnegative exponents a_j(h) = -ln(1 - d_j(h))")
    c = floats("c", c, f"({a.shape[0]},) nonnegative costs")
    if c.shape != (a.shape[0],):
        raise ValueError(f"c must have shape ({a.shape[0]},), one cost per row of a, got {c.shape}")
    if not np.all(np.isfinite(c)) or np.any(c < 0):
        raise ValueError(f"c must hold finite nonnegative costs, got {c.tolist()}")
    rhs = floats("rhs", rhs, f"a scalar or ({a.shape[1]},) right-hand sides")
    if rhs.ndim > 1 or rhs.size not in (1, a.shape[1]):
        raise ValueError(
            f"rhs must be a scalar or have shape ({a.shape[1]},), one per column of a, got {rhs.shape}"
        )
    rhs = np.broadcast_to(rhs, (a.shape[1],)).copy()
    if not np.all(np.isfinite(rhs)):
        raise ValueError("rhs must be finite")
    dead = np.flatnonzero((a.max(axis=0, initial=0.0) <= 0) & (rhs > 0))
    if dead.size:
        h = int(dead[0])
        raise ValueError(
            f"infeasible: hypothesis h={h} (column {h} of a) has a_j(h) = 0 for every agent j, so no "
            f"allocation reaches rhs {rhs[h]:.4g}"
        )
    return a, c, rhs


def solve_allocation(
    a: np.ndarray | Sequence[Sequence[float]],
    c: np.ndarray | Sequence[float],
    rhs: float | np.ndarray | Sequence[float],
    integer: bool = False,
) -> Allocation:
    """Cheapest m >= 0 with a.T m >= rhs (LP; with ``integer=True`` the exact integer optimum).

    Parameters
    ----------
    a : (k, n_rows) exponents a_j(h) >= 0, one column per bad hypothesis.
    c : (k,) nonnegative unit costs.
    rhs : a scalar or (n_rows,) right-hand sides (rows with rhs <= 0 are free).
    integer : solve the integer program with ``scipy.optimize.milp`` instead of the LP relaxation.

    Examples
    --------
    >>> sol = solve_allocation([[1.0, 0.0], [0.5, 1.0]], c=[1.0, 1.0], rhs=2.0)
    >>> sol.m.round(6).tolist(), round(sol.cost, 6)
    ([1.0, 2.0], 3.0)
    """
    a, c, rhs = _check(a, c, rhs)
    check_bool("integer", integer)
    if integer:
        return integer_optimum(a, c, rhs)
    keep = rhs > 0
    if not keep.any():
        return Allocation(np.zeros(a.shape[0]), 0.0)
    res = linprog(c, A_ub=-a[:, keep].T, b_ub=-rhs[keep], bounds=(0, None), method="highs")
    if res.status != 0:
        raise RuntimeError(f"HiGHS failed on the covering LP: {res.message}")
    m = np.maximum(res.x, 0.0)
    return Allocation(m, float(c @ m))


def integer_optimum(
    a: np.ndarray | Sequence[Sequence[float]],
    c: np.ndarray | Sequence[float],
    rhs: float | np.ndarray | Sequence[float],
    time_limit: float = 60.0,
) -> Allocation:
    """The exact integer optimum of the covering program (NP-hard in general; for small instances).

    Examples
    --------
    >>> integer_optimum([[1.0, 0.0], [0.5, 1.0]], c=[1.0, 1.0], rhs=2.0).cost
    3.0
    """
    a, c, rhs = _check(a, c, rhs)
    check_float("time_limit (seconds)", time_limit, low=0.0, low_open=True, finite=False)
    keep = rhs > 0
    if not keep.any():
        return Allocation(np.zeros(a.shape[0], dtype=int), 0.0)
    res = milp(
        c,
        constraints=LinearConstraint(a[:, keep].T, lb=rhs[keep]),
        integrality=np.ones(a.shape[0]),
        bounds=Bounds(0, np.inf),
        options={"time_limit": time_limit},
    )
    if res.status != 0:
        raise RuntimeError(f"milp did not reach a proven optimum: {res.message}")
    m = np.round(res.x).astype(int)
    if np.any(a[:, keep].T @ m < rhs[keep] - 1e-7 * np.maximum(1.0, rhs[keep])):
        raise RuntimeError("milp returned a solution that violates a covering row after rounding")
    return Allocation(m, float(c @ m))


def round_up(
    m: np.ndarray | Sequence[float],
    a: np.ndarray | Sequence[Sequence[float]] | None = None,
    rhs: float | np.ndarray | Sequence[float] | None = None,
) -> np.ndarray:
    """Round an LP allocation up to integers; with `a` and `rhs`, also repair rows left short by the solver.

    Values within 1e-9 of an integer count as that integer. HiGHS meets rows only up to its feasibility
    tolerance (~1e-7), so a rounded allocation can miss a row by that much; given `a` and `rhs`, each row still
    short gets extra samples from the agent with the largest a_j(h) on it, so that every row holds exactly.

    Examples
    --------
    >>> round_up([0.2, 3.0000000001, 2.0]).tolist()
    [1, 3, 2]
    """
    m = floats("m", m, "finite nonnegative sample counts")
    if m.ndim != 1:
        raise ValueError(f"m must be a 1-D array of sample counts (one per agent), got shape {m.shape}")
    if np.any(m < -SNAP) or not np.all(np.isfinite(m)):
        raise ValueError(f"m must hold finite nonnegative sample counts, got {m.tolist()}")
    out = np.ceil(m - SNAP).clip(min=0).astype(int)
    if a is None or rhs is None:
        return out
    a, _, rhs = _check(a, np.zeros(len(out)), rhs)
    while True:
        short = rhs - a.T @ out
        h = int(np.argmax(short))
        if short[h] <= 0:
            return out
        j = int(np.argmax(a[:, h]))
        out[j] += max(1, math.ceil(short[h] / a[j, h]))


def lower_bound(
    a: np.ndarray | Sequence[Sequence[float]], c: np.ndarray | Sequence[float], delta: float
) -> float:
    """cost(LP(L0)) with L0 = ln(1/delta): every bad h must die with probability >= 1 - delta on its own.

    A lower bound on the optimal cost of any allocation that meets every agent's (epsilon, delta) target.

    Examples
    --------
    >>> round(lower_bound([[1.0]], c=[2.0], delta=0.05), 4)     # 2 ln 20
    5.9915
    """
    delta = check_float("delta", delta, 0.0, 1.0, low_open=True, high_open=True)
    return solve_allocation(a, c, math.log(1.0 / delta)).cost
