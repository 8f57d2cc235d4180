"""L2FOB ("Towards Safe and Optimal Online Bidding: A Modular Look-ahead Lyapunov Framework"): correctness tests."""

import math

import numpy as np
import pytest
from scipy import stats

from iclr26.decision.l2fob import (
    L2FOB,
    AuctionOutcome,
    BanditWinRateOracle,
    CoupledDualPacing,
    EmpiricalCDFOracle,
    RepeatedAuction,
    TruncatedBidder,
    WangDualPacing,
    WinRateEstimate,
    dkw_radius,
    expected_payment,
    fluid_benchmark,
    run_bidder,
)
from iclr26.decision.l2fob.claim_check import (
    N_SWEEP,
    eta_part,
    l2fob_claim,
    regret_slope,
    roi_part,
    slope_part,
)
from iclr26.decision.l2fob.experiment import EXPERIMENT, METHODS, L2fobConfig, make_bidder
from iclr26.harness.claims import Outcome

GRID = np.linspace(0.0, 1.0, 101)
UNIFORM = stats.uniform()


class FixedOracle:
    """An oracle whose estimates never change (for hand-computed recursions)."""

    def __init__(self, win, pay, win_radius=0.0, pay_radius=0.0):
        n = len(win)
        self.est = WinRateEstimate(
            np.asarray(win, float), np.full(n, win_radius), np.asarray(pay, float), np.full(n, pay_radius)
        )

    def estimate(self):
        return self.est

    def update(self, outcome):
        pass


def outcome(v, b, win=True, d=None):
    return AuctionOutcome(v, b, win, v if win else 0.0, b if win else 0.0, d)


def trained_oracle(n, seed=0, price_rule="first"):
    oracle = EmpiricalCDFOracle(GRID, T=10_000, price_rule=price_rule)
    for d in np.random.default_rng(seed).uniform(size=n):
        oracle.update(outcome(0.5, 0.0, win=False, d=float(d)))
    return oracle


# --- environment -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("price_rule", ["first", "second"])
def test_env_pays_bid_or_competing_bid_and_ties_win(price_rule):
    env = RepeatedAuction(50, UNIFORM, UNIFORM, price_rule=price_rule)
    env.reset(seed=3)
    for t in range(50):
        v, d, b = env.values[t], env.competing[t], float(GRID[(7 * t) % 101])
        _, reward, done, truncated, info = env.step(b)
        win = b >= d
        assert info["win"] == win and reward == (v if win else 0.0)
        assert info["cost"] == ((b if price_rule == "first" else d) if win else 0.0)
        assert info["highest_competing"] == d and not truncated and done == (t == 49)
    with pytest.raises(RuntimeError, match="ended"):
        env.step(0.1)


def test_env_partial_feedback_hides_the_competing_bid_and_draws_are_seeded():
    env = RepeatedAuction(20, UNIFORM, UNIFORM, feedback="partial")
    v0, _ = env.reset(seed=1)
    first = env.values.copy(), env.competing.copy()
    _, _, _, _, info = env.step(1.0)
    assert info["highest_competing"] is None and info["outcome"].highest_competing is None and info["win"]
    assert env.reset(seed=1)[0] == v0 and np.array_equal(env.competing, first[1])
    env.reset(seed=2)
    assert not np.array_equal(env.values, first[0])


# --- oracles -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("price_rule", ["first", "second"])
def test_empirical_cdf_oracle_matches_the_sample(price_rule):
    d = np.random.default_rng(0).beta(2, 2, size=300)
    oracle = EmpiricalCDFOracle(GRID, T=1_000, price_rule=price_rule)
    for x in d:
        oracle.update(outcome(0.5, 0.0, win=False, d=float(x)))
    est = oracle.estimate()
    below = d[None, :] <= GRID[:, None]
    np.testing.assert_allclose(est.win, below.mean(axis=1))
    eps = dkw_radius(300, 101, 1_000, 0.05)
    np.testing.assert_allclose(est.win_radius, eps)
    if price_rule == "first":
        np.testing.assert_allclose(est.pay, GRID * below.mean(axis=1))
        np.testing.assert_allclose(est.pay_radius, GRID * eps)
    else:
        np.testing.assert_allclose(est.pay, (below * d[None, :]).mean(axis=1))
        np.testing.assert_allclose(est.pay_radius, 2 * GRID * eps)


def test_dkw_radius_shrinks_as_inverse_square_root():
    n = np.array([10, 40, 160, 640])
    eps = dkw_radius(n, 101, 10_000, 0.05)
    np.testing.assert_allclose(eps[1:] / eps[:-1], 0.5)
    np.testing.assert_allclose(eps * np.sqrt(n), math.sqrt(math.log(2 * 101 * 10_000 / 0.05) / 2))
    oracle = trained_oracle(250)
    assert oracle.radius == pytest.approx(dkw_radius(250, 101, 10_000, 0.05))
    assert EmpiricalCDFOracle(GRID, 10).estimate().win_radius.min() == 1.0  # no data: no information


def test_empirical_cdf_oracle_needs_full_feedback():
    with pytest.raises(ValueError, match="full feedback"):
        EmpiricalCDFOracle(GRID, 10).update(outcome(0.5, 0.2, win=False, d=None))


def test_bandit_oracle_is_monotone_with_hoeffding_radii():
    grid = np.linspace(0.0, 1.0, 6)
    oracle = BanditWinRateOracle(grid, T=100)
    rng = np.random.default_rng(0)
    for _ in range(200):
        b = float(grid[rng.integers(1, 5)])
        d = rng.uniform()
        oracle.update(AuctionOutcome(0.5, b, b >= d, 0.5 * (b >= d), b * (b >= d)))
    est = oracle.estimate()
    assert np.all(np.diff(est.win) >= -1e-12)
    np.testing.assert_allclose(est.pay, grid * est.win)
    expected = np.minimum(dkw_radius(oracle.pulls, 6, 100, 0.05), 1.0)
    np.testing.assert_allclose(est.win_radius, expected)
    assert est.win_radius[0] == 1.0 and est.win_radius[-1] == 1.0  # never played
    before = oracle.pulls.copy()
    oracle.update(AuctionOutcome(0.5, 0.33, True, 0.5, 0.33))  # off the grid: ignored
    assert np.array_equal(oracle.pulls, before)


def test_bandit_oracle_pools_violating_neighbours():
    oracle = BanditWinRateOracle(np.array([0.0, 0.5, 1.0]), T=10)
    for _ in range(3):
        oracle.update(AuctionOutcome(0.9, 0.0, True, 0.9, 0.0))  # rate 1 at b = 0
    oracle.update(AuctionOutcome(0.9, 0.5, False, 0.0, 0.0))  # rate 0 at b = 0.5
    np.testing.assert_allclose(oracle.estimate().win, [0.75, 0.75, 0.75])  # weighted pool, flat interpolation


# --- L2FOB -------------------------------------------------------------------------------------------------------
def test_zero_step_sizes_give_the_greedy_optimistic_bid():
    oracle = trained_oracle(400)
    bidder = L2FOB(GRID, B=100.0, T=10_000, gamma=1.8, eta_rho=0.0, eta_gam=0.0, oracle=oracle)
    est = oracle.estimate()
    for v in np.linspace(0.05, 1.0, 20):
        r_hat = v * np.minimum(1.0, est.win + est.win_radius)
        assert bidder.bid(v) == GRID[np.argmax(r_hat)]


def test_lookahead_penalty_is_nonzero_from_empty_queues():
    oracle = FixedOracle([0.0, 0.5, 1.0], [0.0, 0.25, 1.0])
    bidder = L2FOB([0.0, 0.5, 1.0], B=10.0, T=100, gamma=2.0, eta_rho=1.0, eta_gam=1.0, oracle=oracle)
    score, q_rho, q_gam = bidder.scores(0.8)
    # b = 1: x_rho = 0.9, x_gam = 1.2 -> penalty 2 (0.9)^2 + 2 (1.2)^2 even with Q = 0
    assert score[2] == pytest.approx(0.8 - 2 * 0.9**2 - 2 * 1.2**2)
    np.testing.assert_allclose(q_rho, [0.0, 0.15, 0.9])
    np.testing.assert_allclose(q_gam, [0.0, 0.1, 1.2])


@pytest.mark.parametrize(
    ("queue_mode", "bids", "queues"),
    [
        ("clipped", [0.5, 0.0, 0.5], [(0.15, 0.1), (0.15, 0.1), (0.3, 0.1)]),
        ("standard", [0.5, 0.0, 0.5], [(0.15, 0.1), (0.05, 0.1), (0.2, 0.1)]),
    ],
)
def test_queues_follow_the_hand_computed_recursion(queue_mode, bids, queues):
    """grid (0, 0.5, 1), G = (0, 0.5, 1), p = (0, 0.25, 1), rho = 0.1, gamma = 2, eta = 1, values 0.8, 0.4, 1.

    Round 1: scores (0, 0.4 - 0.045 - 0.02, < 0) -> b = 0.5, Q = (0.15, 0.1). Round 2 (v = 0.4): b = 0.5 scores
    0.2 - 2(0.3)(0.15) - 2(0.4)(0.3) < 0 -> b = 0; clipped: Q unchanged; standard: Q_rho = [0.15 - 0.1]^+.
    Round 3 (v = 1): b = 0.5 -> Q_rho += 0.15, Q_gam += 0 (2 * 0.25 - 0.5 = 0).
    """
    oracle = FixedOracle([0.0, 0.5, 1.0], [0.0, 0.25, 1.0])
    bidder = L2FOB([0.0, 0.5, 1.0], 10.0, 100, 2.0, 1.0, 1.0, queue_mode=queue_mode, oracle=oracle)
    for v, b_expected, q_expected in zip([0.8, 0.4, 1.0], bids, queues):
        b = bidder.bid(v)
        bidder.update(outcome(v, b))
        assert b == b_expected
        assert bidder.queues == pytest.approx(q_expected)


def test_clipped_queues_never_decrease_on_a_real_run():
    env = RepeatedAuction(3_000, UNIFORM, UNIFORM)
    run = run_bidder(env, L2FOB(GRID, 30.0, 3_000, 1.8), seed=0)
    assert np.all(np.diff(run.queues, axis=0) >= 0)
    standard = run_bidder(env, L2FOB(GRID, 30.0, 3_000, 1.8, queue_mode="standard"), seed=0)
    assert np.any(np.diff(standard.queues, axis=0) < 0)


def test_a_safe_bid_gets_no_penalty_for_any_queue():
    rng = np.random.default_rng(1)
    for _ in range(50):
        win = np.sort(rng.uniform(size=101))
        oracle = FixedOracle(win, GRID * win, win_radius=rng.uniform(0, 0.1), pay_radius=0.0)
        v = rng.uniform(0.2, 1.0)
        picks = []
        for eta in (6.0, 60.0):
            bidder = L2FOB(GRID, 100.0, 10_000, 1.8, eta_rho=eta, eta_gam=eta, oracle=oracle)
            bidder.Q_rho, bidder.Q_gam = rng.uniform(0, 1e3, size=2)
            score, _, _ = bidder.scores(v)
            est = oracle.estimate()
            r_hat = v * np.minimum(1.0, est.win + est.win_radius)
            c = np.maximum(0.0, est.pay - est.pay_radius)
            safe = (c - bidder.rho <= 0) & (1.8 * c - r_hat <= 0)
            np.testing.assert_array_equal(score[safe], r_hat[safe])
            picks.append(bidder.bid(v))
            greedy = int(np.argmax(r_hat))
            if safe[greedy]:
                assert picks[-1] == GRID[greedy]
        if safe[greedy]:
            assert picks[0] == picks[1]


def test_buffer_mean_field_uses_the_mean_context_in_the_roi_term():
    oracle = FixedOracle([0.0, 0.5, 1.0], [0.0, 0.25, 1.0])
    bidder = L2FOB(
        [0.0, 0.5, 1.0], 10.0, 100, 2.0, 1.0, 1.0, mean_field="buffer", buffer_size=2, oracle=oracle
    )
    for v in (0.2, 0.6, 1.0):  # the buffer keeps the last two: mean 0.8
        bidder.update(outcome(v, bidder.bid(v), win=False))
    assert bidder._buffer.mean() == pytest.approx(0.8)
    bidder.Q_rho = bidder.Q_gam = 0.0
    _, _, q_gam_point = bidder.scores(1.0)
    _, _, q_gam_buffer = bidder.scores(1.0, v_bar=0.8)
    np.testing.assert_allclose(q_gam_point, [0.0, 0.0, 1.0])
    np.testing.assert_allclose(q_gam_buffer, [0.0, 0.1, 1.2])
    assert bidder._push_context(1.0) == pytest.approx(1.0)  # (1.0 + 1.0) / 2 after the push


def test_upper_cost_bound_is_conservative():
    oracle = trained_oracle(100)
    lower = L2FOB(GRID, 100.0, 10_000, 1.8, oracle=oracle)
    upper = L2FOB(GRID, 100.0, 10_000, 1.8, cost_bound="upper", oracle=oracle)
    lower.Q_rho = upper.Q_rho = 1.0
    _, q_low, _ = lower.scores(0.5)
    _, q_up, _ = upper.scores(0.5)
    assert np.all(q_up >= q_low) and np.any(q_up > q_low)


# --- hard stop, accounting and baselines -------------------------------------------------------------------------
@pytest.mark.parametrize("name", METHODS)
@pytest.mark.parametrize("price_rule", ["first", "second"])
def test_hard_stop_never_lets_spend_exceed_the_budget(name, price_rule):
    cfg = L2fobConfig(rho=0.02)
    env = RepeatedAuction(1_500, UNIFORM, UNIFORM, price_rule=price_rule)
    for seed in range(2):
        bidder = make_bidder(name, cfg, 1_500, price_rule)
        run = run_bidder(env, bidder, seed)
        spend = np.cumsum(run.costs)
        assert spend.max() <= bidder.B + 1e-12
        assert bidder.ledger.spent == pytest.approx(spend[-1])
        assert np.all(run.bids[bidder.ledger.stop_round :] == 0.0)
        reward, _ = run.cumulative()
        assert bidder.ledger.max_violation == pytest.approx(run.violation(1.8).max())
        assert bidder.ledger.violation == pytest.approx(max(0.0, 1.8 * spend[-1] - reward[-1]))


def test_partial_feedback_l2fob_runs_within_budget():
    env = RepeatedAuction(800, UNIFORM, UNIFORM, feedback="partial")
    bidder = L2FOB(GRID, 16.0, 800, 1.8, oracle=BanditWinRateOracle(GRID, 800))
    run = run_bidder(env, bidder, 0)
    assert run.costs.sum() <= 16.0 and bidder.oracle.pulls.sum() > 0


def test_wang_bid_and_dual_update_by_hand():
    oracle = trained_oracle(500, seed=4)
    bidder = WangDualPacing(GRID, 100.0, 10_000, 1.8, step=0.5, oracle=oracle)
    bidder.lam = 0.7
    g_hat = oracle.estimate().win
    for v in (0.3, 0.9):
        assert bidder.bid(v) == GRID[np.argmax((v - 1.7 * GRID) * g_hat)]
    bidder.update(outcome(0.9, 0.3, d=0.1))  # lam <- [0.7 - 0.5 (0.01 - 0.3)]^+
    assert bidder.lam == pytest.approx(0.845)
    bidder.bid(0.2)
    bidder.update(outcome(0.2, 0.0, win=False, d=0.9))  # [0.845 - 0.5 * 0.01]^+
    assert bidder.lam == pytest.approx(0.84)
    assert WangDualPacing(GRID, 100.0, 10_000, 1.8).step == pytest.approx(0.01)


def test_coupled_bid_and_dual_updates_by_hand():
    oracle = trained_oracle(500, seed=5)
    bidder = CoupledDualPacing(GRID, 100.0, 10_000, 2.0, step=0.1, oracle=oracle)
    bidder.lam, bidder.mu = 0.5, 0.25
    g_hat = oracle.estimate().win
    assert bidder.bid(0.6) == GRID[np.argmax((1.25 * 0.6 - (0.5 + 0.5) * GRID) * g_hat)]
    bidder.update(AuctionOutcome(0.6, 0.4, True, 0.6, 0.4, 0.2))
    assert bidder.lam == pytest.approx(0.5 - 0.1 * (0.01 - 0.4))  # [lam - eta (rho - c)]^+
    assert bidder.mu == pytest.approx(0.25 - 0.1 * (0.6 - 2.0 * 0.4))  # [mu - eta (r - gamma c)]^+


def test_truncated_bidder_never_violates_roi():
    env = RepeatedAuction(2_000, UNIFORM, UNIFORM)
    run = run_bidder(env, TruncatedBidder(GRID, 20.0, 2_000, 1.8), seed=0)
    won = run.costs > 0
    assert np.all(run.rewards[won] >= 1.8 * run.costs[won] - 1e-12)
    assert run.violation(1.8).max() == 0.0


# --- fluid LP ----------------------------------------------------------------------------------------------------
def test_fluid_lp_closed_form_with_budget_slack():
    """v, d ~ U[0, 1], ROI binding, budget slack: b(v) = v / gamma, nu* = 1 / (3 gamma)."""
    gamma = 1.8
    sol = fluid_benchmark(UNIFORM, UNIFORM, GRID, rho=0.5, gamma=gamma, n_values=200)
    assert sol.nu == pytest.approx(1 / (3 * gamma), rel=2e-3)
    assert sol.roi == pytest.approx(gamma, rel=1e-6) and sol.spend < 0.5 - 0.1
    assert sol.budget_dual == pytest.approx(0.0, abs=1e-9) and sol.roi_dual > 0
    np.testing.assert_allclose(sol.mean_bid(), sol.values / gamma, atol=0.011)
    np.testing.assert_allclose(sol.policy.sum(axis=1), 1.0)


def test_fluid_lp_closed_form_with_binding_budget():
    """Budget binding, ROI slack: b(v) = sqrt(3 rho) v, nu* = sqrt(3 rho) / 3, spend = rho."""
    sol = fluid_benchmark(UNIFORM, UNIFORM, GRID, rho=0.01, gamma=1.8, n_values=200)
    assert sol.nu == pytest.approx(math.sqrt(0.03) / 3, rel=2e-3)
    assert sol.spend == pytest.approx(0.01, rel=1e-6) and sol.roi_dual == pytest.approx(0.0, abs=1e-9)
    assert sol.budget_dual == pytest.approx(1 / (2 * math.sqrt(0.03)), rel=2e-2)  # lambda* = 1 / (2k)


def test_second_price_payment_of_uniform_competition():
    sol = fluid_benchmark(UNIFORM, UNIFORM, GRID, rho=10.0, gamma=1e-3, price_rule="second")
    assert sol.nu == pytest.approx(0.5, abs=1e-6)  # both constraints slack: bid 1, win always
    np.testing.assert_allclose(expected_payment(GRID, UNIFORM.cdf, "second"), GRID**2 / 2, atol=1e-6)


# --- claim check -------------------------------------------------------------------------------------------------
def rows(n=12, l2fob=280.0, wang=260.0, roi=2.5, regret0=0.05, slope=-0.5, eta6=270.0, eta60=271.0, seed=0):
    rng = np.random.default_rng(seed)
    horizons = 2_500 * 2 ** np.arange(N_SWEEP)
    out = []
    for _ in range(n):
        row = {
            "reward_l2fob": l2fob + rng.normal(0, 5),
            "reward_wang": wang + rng.normal(0, 5),
            "roi_l2fob": roi + rng.normal(0, 0.05),
            "reward_eta6": eta6 + rng.normal(0, 1),
            "reward_eta60": eta60 + rng.normal(0, 1),
            "reward_coupled": 150.0 + rng.normal(0, 5),
        }
        for i, T in enumerate(horizons):
            row[f"sweep_T{i}"] = float(T)
            row[f"sweep_norm_regret_l2fob_{i}"] = (
                regret0 * (T / horizons[0]) ** slope * (1 + rng.normal(0, 0.02))
            )
        out.append(row)
    return out


def test_claim_supported_when_all_four_parts_hold():
    verdict = l2fob_claim()(rows())
    assert verdict.outcome is Outcome.SUPPORTED, verdict.explanation
    assert "reward_coupled - reward_l2fob" in verdict.explanation


def test_sabotage_baseline_numbers_in_place_of_l2fob_do_not_support():
    # Wang's reward as L2FOB's (measured quick means: Wang 271, coupled 140, coupled ROI 1.5)
    verdict = l2fob_claim()(rows(l2fob=260.0, wang=271.0))
    assert verdict.outcome is Outcome.NOT_SUPPORTED
    verdict = l2fob_claim()(rows(roi=1.5))  # the coupled baseline's ROI: below the target
    assert verdict.outcome is Outcome.NOT_SUPPORTED
    assert l2fob_claim()(rows(slope=-0.05)).outcome is Outcome.INCONCLUSIVE  # flat regret
    assert l2fob_claim()(rows(eta60=300.0)).outcome is Outcome.INCONCLUSIVE  # eta 60 != eta 6
    assert l2fob_claim()(rows(n=1)).outcome is not Outcome.SUPPORTED


def test_roi_part_between_the_thresholds_is_inconclusive():
    data = rows()
    for i, row in enumerate(data):
        row["roi_l2fob"] = 1.65 if i % 2 else 1.81  # mean 1.73 < 1.75, interval reaching above 1.75
    verdict = l2fob_claim()(data)
    assert verdict.outcome is Outcome.INCONCLUSIVE and "(b) inconclusive" in verdict.explanation


def test_each_part_is_its_own_decider_on_declared_metrics():
    claim = EXPERIMENT.claims[0]
    data = [{m: r[m] for m in claim.metrics} for r in rows()]
    assert claim.judge(data).outcome is Outcome.SUPPORTED
    assert roi_part()(rows(roi=1.65)).outcome is Outcome.NOT_SUPPORTED  # the whole interval below 1.75
    assert roi_part()(rows(roi=1.76)).outcome is Outcome.SUPPORTED
    assert slope_part()(rows(slope=-0.05)).outcome is Outcome.INCONCLUSIVE  # (c) can fail, never refute
    assert eta_part()(rows(eta60=300.0)).outcome is Outcome.INCONCLUSIVE  # (d) likewise
    win = claim.decide.synthesize(data)
    assert claim.judge(win).outcome is Outcome.SUPPORTED
    assert (
        claim.judge([{**r, "reward_l2fob": r["reward_wang"]} for r in win]).outcome is not Outcome.SUPPORTED
    )


def test_regret_slope():
    T = np.array([1e3, 1e4, 1e5])
    assert regret_slope(T, np.array([[1.0, 0.1, 0.01], [1.0, 0.1, 0.01]])) == pytest.approx(-1.0)
    assert math.isnan(regret_slope(T, np.array([[1.0, -0.1, 0.01]])))


def test_config_rejects_a_sweep_of_the_wrong_length():
    with pytest.raises(ValueError, match="sweep_T"):
        L2fobConfig(sweep_T=(1_000, 2_000))
    with pytest.raises(ValueError, match="name"):
        make_bidder("oracle", L2fobConfig(), 100)
