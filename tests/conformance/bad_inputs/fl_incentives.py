"""Bad input to the PWYC-LP instances, the covering LP, the Monte Carlo and the contribution game."""

import numpy as np

from iclr26.decision.fl_incentives import (
    ContributionGame,
    Instance,
    pos_family_instance,
    simulate_failures,
    solve_allocation,
)

H = [[0, 0], [1, 0]]
GOOD = {"H": H, "h_star": [0, 0], "D": [[0.5, 0.5]], "c": [1.0], "delta": 0.1, "epsilon": 0.1}


def instance(**change):
    return Instance(**{**GOOD, **change})


CASES = [
    (lambda: instance(delta=1.5), ValueError, ["delta", "(0, 1)"]),
    (lambda: instance(epsilon=0.0), ValueError, ["epsilon", "(0, 1)"]),
    (lambda: instance(c=[-1.0]), ValueError, ["c must", "nonnegative"]),
    (lambda: instance(D=[[0.5, 0.4]]), ValueError, ["D[0]", "sum to 1"]),
    (lambda: instance(h_star=[1, 1]), ValueError, ["h_star", "not a row of H"]),
    (lambda: solve_allocation([[1.0, 0.0], [0.5, 0.0]], [1.0, 1.0], 2.0), ValueError, ["infeasible", "h=1"]),
    (lambda: simulate_failures(instance(), [2.5], 10, rng=0), ValueError, ["m must", "integer"]),
    (
        lambda: ContributionGame.from_instance(pos_family_instance(10, 100, 5.0), np.inf, grid=5),
        ValueError,
        ["grid", "go-alone"],
    ),
]
