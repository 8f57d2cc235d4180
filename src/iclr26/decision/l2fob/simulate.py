"""Run a bidder through a repeated auction and summarise the run (L2FOB, ICLR 2026, OpenReview AtbRCnvcrZ).

:func:`run_bidder` plays the gymnasium-style loop ``b = bidder.bid(v); v, ... = env.step(b);
bidder.update(outcome)`` for T rounds and records the per-round bids, rewards and costs (and the virtual queues of
bidders that have them). :func:`summarize` turns a run into the metrics of the brief: cumulative reward,
regret T nu* - R, final ROI R / C, the anytime violation V(t) = max(0, gamma C_t - R_t) and its maximum, spend,
and the stopping round.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from iclr26.checks import check_array, check_float, check_int
from iclr26.decision.l2fob.accounting import Bidder
from iclr26.decision.l2fob.envs import RepeatedAuction

__all__ = ["Trajectory", "run_bidder", "summarize"]


@dataclass
class Trajectory:
    """Per-round record of one run: arrays of length T; `queues` is (T, 2) (Q_rho, Q_gam) or None."""

    bids: np.ndarray
    rewards: np.ndarray
    costs: np.ndarray
    stop_round: int
    queues: np.ndarray | None = None

    def __post_init__(self) -> None:
        for name in ("bids", "rewards", "costs"):
            check_array(name, getattr(self, name))
        if self.queues is not None:
            check_array("queues", self.queues)
        shapes = {np.shape(self.bids), np.shape(self.rewards), np.shape(self.costs)}
        if len(shapes) != 1 or len(next(iter(shapes))) != 1:
            raise ValueError(
                f"bids, rewards and costs must be 1-D arrays of one length T, got shapes {sorted(shapes)}"
            )
        if self.queues is not None and np.shape(self.queues) != (len(self.bids), 2):
            raise ValueError(f"queues must be None or have shape (T, 2), got {np.shape(self.queues)}")

    def cumulative(self) -> tuple[np.ndarray, np.ndarray]:
        """(R_t, C_t): cumulative reward and spend after each round."""
        return np.cumsum(self.rewards), np.cumsum(self.costs)

    def violation(self, gamma: float) -> np.ndarray:
        """V(t) = max(0, gamma C_t - R_t) after each round."""
        check_float("gamma (the ROI target)", gamma, low=0.0, low_open=True)
        reward, spend = self.cumulative()
        return np.maximum(0.0, gamma * spend - reward)


def run_bidder(env: RepeatedAuction, bidder: Bidder, seed: int) -> Trajectory:
    """Play all T rounds of `env` (reset with `seed`) with `bidder`; return the per-round record.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> from iclr26.decision.l2fob import RepeatedAuction, TruncatedBidder
    >>> env = RepeatedAuction(100, stats.uniform(), stats.uniform())
    >>> run = run_bidder(env, TruncatedBidder(np.linspace(0, 1, 101), B=1.0, T=100, gamma=1.8), seed=0)
    >>> bool(run.costs.sum() <= 1.0)
    True
    """
    if not isinstance(env, RepeatedAuction):
        raise TypeError(f"env must be a RepeatedAuction, got {type(env).__name__}")
    if not isinstance(bidder, Bidder):
        raise TypeError(f"bidder must be a Bidder (L2FOB, WangDualPacing, ...), got {type(bidder).__name__}")
    check_int("seed", seed, low=0)
    if bidder.T != env.T:
        raise ValueError(f"bidder.T ({bidder.T}) must equal env.T ({env.T})")
    T = env.T
    bids, rewards, costs = np.zeros(T), np.zeros(T), np.zeros(T)
    has_queues = hasattr(bidder, "Q_rho")
    queues = np.zeros((T, 2)) if has_queues else None
    v, _ = env.reset(seed=seed)
    for t in range(T):
        b = bidder.bid(v)
        v, reward, _, _, info = env.step(b)
        bidder.update(info["outcome"])
        bids[t], rewards[t], costs[t] = b, reward, info["cost"]
        if queues is not None:
            queues[t] = bidder.Q_rho, bidder.Q_gam
    return Trajectory(bids, rewards, costs, bidder.ledger.stop_round, queues)


def summarize(run: Trajectory, gamma: float, nu: float) -> dict[str, float]:
    """Scalar metrics of one run: reward, regret T nu* - R, normalized regret, ROI, max V(t), spend, stop round."""
    if not isinstance(run, Trajectory):
        raise TypeError(f"run must be a Trajectory, got {type(run).__name__}")
    check_float("nu (the fluid benchmark per round)", nu, low=0.0)
    T = run.rewards.size
    if T < 1:
        raise ValueError("run must hold at least one round")
    reward, spend = float(run.rewards.sum()), float(run.costs.sum())
    return {
        "reward": reward,
        "regret": T * nu - reward,
        "norm_regret": (T * nu - reward) / T,
        "roi": reward / spend if spend > 0 else math.nan,
        "max_violation": float(run.violation(gamma).max()),
        "spend": spend,
        "stop_round": float(run.stop_round),
    }
