"""Bad input to L2FOB, its oracles, the repeated auction, the pacing baselines and the fluid LP."""

import numpy as np
from scipy import stats

from iclr26.decision.l2fob import L2FOB, EmpiricalCDFOracle, RepeatedAuction, WangDualPacing, fluid_benchmark

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
    (lambda: L2FOB(GRID, 10.0, 100, 1.8).bid(1.5), ValueError, ["v must lie in"]),
    (lambda: WangDualPacing(GRID, -5.0, 100, 1.8), ValueError, ["B", "> 0"]),
    (lambda: EmpiricalCDFOracle(GRID, 100, delta=1.5), ValueError, ["delta", "(0, 1)"]),
    (lambda: RepeatedAuction(0, UNIFORM, UNIFORM), ValueError, ["T", ">= 1"]),
    (lambda: RepeatedAuction(10, UNIFORM, UNIFORM, price_rule="third"), ValueError, ["price_rule"]),
    (lambda: RepeatedAuction(10, "uniform", UNIFORM), ValueError, ["value_dist", "rvs"]),
    (lambda: fluid_benchmark(UNIFORM, UNIFORM, GRID, rho=0.0, gamma=1.8), ValueError, ["rho", "> 0"]),
]
