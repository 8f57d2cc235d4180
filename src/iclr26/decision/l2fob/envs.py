"""Repeated auctions for online bidding (L2FOB, "Towards Safe and Optimal Online Bidding: A Modular Look-ahead
Lyapunov Framework", ICLR 2026, OpenReview AtbRCnvcrZ).

Round t draws a private value v_t ~ P and a highest competing bid d_t ~ G, independently and i.i.d. The bidder
submits b_t; it wins iff b_t >= d_t. The reward is r_t = v_t 1[win]. The cost is c_t = b_t 1[win] under the
first-price rule and c_t = d_t 1[win] under the second-price rule. With full feedback, d_t is revealed after
every round. With partial feedback, only the win/lose bit and the cost are revealed.

The environment follows gymnasium's shape: ``reset(seed)`` returns the first value and an info dict, and
``step(bid)`` returns ``(next value, reward, terminated, truncated, info)``. It draws the whole sequence at
``reset``, so every bidder run on the same seed sees the same values and competing bids (a paired comparison).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from iclr26.checks import check_bool, check_choice, check_float, check_int

__all__ = ["PRICE_RULES", "AuctionOutcome", "Distribution", "RepeatedAuction"]

PRICE_RULES: tuple[str, ...] = ("first", "second")
FEEDBACKS: tuple[str, ...] = ("full", "partial")


class Distribution(Protocol):
    """What the environment needs from a law: a sampler (scipy.stats frozen distributions qualify)."""

    def rvs(self, size: Any = ..., random_state: Any = ...) -> Any: ...


@dataclass(frozen=True, slots=True)
class AuctionOutcome:
    """What one round revealed to the bidder.

    ``highest_competing`` is d_t under full feedback and None under partial feedback.
    """

    value: float
    bid: float
    win: bool
    reward: float
    cost: float
    highest_competing: float | None = None

    def __post_init__(self) -> None:
        for name in ("value", "bid", "reward", "cost"):
            check_float(f"outcome {name}", getattr(self, name), low=0.0)
        check_bool("outcome win", self.win)
        if self.highest_competing is not None:
            check_float(
                "outcome highest_competing (None under partial feedback)", self.highest_competing, low=0.0
            )


def _check_distribution(dist: Any, name: str) -> None:
    if not callable(getattr(dist, "rvs", None)):
        raise ValueError(
            f"{name} must be a distribution with an rvs(size, random_state) method (e.g. scipy.stats.uniform()), "
            f"got {type(dist).__name__}"
        )


class RepeatedAuction:
    """T rounds of a sealed-bid auction against a random highest competing bid.

    Parameters
    ----------
    T : number of rounds (int >= 1).
    value_dist : law P of the private value v_t (``rvs(size, random_state)``; values must be >= 0).
    competitor_dist : law G of the highest competing bid d_t (values must be >= 0).
    price_rule : ``"first"`` (pay your bid) or ``"second"`` (pay d_t).
    feedback : ``"full"`` (d_t revealed every round) or ``"partial"`` (win/lose and cost only).

    Examples
    --------
    >>> from scipy import stats
    >>> env = RepeatedAuction(3, stats.uniform(), stats.uniform())
    >>> v, info = env.reset(seed=0)
    >>> v, reward, terminated, truncated, info = env.step(0.5)
    >>> sorted(info)
    ['cost', 'highest_competing', 'outcome', 'reward', 'round', 'win']
    """

    def __init__(
        self,
        T: int,
        value_dist: Distribution,
        competitor_dist: Distribution,
        price_rule: str = "first",
        feedback: str = "full",
    ) -> None:
        check_int("T", T, low=1)
        _check_distribution(value_dist, "value_dist")
        _check_distribution(competitor_dist, "competitor_dist")
        check_choice("price_rule", price_rule, PRICE_RULES)
        check_choice("feedback", feedback, FEEDBACKS)
        self.T = int(T)
        self.value_dist = value_dist
        self.competitor_dist = competitor_dist
        self.price_rule = price_rule
        self.feedback = feedback
        self.values = np.empty(0)
        self.competing = np.empty(0)
        self.t = 0

    def reset(self, seed: int | None = None) -> tuple[float, dict[str, Any]]:
        """Draw the T values and competing bids from `seed`; return the first value v_1 and an empty info."""
        rng = np.random.default_rng(None if seed is None else check_int("seed (None or an int)", seed, low=0))
        self.values = np.asarray(self.value_dist.rvs(size=self.T, random_state=rng), dtype=float)
        self.competing = np.asarray(self.competitor_dist.rvs(size=self.T, random_state=rng), dtype=float)
        for name, draws in (("value_dist", self.values), ("competitor_dist", self.competing)):
            if draws.shape != (self.T,) or not np.all(np.isfinite(draws)) or np.any(draws < 0):
                raise ValueError(f"{name} must draw T finite non-negative numbers, got shape {draws.shape}")
        self.t = 0
        return float(self.values[0]), {}

    def step(self, bid: float) -> tuple[float, float, bool, bool, dict[str, Any]]:
        """Play round t with `bid`; return (v_{t+1} or NaN after the last round, reward, terminated, False, info)."""
        if self.values.size == 0:
            raise RuntimeError("call reset() before step()")
        if self.t >= self.T:
            raise RuntimeError(f"the episode has ended after T={self.T} rounds; call reset()")
        bid = check_float("bid", bid, low=0.0)
        v, d = float(self.values[self.t]), float(self.competing[self.t])
        win = bid >= d  # ties go to the bidder
        reward = v if win else 0.0  # r_t = v_t 1[b_t >= d_t]
        price = bid if self.price_rule == "first" else d
        cost = price if win else 0.0  # c_t = b_t 1[win] (first price) or d_t 1[win] (second price)
        outcome = AuctionOutcome(v, bid, win, reward, cost, d if self.feedback == "full" else None)
        self.t += 1
        terminated = self.t >= self.T
        next_value = float("nan") if terminated else float(self.values[self.t])
        info = {
            "round": self.t,
            "win": win,
            "reward": reward,
            "cost": cost,
            "highest_competing": outcome.highest_competing,
            "outcome": outcome,
        }
        return next_value, reward, terminated, False, info
