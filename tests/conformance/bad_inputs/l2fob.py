"""Bad input to L2FOB, its oracles, the repeated auction, the pacing baselines and the fluid LP."""

import numpy as np
from scipy import stats

from iclr26.decision.l2fob import (
    L2FOB,
    AuctionOutcome,
    EmpiricalCDFOracle,
    Ledger,
    RepeatedAuction,
    Trajectory,
    TruncatedBidder,
    WangDualPacing,
    dkw_radius,
    expected_payment,
    fluid_benchmark,
    run_bidder,
    summarize,
)

GRID = np.linspace(0.0, 1.0, 11)
UNIFORM = stats.uniform()

CASES = [
    (lambda: L2FOB(GRID[::-1], 10.0, 100, 1.8), ValueError, ["grid", "sorted"]),
    (lambda: L2FOB(np.linspace(0.0, 2.0, 11), 10.0, 100, 1.8), ValueError, ["grid", "inside", "v_max"]),
    (lambda: L2FOB(GRID - 0.5, 10.0, 100, 1.8), ValueError, ["grid", "inside"]),
    (lambda: L2FOB(GRID, 0.0, 100, 1.8), ValueError, ["B", "> 0"]),
    (lambda: L2FOB(GRID, 10.0, 100, -1.0), ValueError, ["gamma", "> 0"]),
    (lambda: L2FOB(GRID, 10.0, 0, 1.8), ValueError, ["T", ">= 1"]),
    (lambda: L2FOB(GRID, 10.0, 100, 1.8, eta_rho=-0.6), ValueError, ["eta_rho", ">= 0"]),
    (lambda: L2FOB(GRID, 10.0, 100, 1.8, eta_gam=-1.0), ValueError, ["eta_gam", ">= 0"]),
    (lambda: L2FOB(GRID, 10.0, 100, 1.8, queue_mode="leaky"), ValueError, ["queue_mode"]),
    (
        lambda: L2FOB(GRID, 10.0, 100, 1.8).bid(1.5),
        ValueError,
        ["v must be a finite float in [0, 1]", "got 1.5"],
    ),
    (lambda: WangDualPacing(GRID, -5.0, 100, 1.8), ValueError, ["B", "> 0"]),
    (lambda: EmpiricalCDFOracle(GRID, 100, delta=1.5), ValueError, ["delta", "(0, 1)"]),
    (lambda: RepeatedAuction(0, UNIFORM, UNIFORM), ValueError, ["T", ">= 1"]),
    (lambda: RepeatedAuction(10, UNIFORM, UNIFORM, price_rule="third"), ValueError, ["price_rule"]),
    (lambda: RepeatedAuction(10, "uniform", UNIFORM), ValueError, ["value_dist", "rvs"]),
    (lambda: fluid_benchmark(UNIFORM, UNIFORM, GRID, rho=0.0, gamma=1.8), ValueError, ["rho", "> 0"]),
]

_NAN = float("nan")


def _outcome(**change):
    args = {"value": 0.5, "bid": 0.5, "win": True, "reward": 0.5, "cost": 0.5, "highest_competing": 0.3}
    return AuctionOutcome(**(args | change))


def _stepped(bid):
    env = RepeatedAuction(10, UNIFORM, UNIFORM)
    env.reset(seed=0)
    return env.step(bid)


def _ledger_past_T():
    ledger = Ledger(1.0, 1, 2.0, 0.5)
    ledger.record(_outcome())
    ledger.record(_outcome())


CASES += [
    (lambda: L2FOB(GRID, True, 100, 1.8), ValueError, ["B", "> 0", "True"]),
    (lambda: L2FOB(GRID, 10.0, 100, True), ValueError, ["gamma", "> 0", "True"]),
    (lambda: L2FOB(GRID, 10.0, 100, 1.8, v_max=True), ValueError, ["v_max", "> 0"]),
    (lambda: L2FOB(GRID, 10.0, 100, 1.8, eta_rho=True), ValueError, ["eta_rho", "True"]),
    (lambda: L2FOB(GRID, 10.0, 100, 1.8, oracle=3), TypeError, ["oracle", "estimate"]),
    (lambda: L2FOB("abc", 10.0, 100, 1.8), ValueError, ["grid", "1-D"]),
    (lambda: L2FOB(GRID, 10.0, 100, 1.8).bid(_NAN), ValueError, ["v must", "finite"]),
    (lambda: L2FOB(GRID, 10.0, 100, 1.8).scores(-1.0), ValueError, ["v must", "[0, 1]"]),
    (lambda: L2FOB(GRID, 10.0, 100, 1.8).update(None), TypeError, ["outcome", "AuctionOutcome"]),
    (lambda: _outcome(cost=_NAN), ValueError, ["outcome cost", "finite"]),
    (lambda: _outcome(highest_competing=-1.0), ValueError, ["highest_competing", ">= 0"]),
    (lambda: _outcome(win="yes"), TypeError, ["win", "bool"]),
    (lambda: EmpiricalCDFOracle(GRID, 100).update(None), TypeError, ["outcome", "AuctionOutcome"]),
    (lambda: dkw_radius(-1, 11, 100, 0.05), ValueError, ["n must", ">= 0"]),
    (lambda: dkw_radius(10, 11, 100, 0.0), ValueError, ["delta", "(0, 1)"]),
    (lambda: dkw_radius(10, 0, 100, 0.05), ValueError, ["n_grid", ">= 1"]),
    (lambda: WangDualPacing(GRID, 10.0, 100, 1.8, step=True), ValueError, ["step", "True"]),
    (lambda: Ledger(1.0, 10, 2.0, _NAN), ValueError, ["max_cost", "nan"]),
    (_ledger_past_T, ValueError, ["ledger", "T=1"]),
    (lambda: RepeatedAuction(10, UNIFORM, UNIFORM).reset(seed=-1), ValueError, ["seed", ">= 0"]),
    (lambda: _stepped(True), ValueError, ["bid", "True"]),
    (lambda: run_bidder(None, TruncatedBidder(GRID, 1.0, 10, 1.8), 0), TypeError, ["env", "RepeatedAuction"]),
    (lambda: run_bidder(RepeatedAuction(10, UNIFORM, UNIFORM), None, 0), TypeError, ["bidder", "Bidder"]),
    (
        lambda: summarize(Trajectory(np.zeros(3), np.zeros(3), np.zeros(3), 3), _NAN, 0.1),
        ValueError,
        ["gamma", "nan"],
    ),
    (
        lambda: summarize(Trajectory(np.zeros(3), np.zeros(3), np.zeros(3), 3), 1.8, _NAN),
        ValueError,
        ["nu", "finite"],
    ),
    (
        lambda: Trajectory(np.zeros(3), np.zeros(2), np.zeros(3), 0),
        ValueError,
        ["bids, rewards and costs", "length"],
    ),
    (lambda: fluid_benchmark(UNIFORM, UNIFORM, GRID, rho=True, gamma=1.8), ValueError, ["rho", "True"]),
    (lambda: fluid_benchmark(3, UNIFORM, GRID, rho=0.1, gamma=1.8), TypeError, ["value_dist", "ppf"]),
    (
        lambda: fluid_benchmark(stats.norm(), UNIFORM, GRID, rho=0.1, gamma=1.8),
        ValueError,
        ["value_dist", "non-negative"],
    ),
    (lambda: expected_payment(GRID, UNIFORM.cdf, "third"), ValueError, ["price_rule"]),
    (lambda: expected_payment(GRID, UNIFORM.cdf, "second", n_quad=1), ValueError, ["n_quad", ">= 2"]),
    (lambda: expected_payment(GRID[::-1], UNIFORM.cdf, "first"), ValueError, ["grid", "increasing"]),
]
