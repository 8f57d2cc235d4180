"""Pacing baselines for L2FOB's experiments (ICLR 2026, OpenReview AtbRCnvcrZ); numpy only, no library has them.

* :class:`WangDualPacing`: budget-only dual pacing of Wang, Yang, Deng and Kong (2023, arXiv 2304.13477) for
  first-price auctions, a quasi-linear (utility) bidder:
      b_t = argmax_b (v_t - (1 + lam_t) b) G_hat_t(b),     lam_{t+1} = [lam_t - eps (rho - c_t)]^+.
  For a general price rule the bracket reads v G_hat(b) - (1 + lam) p_hat(b), with p_hat the expected payment.
* :class:`CoupledDualPacing`: a value maximizer with one dual variable per constraint (budget and ROI), in the
  style of Balseiro, Lu and Mirrokni's field guide (2023):
      b_t = argmax_b [(1 + mu_t) v_t G_hat_t(b) - (lam_t + gamma mu_t) p_hat_t(b)],
      lam_{t+1} = [lam_t - eta (rho - c_t)]^+,   mu_{t+1} = [mu_t - eta (r_t - gamma c_t)]^+.
* :class:`TruncatedBidder`: bid the largest grid point <= v_t / gamma (each win then has r_t >= gamma c_t), with
  the hard stop.

The dual step sizes default to 1/sqrt(T), the order of Wang et al.'s analysis. Every baseline shares the hard
stop and the accounting of :class:`~iclr26.decision.l2fob.accounting.Bidder`.
"""

from __future__ import annotations

import math

import numpy as np

from iclr26.checks import check_float
from iclr26.decision.l2fob.accounting import Bidder, check_oracle
from iclr26.decision.l2fob.envs import AuctionOutcome
from iclr26.decision.l2fob.oracles import EmpiricalCDFOracle

__all__ = ["CoupledDualPacing", "TruncatedBidder", "WangDualPacing"]


def _check_step(step: float | None, T: int) -> float:
    if step is None:
        return 1.0 / math.sqrt(T)
    return check_float("step (None or a step size)", step, low=0.0)


class _DualPacing(Bidder):
    """What both dual-pacing baselines share: a step size, a point-estimate win-rate oracle, a budget dual."""

    def __init__(
        self,
        grid: object,
        B: float,
        T: int,
        gamma: float,
        step: float | None = None,
        *,
        oracle: object | None = None,
        price_rule: str = "first",
        v_max: float = 1.0,
    ) -> None:
        check_oracle(oracle)
        super().__init__(grid, B, T, gamma, oracle=None, v_max=v_max)
        self.step = _check_step(step, self.T)
        self.oracle = EmpiricalCDFOracle(self.grid, self.T, price_rule) if oracle is None else oracle
        self._init_duals()

    def _init_duals(self) -> None:
        self.lam = 0.0


class WangDualPacing(_DualPacing):
    """Budget-only dual pacing (Wang et al., 2023): a utility bidder whose dual variable lam paces spend.

    Parameters
    ----------
    grid, B, T, gamma : as for :class:`~iclr26.decision.l2fob.L2FOB` (gamma is only tracked, not used).
    step : the dual step size eps (default 1/sqrt(T)).
    oracle : win-rate estimator (default :class:`EmpiricalCDFOracle`; its point estimates are used, no radii).

    Examples
    --------
    >>> import numpy as np
    >>> from iclr26.decision.l2fob.envs import AuctionOutcome
    >>> bidder = WangDualPacing(np.linspace(0, 1, 11), B=1.0, T=100, gamma=1.8, step=0.5)
    >>> b = bidder.bid(0.8)
    >>> bidder.update(AuctionOutcome(0.8, b, True, 0.8, 0.41, highest_competing=0.1))
    >>> round(bidder.lam, 6)  # [0 - 0.5 (0.01 - 0.41)]^+
    0.2
    """

    def _choose(self, v: float) -> int:
        est = self.oracle.estimate()
        return int(np.argmax(v * est.win - (1.0 + self.lam) * est.pay))  # (v - (1 + lam) b) G_hat(b)

    def _learn(self, outcome: AuctionOutcome) -> None:
        self.lam = max(
            0.0, self.lam - self.step * (self.rho - outcome.cost)
        )  # lam <- [lam - eps (rho - c)]^+


class CoupledDualPacing(_DualPacing):
    """Dual pacing with a budget multiplier lam and an ROI multiplier mu (field-guide style), value maximizer.

    Parameters
    ----------
    grid, B, T, gamma : as for :class:`~iclr26.decision.l2fob.L2FOB`.
    step : the dual step size eta for both multipliers (default 1/sqrt(T)).
    oracle : win-rate estimator (default :class:`EmpiricalCDFOracle`; point estimates).

    Examples
    --------
    >>> import numpy as np
    >>> bidder = CoupledDualPacing(np.linspace(0, 1, 11), B=1.0, T=100, gamma=1.8)
    >>> bidder.bid(0.5), bidder.lam, bidder.mu
    (0.0, 0.0, 0.0)
    """

    def _init_duals(self) -> None:
        self.lam = 0.0
        self.mu = 0.0

    def _choose(self, v: float) -> int:
        est = self.oracle.estimate()
        # (1 + mu) v G_hat(b) - (lam + gamma mu) p_hat(b)
        return int(np.argmax((1.0 + self.mu) * v * est.win - (self.lam + self.gamma * self.mu) * est.pay))

    def _learn(self, outcome: AuctionOutcome) -> None:
        self.lam = max(0.0, self.lam - self.step * (self.rho - outcome.cost))  # [lam - eta (rho - c)]^+
        # mu <- [mu - eta (r - gamma c)]^+
        self.mu = max(0.0, self.mu - self.step * (outcome.reward - self.gamma * outcome.cost))


class TruncatedBidder(Bidder):
    """Bid the largest grid point <= v / gamma until the hard stop (no learning, no oracle).

    Examples
    --------
    >>> import numpy as np
    >>> TruncatedBidder(np.linspace(0, 1, 11), B=1.0, T=100, gamma=2.0).bid(0.9)
    0.4
    """

    def __init__(self, grid: object, B: float, T: int, gamma: float, *, v_max: float = 1.0) -> None:
        super().__init__(grid, B, T, gamma, oracle=None, v_max=v_max)

    def _choose(self, v: float) -> int:
        return max(
            0, int(np.searchsorted(self.grid, v / self.gamma, side="right")) - 1
        )  # b = max grid <= v/gamma

    def _learn(self, outcome: AuctionOutcome) -> None:
        """No learning: the rule is fixed."""
