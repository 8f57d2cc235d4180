"""Win-rate oracles with error radii for L2FOB's optimistic reward and pessimistic cost (ICLR 2026, AtbRCnvcrZ).

L2FOB is modular: any estimator that returns, for every bid b of a finite grid, an estimate of the win
probability G(b) = P(d <= b) and of the expected payment p(b) = E[price 1{win}], each with an error radius, can
drive it. Two are implemented:

* :class:`EmpiricalCDFOracle` (full information, d_t revealed): the empirical CDF G_hat_t of the past competing
  bids with the DKW radius eps_t = sqrt(log(2 |grid| T / delta) / (2 n_t)). First price: p_hat(b) = b G_hat(b),
  radius b eps_t. Second price: p_hat(b) = mean(d 1{d <= b}); since p(b) = b G(b) - int_0^b G, its radius is
  2 b eps_t.
* :class:`BanditWinRateOracle` (partial information: only the win bit and the cost at the bid played): per grid
  point win rates and mean costs with Hoeffding radii sqrt(log(2 |grid| T / delta) / (2 n_b)) (times b for the
  cost, which lies in [0, b]), made non-decreasing in b by weighted isotonic regression.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from scipy.optimize import isotonic_regression

from iclr26.checks import check_choice, check_float, check_int
from iclr26.decision.l2fob.envs import PRICE_RULES, AuctionOutcome

__all__ = ["BanditWinRateOracle", "EmpiricalCDFOracle", "WinRateEstimate", "check_grid", "dkw_radius"]


class WinRateEstimate(NamedTuple):
    """Per grid point: estimated win probability and expected payment, each with an error radius."""

    win: np.ndarray
    win_radius: np.ndarray
    pay: np.ndarray
    pay_radius: np.ndarray


def check_grid(grid: object, v_max: float | None = None) -> np.ndarray:
    """Return `grid` as a float array after checking it is 1-D, strictly increasing and inside [0, v_max].

    With ``v_max=None`` only the lower end (>= 0) is checked.
    """
    if v_max is not None:
        v_max = check_float("v_max", v_max, low=0.0, low_open=True)
    try:
        arr = np.asarray(grid)
        if arr.dtype.kind == "c":  # a float cast would drop the imaginary part
            raise ValueError
        arr = np.asarray(arr, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"grid must be a 1-D array of at least 2 bids, got {grid!r}") from None
    if arr.ndim != 1 or arr.size < 2:
        raise ValueError(f"grid must be a 1-D array of at least 2 bids, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError("grid must hold finite bids")
    if np.any(np.diff(arr) <= 0):
        raise ValueError("grid must be sorted in strictly increasing order")
    if arr[0] < 0 or (v_max is not None and arr[-1] > v_max):
        raise ValueError(f"grid must lie inside [0, v_max={v_max}], got [{arr[0]:g}, {arr[-1]:g}]")
    return arr


def _check_common(T: int, price_rule: str, delta: float) -> None:
    check_int("T", T, low=1)
    check_choice("price_rule", price_rule, PRICE_RULES)
    check_float("delta", delta, 0.0, 1.0, low_open=True, high_open=True)


def _check_outcome(outcome: object) -> AuctionOutcome:
    if not isinstance(outcome, AuctionOutcome):
        raise TypeError(f"outcome must be an AuctionOutcome, got {type(outcome).__name__}")
    return outcome


def dkw_radius(n: int | np.ndarray, n_grid: int, T: int, delta: float) -> float | np.ndarray:
    """eps = sqrt(log(2 |grid| T / delta) / (2 n)): the DKW/Hoeffding radius after n samples (inf for n = 0).

    Examples
    --------
    >>> round(dkw_radius(100, 101, 10_000, 0.05) / dkw_radius(400, 101, 10_000, 0.05), 6)
    2.0
    """
    check_int("n_grid", n_grid, low=1)
    check_int("T", T, low=1)
    check_float("delta", delta, 0.0, 1.0, low_open=True, high_open=True)
    try:
        n = np.asarray(n, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"n must be sample counts >= 0, got {n!r}") from None
    if not np.all(np.isfinite(n)) or np.any(n < 0):
        raise ValueError(f"n must be finite sample counts >= 0, got {n.tolist()}")
    with np.errstate(divide="ignore"):
        eps = np.sqrt(math.log(2 * n_grid * T / delta) / (2 * n))  # eq. (DKW radius)
    return float(eps) if eps.ndim == 0 else eps


class EmpiricalCDFOracle:
    """Full-information oracle: empirical CDF of the revealed competing bids with DKW radii.

    Parameters
    ----------
    grid : the bid grid (strictly increasing, >= 0).
    T : horizon, used in the radius' union bound.
    price_rule : ``"first"`` or ``"second"`` (how the expected payment is estimated).
    delta : confidence level of the radius.

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26.decision.l2fob.envs import AuctionOutcome
    >>> oracle = EmpiricalCDFOracle(np.linspace(0, 1, 5), T=10)
    >>> oracle.update(AuctionOutcome(0.5, 0.0, False, 0.0, 0.0, highest_competing=0.3))
    >>> oracle.estimate().win.tolist()
    [0.0, 0.0, 1.0, 1.0, 1.0]
    """

    def __init__(self, grid: object, T: int, price_rule: str = "first", delta: float = 0.05) -> None:
        self.grid = check_grid(grid)
        _check_common(T, price_rule, delta)
        self.T, self.price_rule, self.delta = int(T), price_rule, float(delta)
        self.n = 0
        self._count_le = np.zeros(self.grid.size)  # #{s : d_s <= grid[k]}
        self._sum_le = np.zeros(self.grid.size)  # sum of d_s over d_s <= grid[k] (second price)
        self._log_term = math.log(2 * self.grid.size * self.T / self.delta)

    def update(self, outcome: AuctionOutcome) -> None:
        """Add the revealed highest competing bid d_t of `outcome` to the sample."""
        d = _check_outcome(outcome).highest_competing
        if d is None:
            raise ValueError("EmpiricalCDFOracle needs full feedback: outcome.highest_competing is None")
        k = int(np.searchsorted(self.grid, d, side="left"))  # first grid bid b_k >= d (wins against d)
        self._count_le[k:] += 1.0
        if self.price_rule == "second":
            self._sum_le[k:] += d
        self.n += 1

    @property
    def radius(self) -> float:
        """The current DKW radius eps_t (inf before any sample)."""
        return math.sqrt(self._log_term / (2 * self.n)) if self.n else math.inf

    def estimate(self) -> WinRateEstimate:
        """G_hat(b), eps_t, p_hat(b) and its radius on the grid (no sample: G_hat = 0 with radius 1)."""
        if self.n == 0:
            zeros = np.zeros(self.grid.size)
            return WinRateEstimate(zeros, np.ones(self.grid.size), zeros, self.grid.copy())
        win = self._count_le / self.n  # G_hat_t(b) = #{d_s <= b} / n_t
        eps = self.radius
        radius = np.full(self.grid.size, eps)
        if self.price_rule == "first":
            return WinRateEstimate(win, radius, self.grid * win, self.grid * eps)  # p(b) = b G(b)
        return WinRateEstimate(win, radius, self._sum_le / self.n, 2.0 * self.grid * eps)


class BanditWinRateOracle:
    """Partial-information oracle: per-grid-point win rates and mean costs, Hoeffding radii, isotonic in b.

    Only bids on the grid update the estimates (a bid of 0 after a hard stop that is not a grid point is
    ignored). Grid points never played get radius 1 (win) and b (payment), i.e. no information, and their
    estimates are interpolated from the played points.

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26.decision.l2fob.envs import AuctionOutcome
    >>> oracle = BanditWinRateOracle(np.linspace(0, 1, 3), T=10)
    >>> oracle.update(AuctionOutcome(0.9, 1.0, True, 0.9, 1.0))
    >>> oracle.update(AuctionOutcome(0.9, 0.5, False, 0.0, 0.0))
    >>> oracle.estimate().win.tolist()
    [0.0, 0.0, 1.0]
    """

    def __init__(self, grid: object, T: int, price_rule: str = "first", delta: float = 0.05) -> None:
        self.grid = check_grid(grid)
        _check_common(T, price_rule, delta)
        self.T, self.price_rule, self.delta = int(T), price_rule, float(delta)
        self.pulls = np.zeros(self.grid.size)
        self.wins = np.zeros(self.grid.size)
        self.costs = np.zeros(self.grid.size)

    def update(self, outcome: AuctionOutcome) -> None:
        """Record the win bit and cost observed at the grid bid that was played."""
        k = int(np.searchsorted(self.grid, _check_outcome(outcome).bid))
        if k == self.grid.size or not math.isclose(self.grid[k], outcome.bid, rel_tol=0.0, abs_tol=1e-12):
            return
        self.pulls[k] += 1.0
        self.wins[k] += float(outcome.win)
        self.costs[k] += outcome.cost

    def _monotone(self, totals: np.ndarray, seen: np.ndarray) -> np.ndarray:
        """Weighted isotonic (non-decreasing) fit of totals / pulls over the played points, interpolated."""
        rates = totals[seen] / self.pulls[seen]
        fit = isotonic_regression(rates, weights=self.pulls[seen], increasing=True).x
        return np.interp(self.grid, self.grid[seen], fit)

    def estimate(self) -> WinRateEstimate:
        """Isotonic win rates and mean costs with Hoeffding radii per grid point."""
        seen = self.pulls > 0
        if not seen.any():
            zeros = np.zeros(self.grid.size)
            return WinRateEstimate(zeros, np.ones(self.grid.size), zeros, self.grid.copy())
        eps = np.minimum(dkw_radius(self.pulls, self.grid.size, self.T, self.delta), 1.0)  # Hoeffding per arm
        win = self._monotone(self.wins, seen)
        if self.price_rule == "first":
            pay = self.grid * win
        else:
            pay = self._monotone(self.costs, seen)
        return WinRateEstimate(win, eps, pay, self.grid * eps)
