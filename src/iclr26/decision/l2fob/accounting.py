"""Budget and anytime-ROI accounting shared by every bidder (L2FOB, ICLR 2026, OpenReview AtbRCnvcrZ).

The problem: maximize sum_t r_t subject to the budget sum_t c_t <= B = rho T and the ROI constraint
sum_t r_t >= gamma sum_t c_t. The ROI constraint is tracked *anytime*: after each round t,

    V(t) = max(0, gamma sum_{s<=t} c_s - sum_{s<=t} r_s)        (anytime ROI violation)

and its running maximum max_{s<=t} V(s). The hard stop: once spent + b_max > B, the bidder bids 0 for the rest of
the horizon, so that spend never exceeds B (any single round costs at most b_max, the largest grid bid).

:class:`Bidder` is the common shell of all bidders: it validates the shared arguments, owns a :class:`Ledger`
and an oracle, applies the hard stop in ``bid(v)`` and routes ``update(outcome)`` to the ledger, the bidder's
own learning step and the oracle (in that order, so the learning step sees the estimates used for the bid).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from typing import Any

from iclr26.checks import check_float, check_int
from iclr26.decision.l2fob.envs import AuctionOutcome
from iclr26.decision.l2fob.oracles import check_grid

__all__ = ["Bidder", "Ledger", "check_bidding_args"]


def check_bidding_args(B: float, T: int, gamma: float) -> None:
    """Raise ValueError naming the argument when B <= 0, T < 1 or gamma <= 0."""
    check_int("T", T, low=1)
    check_float("B (the budget)", B, low=0.0, low_open=True)
    check_float("gamma (the ROI target)", gamma, low=0.0, low_open=True)


def check_oracle(oracle: object) -> None:
    """An oracle needs ``update(outcome)`` and ``estimate() -> WinRateEstimate`` (None: the bidder's default)."""
    if oracle is not None and not (
        callable(getattr(oracle, "update", None)) and callable(getattr(oracle, "estimate", None))
    ):
        raise TypeError(
            f"oracle must be None or have update(outcome) and estimate() methods, got {type(oracle).__name__}"
        )


class Ledger:
    """Spend, reward, anytime ROI violation and the hard stop of one bidder over one horizon.

    Examples
    --------
    >>> from iclr26.decision.l2fob.envs import AuctionOutcome
    >>> ledger = Ledger(B=1.0, T=10, gamma=2.0, max_cost=0.6)
    >>> ledger.record(AuctionOutcome(0.75, 0.5, True, 0.75, 0.5))
    >>> ledger.violation, ledger.stopped  # V = 2 * 0.5 - 0.75; 0.5 + 0.6 > B
    (0.25, True)
    """

    def __init__(self, B: float, T: int, gamma: float, max_cost: float) -> None:
        check_bidding_args(B, T, gamma)
        check_float("max_cost", max_cost, low=0.0)
        self.B, self.T, self.gamma, self.max_cost = float(B), int(T), float(gamma), float(max_cost)
        self.t = 0
        self.spent = 0.0
        self.reward = 0.0
        self.max_violation = 0.0
        self._stop_round: int | None = None

    @property
    def violation(self) -> float:
        """V(t) = max(0, gamma C_t - R_t), the anytime ROI violation after the rounds recorded so far."""
        return max(0.0, self.gamma * self.spent - self.reward)

    @property
    def roi(self) -> float:
        """R_t / C_t (NaN before any spend)."""
        return self.reward / self.spent if self.spent > 0 else math.nan

    @property
    def stopped(self) -> bool:
        """The hard stop: spent + b_max > B, after which only 0 is bid."""
        return self.spent + self.max_cost > self.B

    @property
    def stop_round(self) -> int:
        """The last round in which a positive bid was allowed (T when the stop never triggered)."""
        return self.T if self._stop_round is None else self._stop_round

    def record(self, outcome: AuctionOutcome) -> None:
        """Add one round's reward and cost; update V(t), its maximum and the stop round."""
        if not isinstance(outcome, AuctionOutcome):
            raise TypeError(f"outcome must be an AuctionOutcome, got {type(outcome).__name__}")
        if self.t >= self.T:
            raise ValueError(
                f"the ledger already holds all T={self.T} rounds; a new horizon needs a new Ledger"
            )
        self.t += 1
        self.spent += outcome.cost
        self.reward += outcome.reward
        self.max_violation = max(self.max_violation, self.violation)
        if self._stop_round is None and self.stopped:
            self._stop_round = self.t


class Bidder(ABC):
    """Common shell of a bidder over a finite bid grid: argument checks, ledger, oracle and hard stop.

    Subclasses implement ``_choose(v) -> grid index`` and ``_learn(outcome)``.
    """

    def __init__(self, grid: object, B: float, T: int, gamma: float, oracle: Any, v_max: float = 1.0) -> None:
        self.grid = check_grid(grid, v_max)
        check_bidding_args(B, T, gamma)
        self.B, self.T, self.gamma, self.v_max = float(B), int(T), float(gamma), float(v_max)
        self.rho = self.B / self.T  # per-round budget
        self.oracle = oracle
        self.ledger = Ledger(B, T, gamma, max_cost=float(self.grid[-1]))
        self._pending = False  # a bid was chosen by _choose and awaits its outcome

    def bid(self, v: float) -> float:
        """The bid for value `v`: 0 after the hard stop, else the grid bid chosen by the method."""
        v = check_float("v", v, 0.0, self.v_max)
        if self.ledger.stopped:
            self._pending = False
            return 0.0
        self._pending = True
        return float(self.grid[self._choose(v)])

    def update(self, outcome: AuctionOutcome) -> None:
        """Record the round, run the method's learning step (if it bid), then update the oracle."""
        if not isinstance(outcome, AuctionOutcome):
            raise TypeError(f"outcome must be an AuctionOutcome, got {type(outcome).__name__}")
        self.ledger.record(outcome)
        if self._pending:
            self._learn(outcome)
            self._pending = False
        if self.oracle is not None:
            self.oracle.update(outcome)

    @abstractmethod
    def _choose(self, v: float) -> int: ...

    @abstractmethod
    def _learn(self, outcome: AuctionOutcome) -> None: ...
