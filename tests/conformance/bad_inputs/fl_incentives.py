"""Bad input to the PWYC-LP instances, the covering LP, the Monte Carlo and the contribution game."""

import numpy as np

from iclr26.decision.fl_incentives import (
    ContributionGame,
    FailureEstimate,
    Instance,
    agent_utility,
    best_response,
    best_response_dynamics,
    clopper_pearson,
    cooperative_optimum,
    halfspace_instance,
    integer_optimum,
    is_nash,
    lower_bound,
    lp_plan,
    misreport_search,
    perturb_report,
    pos_family_instance,
    pure_nash_equilibria,
    pwyc_payments,
    random_labeling_instance,
    required_contribution,
    round_up,
    simulate_failures,
    solve_allocation,
    threshold_instance,
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

_NAN = float("nan")
_GAME = ContributionGame.from_instance(pos_family_instance(10, 100, 5.0))
_THRESH = threshold_instance(3, rng=0)

CASES += [
    (lambda: instance(H=[[0, 0], [2, 0]]), ValueError, ["H", "0/1"]),
    (lambda: instance(D=[["a", "b"]]), ValueError, ["D must", "probabilities"]),
    (lambda: instance(name=3), TypeError, ["name", "str"]),
    (lambda: instance().with_report(0.5, [0.5, 0.5]), ValueError, ["agent", "0.5"]),
    (lambda: instance().with_report(0, [0.5, 0.25, 0.25]), ValueError, ["D_i", "shape"]),
    (lambda: threshold_instance(True, 0), ValueError, ["k", "True"]),
    (lambda: threshold_instance(2, -1), ValueError, ["rng", "seed", "-1"]),
    (lambda: threshold_instance(2, 0, n_points=0), ValueError, ["n_points", ">= 1"]),
    (
        lambda: threshold_instance(2, 0, cost_range=(1.0, float("inf"))),
        ValueError,
        ["cost_range high", "finite"],
    ),
    (lambda: random_labeling_instance(2, 0, alpha=float("inf")), ValueError, ["alpha", "finite"]),
    (lambda: random_labeling_instance(2, 0, n_hypotheses=0), ValueError, ["n_hypotheses", ">= 1"]),
    (lambda: halfspace_instance(2, 0, grid=0), ValueError, ["grid", ">= 2"]),
    (lambda: pos_family_instance(2.5, 100, 5.0), ValueError, ["n must", "2.5"]),
    (lambda: pos_family_instance(10, float("inf"), 5.0), ValueError, ["N must", "inf"]),
    (lambda: solve_allocation([[1.0, 1.0]], [1.0], [1.0, 2.0, 3.0]), ValueError, ["rhs", "shape"]),
    (lambda: solve_allocation([[1.0]], [1.0], 1.0, integer="yes"), TypeError, ["integer", "bool"]),
    (lambda: integer_optimum([[1.0]], [1.0], 1.0, time_limit=_NAN), ValueError, ["time_limit", "nan"]),
    (lambda: round_up([[1.0]]), ValueError, ["m must", "1-D"]),
    (lambda: lower_bound([[1.0]], [1.0], True), ValueError, ["delta", "(0, 1)"]),
    (lambda: clopper_pearson(1, True), ValueError, ["n must", "True"]),
    (lambda: clopper_pearson(1.5, 10), ValueError, ["x must", "integer"]),
    (lambda: simulate_failures(instance(), [1], 10, 0, level=2.0), ValueError, ["level", "(0, 1)"]),
    (lambda: simulate_failures(instance(), [1], 10, 0, chunk=-1), ValueError, ["chunk", ">= 1"]),
    (lambda: simulate_failures(None, [1], 10, 0), TypeError, ["inst", "Instance"]),
    (lambda: FailureEstimate(np.array([5]), 0), ValueError, ["n_draws", ">= 1"]),
    (lambda: lp_plan(None), TypeError, ["inst", "Instance"]),
    (lambda: cooperative_optimum(instance(), time_limit=-1), ValueError, ["time_limit", "> 0"]),
    (
        lambda: ContributionGame.from_instance(pos_family_instance(10, 100, 5.0), _NAN),
        ValueError,
        ["value", "V_i"],
    ),
    (
        lambda: ContributionGame([[1.0]], [[True]], [1.0], [1.0], [1.0], 5),
        TypeError,
        ["a must", "numpy array"],
    ),
    (
        lambda: ContributionGame(
            np.full_like(_GAME.a, _NAN), _GAME.bad, _GAME.need, _GAME.c, _GAME.value, 10
        ),
        ValueError,
        ["a must", "finite"],
    ),
    (lambda: _GAME.satisfied(-1, np.zeros((1, 2))), ValueError, ["i (an agent", "-1"]),
    (lambda: _GAME.cost(np.full((1, 2), -1)), ValueError, ["profiles", "nonnegative"]),
    (lambda: best_response(_GAME, 0, np.zeros((1, 3))), ValueError, ["profiles", "shape", "(P, 2)"]),
    (lambda: is_nash(_GAME, np.full((1, 2), 0.5)), ValueError, ["profiles", "integer"]),
    (lambda: pure_nash_equilibria(None), TypeError, ["game", "ContributionGame"]),
    (lambda: best_response_dynamics(_GAME, [0.5, 0.5]), ValueError, ["start", "integer"]),
    (lambda: best_response_dynamics(_GAME, max_rounds=0), ValueError, ["max_rounds", ">= 1"]),
    (
        lambda: required_contribution(_GAME.a, _GAME.bad, _GAME.need, 5, np.zeros((1, 2))),
        ValueError,
        ["i (an agent", "5"],
    ),
    (lambda: pwyc_payments(instance(), np.zeros(3)), ValueError, ["m must", "1 finite"]),
    (lambda: agent_utility(instance(), 0, np.zeros(1), np.array([_NAN])), ValueError, ["payments", "finite"]),
    (lambda: agent_utility(instance(), -1, np.zeros(1), np.zeros(1)), ValueError, ["agent", "-1"]),
    (
        lambda: perturb_report(np.full(4, 0.25), np.random.default_rng(0), scale=_NAN),
        ValueError,
        ["scale", "nan"],
    ),
    (lambda: perturb_report(np.full(4, 0.25), 0), TypeError, ["rng", "Generator"]),
    (lambda: perturb_report(np.zeros(4), np.random.default_rng(0)), ValueError, ["D_i", "probabilities"]),
    (lambda: misreport_search(_THRESH, 5, 2, 0), ValueError, ["agent", "5"]),
    (lambda: misreport_search(_THRESH, 0, 2, 0, rules={}), ValueError, ["rules", "non-empty"]),
]
