"""PWYC-LP ("Incentives in Federated Learning with Heterogeneous Agents"): oracle and correctness tests.

The brief's tests (1)-(6), plus invariants (LB <= OPT <= LP, PoS >= 1, exhaustive NE search against brute
force), the claim check on hand-made metrics (including sabotage), and bad input.
"""

import itertools
import math

import numpy as np
import pytest
from scipy.stats import binomtest

from iclr26.decision.fl_incentives import (
    PWYC,
    ContributionGame,
    Instance,
    agent_utility,
    best_response,
    best_response_dynamics,
    clopper_pearson,
    cooperative_optimum,
    go_alone,
    homogeneous_plan,
    integer_optimum,
    is_nash,
    lower_bound,
    lp_plan,
    marginal_benefit_rule,
    misreport_search,
    pos_family_instance,
    pure_nash_equilibria,
    random_labeling_instance,
    round_up,
    simulate_failures,
    solve_allocation,
    threshold_instance,
)
from iclr26.decision.fl_incentives.claim_check import fl_incentives_claim, saving
from iclr26.harness.claims import Outcome


def instances():
    return [threshold_instance(3, rng=s) for s in range(3)] + [
        random_labeling_instance(5, rng=s) for s in range(3)
    ]


def uniform_thresholds(n_points=40, t_star=20, epsilon=0.1, delta=0.05, k=1):
    x = np.arange(n_points)
    H = (x[None, :] >= np.arange(n_points + 1)[:, None]).astype(int)
    D = np.full((k, n_points), 1.0 / n_points)
    return Instance(H, H[t_star], D, np.ones(k), delta, epsilon)


# (1) linearity in the right-hand side: cost(LP(L1)) = (L1/L0) cost(LP(L0))
@pytest.mark.parametrize("inst", instances(), ids=lambda i: i.name)
def test_lp_cost_scales_with_rhs(inst):
    L0, L1 = math.log(1 / inst.delta), math.log(inst.B.size / inst.delta)
    lb = lower_bound(inst.a, inst.c, inst.delta)
    a, rhs = inst.rows("global")
    assert np.allclose(rhs, L1)
    assert solve_allocation(a, inst.c, rhs).cost == pytest.approx(L1 / L0 * lb, rel=1e-8)
    # the per-agent rows lie between L0 and L1, so their LP cost does too
    assert lb <= lp_plan(inst).fractional_cost <= L1 / L0 * lb * (1 + 1e-9)


def test_lp_scaling_on_random_matrices():
    rng = np.random.default_rng(0)
    for _ in range(5):
        a = rng.uniform(0, 1, (4, 30)) * (rng.uniform(size=(4, 30)) < 0.6)
        a[0] += 0.01  # every row coverable
        c = rng.uniform(1, 5, 4)
        rhs = rng.uniform(1, 3, 30)
        base = solve_allocation(a, c, rhs).cost
        for scale in (0.5, 2.0, 7.3):
            assert solve_allocation(a, c, scale * rhs).cost == pytest.approx(scale * base, rel=1e-8)


# (2) the rounded allocation satisfies every covering row
@pytest.mark.parametrize("rule", ["agent", "global"])
@pytest.mark.parametrize("inst", instances(), ids=lambda i: i.name)
def test_rounded_allocation_meets_every_row(inst, rule):
    a, rhs = inst.rows(rule)
    plan = lp_plan(inst, rule)
    assert plan.m.dtype.kind == "i" and np.all(plan.m >= 0)
    assert np.all(a.T @ plan.m >= rhs)
    assert inst.certified(plan.m).all()
    assert plan.cost <= plan.fractional_cost + inst.c.sum() + 1e-9  # one extra sample per agent at most


def test_round_up_repairs_rows_missed_by_solver_tolerance():
    a = np.array([[1.0, 0.5], [0.0, 1.0]])  # rows: m_0 >= rhs_0 and 0.5 m_0 + m_1 >= rhs_1
    m = np.array([1.0, 2.0]) - 1e-7  # what a solver at tolerance 1e-7 could return
    assert round_up(m).tolist() == [1, 2]
    rhs = np.array([1.0 + 1e-12, 2.5])  # row 0 is missed by 1e-12 after snapping to [1, 2]
    fixed = round_up(m, a, rhs)
    assert np.all(a.T @ fixed >= rhs) and fixed.tolist() == [2, 2]


# (3) union-bound feasibility implies Monte Carlo failure <= delta
def test_monte_carlo_failure_below_delta_on_a_nearly_tight_instance():
    """One agent, uniform over 5 points, every singleton flip bad: the union bound is nearly tight.

    LP: m = ceil(ln(5/0.05) / -ln(0.8)) = 21; union bound 5 * 0.8^21 = 0.0461 <= delta = 0.05 and the exact
    failure P(some point unseen) = sum_{j>=1} (-1)^{j+1} C(5, j) (1 - j/5)^21 = 0.0459. With 5,000 draws the
    Monte Carlo sd is 0.003: the 99.9% Clopper-Pearson interval must contain 0.0459 and lie below 0.06, so
    an over-count of failures by >= 0.012 (or a failure rate above delta + 0.01) is caught w.p. > 0.99.
    """
    H = np.vstack([np.zeros(5, int), np.eye(5, dtype=int)])
    inst = Instance(H, H[0], [np.full(5, 0.2)], [1.0], delta=0.05, epsilon=0.1)
    plan = lp_plan(inst)
    assert plan.m.tolist() == [21]
    assert inst.union_bound(plan.m)[0] == pytest.approx(5 * 0.8**21)
    exact = sum((-1) ** (j + 1) * math.comb(5, j) * (1 - j / 5) ** 21 for j in range(1, 6))
    est = simulate_failures(inst, plan.m, 5000, rng=0, level=0.999)
    lo, hi = est.interval
    assert lo[0] <= exact <= hi[0]
    assert hi[0] <= 0.06 and lo[0] <= inst.delta


@pytest.mark.parametrize("inst", instances()[2:5], ids=lambda i: i.name)
def test_monte_carlo_failure_below_delta_for_lp_allocations(inst):
    est = simulate_failures(inst, lp_plan(inst).m, 5000, rng=1, level=0.999)
    assert np.all(est.interval[0] <= inst.delta)


def test_single_hypothesis_survival_matches_exp_minus_a_m():
    """P(h survives) = prod_j (1 - d_j(h))^{m_j} exactly; the simulator must agree within 4 sd."""
    H = np.array([[0, 0, 0], [1, 0, 0]])
    inst = Instance(H, H[0], [[0.1, 0.5, 0.4], [0.05, 0.05, 0.9]], [1.0, 1.0], delta=0.5, epsilon=0.01)
    m = np.array([3, 10])
    exact = 0.9**3 * 0.95**10
    assert inst.union_bound(m)[0] == pytest.approx(exact)
    rate = simulate_failures(inst, m, 20_000, rng=2).rate[0]
    assert abs(rate - exact) < 4 * math.sqrt(exact * (1 - exact) / 20_000)


def test_clopper_pearson_matches_scipy_binomtest():
    for x, n in [(0, 50), (3, 50), (50, 50), (17, 2000)]:
        lo, hi = clopper_pearson(x, n, 0.95)
        ref = binomtest(x, n).proportion_ci(0.95, method="exact")
        assert float(lo) == pytest.approx(ref.low, abs=1e-12) and float(hi) == pytest.approx(
            ref.high, abs=1e-12
        )


# (4) one agent, thresholds: the textbook count m = ln(|B|/delta) / (-ln(1 - eps'))
def test_single_agent_thresholds_give_the_textbook_count():
    inst = uniform_thresholds()  # d(h_t) = |t - 20| / 40; bad iff |t - 20| >= 5 (eps = 0.1)
    assert inst.B.size == 32
    eps_min = 5 / 40  # the smallest bad disagreement mass
    textbook = math.log(32 / 0.05) / -math.log(1 - eps_min)
    for rule in ("agent", "global"):
        a, rhs = inst.rows(rule)
        assert solve_allocation(a, inst.c, rhs).m[0] == pytest.approx(textbook, rel=1e-9)
    assert lp_plan(inst).m[0] == math.ceil(textbook) == go_alone(inst).m[0]


# (5) PWYC pays exactly the cost, so a truthful agent's utility is its success indicator
@pytest.mark.parametrize("inst", instances(), ids=lambda i: i.name)
def test_pwyc_payment_equals_cost_and_truthful_utility_is_success(inst):
    m, p = PWYC(inst)
    assert np.array_equal(p, inst.c * m)
    for i in range(inst.k):
        assert agent_utility(inst, i, m, p) == float(inst.certified(m)[i]) == 1.0


def test_pwyc_never_rewards_a_misreport_but_the_benefit_rule_can():
    inst = random_labeling_instance(5, rng=0)
    found = [misreport_search(inst, i, 30, rng=i) for i in range(inst.k)]
    assert max(f["PWYC"].best_gain for f in found) <= 0.0
    assert all(set(np.unique(f["PWYC"].gains)) <= {0.0, -1.0} for f in found)  # payoff 1 -> 1 or 0
    assert max(f["marginal benefit"].best_gain for f in found) > 0.0


def test_marginal_benefit_payments_by_hand():
    """Family with n = 10, N = 100, M = 5: LP gives (10, 9); agent 1's samples save agent 2 one sample (cost 5)."""
    m, p = marginal_benefit_rule(pos_family_instance(10, 100, 5.0))
    assert m.tolist() == [10, 9] and p.tolist() == [5.0, 0.0]


# (6) NE search against games solved by hand
def test_unique_equilibrium_of_a_hand_solved_two_agent_game():
    """Agent 1 needs n = 10 own samples whatever agent 2 does (agent 2 never sees p); agent 2 needs
    m_1/100 + m_2/10 >= 1, so m_2 = 9 once m_1 = 10. The unique NE is (10, 9)."""
    game = ContributionGame.from_instance(pos_family_instance(10, 100, 5.0))
    assert pure_nash_equilibria(game).tolist() == [[10, 9]]
    dyn = best_response_dynamics(game)
    assert dyn.converged and dyn.profile.tolist() == [10, 9]


def no_equilibrium_game():
    """Agent 0 needs 10 samples (agent 1's count too) and gives up above 6; agent 1 needs 5 (agent 0's count too).

    BR_1(m_0) = max(0, 5 - m_0); BR_0(m_1) = 10 - m_1 if m_1 >= 4 else 0. m_0 = 0 -> m_1 = 5 -> m_0 = 5;
    m_0 >= 5 -> m_1 = 0 -> m_0 = 0; m_0 in 1..4 -> m_1 = 5 - m_0 -> m_0 in {0, 6}: no pure NE.
    """
    return ContributionGame(
        a=np.array([[0.1, 0.2], [0.1, 0.2]]),
        bad=np.array([[True, False], [False, True]]),
        need=np.array([1.0, 1.0]),
        c=np.array([1.0, 1.0]),
        value=np.array([6.0, np.inf]),
        grid=10,
    )


def test_hand_made_give_up_game_has_no_pure_equilibrium():
    game = no_equilibrium_game()
    assert best_response(game, 0, np.array([[0, 3], [0, 4], [0, 10]])).tolist() == [0, 6, 0]
    assert pure_nash_equilibria(game).shape == (0, 2)
    assert not best_response_dynamics(game).converged
    grid = np.array(list(itertools.product(range(11), repeat=2)))
    assert not is_nash(game, grid).any()


def ne_instances(k, count, seed):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        inst = random_labeling_instance(
            k, rng, n_hypotheses=20, n_points=12, alpha=0.5, delta=0.2, epsilon=0.2
        )
        if go_alone(inst).m.max() <= 12:
            out.append(inst)
    return out


def test_exhaustive_search_matches_brute_force_over_the_whole_grid():
    rng = np.random.default_rng(3)
    for inst in ne_instances(3, 4, seed=0):
        for value in (np.inf, rng.uniform(0.25, 1.5, 3) * inst.c * go_alone(inst).m):
            game = ContributionGame.from_instance(inst, value, grid=12)
            grid = np.array(list(itertools.product(range(13), repeat=3)))
            brute = grid[is_nash(game, grid)]
            found = pure_nash_equilibria(game)
            assert {tuple(p) for p in brute} == {tuple(p) for p in found}


def test_two_agent_games_without_give_up_always_have_an_equilibrium():
    """Best responses are non-increasing in the other's contribution, so BR_1 o BR_2 is monotone (Tarski)."""
    for inst in ne_instances(2, 15, seed=1):
        assert pure_nash_equilibria(ContributionGame.from_instance(inst, np.inf, grid=12)).shape[0] >= 1


def test_equilibria_are_feasible_and_cost_at_least_the_optimum():
    for inst in ne_instances(3, 3, seed=2):
        game = ContributionGame.from_instance(inst, np.inf, grid=12)
        found = pure_nash_equilibria(game)
        opt = cooperative_optimum(inst)
        assert found.shape[0] >= 1
        assert all(inst.union_bound(p).max() <= inst.delta * (1 + 1e-9) for p in found)
        assert game.cost(found).min() >= opt.cost - 1e-9


def test_lower_bound_optimum_and_lp_are_ordered():
    for inst in instances()[:2] + ne_instances(3, 2, seed=4):
        lb = lower_bound(inst.a, inst.c, inst.delta)
        opt = cooperative_optimum(inst)
        a, rhs = inst.rows("agent")
        assert integer_optimum(a, inst.c, rhs).cost == opt.cost == solve_allocation(a, inst.c, rhs, True).cost
        assert lb <= opt.cost + 1e-9 <= lp_plan(inst).cost + 2e-9
        assert go_alone(inst).cost >= opt.cost - 1e-9


def test_pos_family_matches_its_closed_form():
    for M, pos in ((1.0, 1.0), (10.0, 1.0), (100.0, 9.1), (1000.0, 90.1)):
        inst = pos_family_instance(10, 100, M)
        game = ContributionGame.from_instance(inst)
        best = game.cost(pure_nash_equilibria(game)[:1])[0]
        opt = cooperative_optimum(inst).cost
        assert best == pytest.approx(10 + 9 * M) and opt == pytest.approx(min(100, 10 + 9 * M))
        assert best / opt == pytest.approx(pos)


def test_homogeneous_plan_buys_the_textbook_count_from_the_cheapest_agent():
    inst = threshold_instance(3, rng=0)
    plan = homogeneous_plan(inst)
    j = int(np.argmin(inst.c))
    assert plan.m[j] == math.ceil(math.log(41 / 0.05) / 0.1) and plan.m.sum() == plan.m[j]


def test_agent_with_empty_bad_set_has_no_constraint():
    H = np.array([[0, 0], [1, 0]])
    inst = Instance(H, H[0], [[0.5, 0.5], [0.0, 1.0]], [1.0, 1.0], delta=0.1, epsilon=0.2)
    assert inst.bad_sizes.tolist() == [1, 0] and inst.need[1] == 0.0
    assert go_alone(inst).m[1] == 0 and lp_plan(inst).m[1] == 0


# the claim check
def good_rows(n=10):
    return [
        {
            "valid_ok": 5.0,
            "n_pairs": 5.0,
            "lp_bound_slack": 0.7,
            "cost_lp": 50.0 - 0.5 * s,  # a saving of 50% + s% over going alone
            "cost_alone": 100.0,
            "pwyc_max_gain": 0.0,
            "benefit_max_gain": 10.0 * (s == 3),
            "pos_monotone": 1.0,
            "pos_growth": 9.9,
            "ne_none_any": float(s == 7),
        }
        for s in range(n)
    ]


def test_claim_supported_on_good_metrics():
    assert fl_incentives_claim(good_rows()).outcome is Outcome.SUPPORTED


@pytest.mark.parametrize(
    ("change", "outcome"),
    [
        (
            {"pwyc_max_gain": 10.0},
            Outcome.NOT_SUPPORTED,
        ),  # sabotage: PWYC scored with the benefit rule's gains
        ({"valid_ok": 4.0}, Outcome.NOT_SUPPORTED),  # 80% of pairs valid
        ({"cost_lp": 100.0}, Outcome.INCONCLUSIVE),  # sabotage: the LP replaced by go alone itself
        ({"cost_lp": 85.0}, Outcome.INCONCLUSIVE),  # a 15% saving: below the brief's 20%
        ({"lp_bound_slack": 1.2}, Outcome.INCONCLUSIVE),
        ({"benefit_max_gain": 0.0}, Outcome.INCONCLUSIVE),
        ({"ne_none_any": 0.0}, Outcome.INCONCLUSIVE),
        ({"pos_growth": 1.0}, Outcome.INCONCLUSIVE),
    ],
)
def test_claim_fails_when_a_part_fails(change, outcome):
    rows = [{**row, **change} for row in good_rows()]
    verdict = fl_incentives_claim(rows)
    assert verdict.outcome is outcome, verdict.explanation


def test_claim_saving_is_computed_from_the_costs_and_one_seed_is_not_judged():
    verdict = fl_incentives_claim(good_rows())
    assert np.isclose(verdict.estimate, np.median(saving(50.0 - 0.5 * np.arange(10), np.full(10, 100.0))))
    assert np.allclose(
        saving([1.0, 3.0], [0.0, 4.0]), [0.0, 0.25]
    )  # nothing to save when going alone is free
    assert fl_incentives_claim(good_rows(1)).outcome is Outcome.INCONCLUSIVE
    rows = good_rows()
    rows[2] = {**rows[2], "pos_growth": float("nan")}  # no NE along the family in one seed
    assert fl_incentives_claim(rows).outcome is Outcome.INCONCLUSIVE


# bad input
@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"delta": 1.0}, "delta"),
        ({"epsilon": 0.0}, "epsilon"),
        ({"c": [-1.0]}, "c must"),
        ({"D": [[0.5, 0.4]]}, "sum to 1"),
        ({"h_star": [1, 1]}, "h_star is not a row of H"),
    ],
)
def test_instance_rejects_bad_input(kwargs, words):
    args = {
        "H": [[0, 0], [1, 0]],
        "h_star": [0, 0],
        "D": [[0.5, 0.5]],
        "c": [1.0],
        "delta": 0.1,
        "epsilon": 0.1,
    }
    with pytest.raises(ValueError, match=words):
        Instance(**{**args, **kwargs})


def test_infeasible_row_is_named():
    with pytest.raises(ValueError, match="h=1"):
        solve_allocation([[1.0, 0.0], [0.5, 0.0]], [1.0, 1.0], 2.0)


def test_game_grid_must_hold_every_best_response():
    with pytest.raises(ValueError, match="grid"):
        ContributionGame.from_instance(pos_family_instance(10, 100, 5.0), grid=5)
