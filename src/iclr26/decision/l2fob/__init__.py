"""L2FOB: "Towards Safe and Optimal Online Bidding: A Modular Look-ahead Lyapunov Framework" (ICLR 2026, AtbRCnvcrZ).

Online bidding under a budget B = rho T and an anytime ROI constraint sum r >= gamma sum c: the look-ahead
Lyapunov bidder :class:`L2FOB` with pluggable win-rate oracles, a gymnasium-style :class:`RepeatedAuction`,
the pacing baselines (Wang et al. 2023, coupled dual pacing, truncated bidding) and the fluid-LP benchmark nu*.

Example
-------
>>> import numpy as np
>>> from scipy import stats
>>> from iclr26.decision.l2fob import L2FOB, RepeatedAuction, fluid_benchmark, run_bidder
>>> grid = np.linspace(0, 1, 101)
>>> env = RepeatedAuction(2_000, stats.uniform(), stats.uniform())
>>> run = run_bidder(env, L2FOB(grid, B=20.0, T=2_000, gamma=1.8), seed=0)
>>> nu = fluid_benchmark(stats.uniform(), stats.uniform(), grid, rho=0.01, gamma=1.8).nu
>>> bool(run.costs.sum() <= 20.0), round(nu, 4)
(True, 0.0577)
"""

from iclr26.decision.l2fob.accounting import Bidder, Ledger
from iclr26.decision.l2fob.baselines import CoupledDualPacing, TruncatedBidder, WangDualPacing
from iclr26.decision.l2fob.envs import AuctionOutcome, RepeatedAuction
from iclr26.decision.l2fob.fluid import FluidSolution, expected_payment, fluid_benchmark
from iclr26.decision.l2fob.l2fob import L2FOB
from iclr26.decision.l2fob.oracles import BanditWinRateOracle, EmpiricalCDFOracle, WinRateEstimate, dkw_radius
from iclr26.decision.l2fob.simulate import Trajectory, run_bidder, summarize

__all__ = [
    "L2FOB",
    "AuctionOutcome",
    "BanditWinRateOracle",
    "Bidder",
    "CoupledDualPacing",
    "EmpiricalCDFOracle",
    "FluidSolution",
    "Ledger",
    "RepeatedAuction",
    "Trajectory",
    "TruncatedBidder",
    "WangDualPacing",
    "WinRateEstimate",
    "dkw_radius",
    "expected_payment",
    "fluid_benchmark",
    "run_bidder",
    "summarize",
]
