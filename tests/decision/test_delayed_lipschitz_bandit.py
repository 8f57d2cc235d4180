"""Oracle tests of Delayed Zooming + DLPP (arXiv 2510.00309): the brief's correctness properties (1)-(7), the
delay models and queue, the baselines, the claim check (with sabotage) and bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest

from iclr26.decision.delayed_lipschitz_bandit import (
    DLPP,
    BLiN,
    CensoredDelay,
    DelayedZooming,
    DelayQueue,
    GeometricDelay,
    GridDelayedUCB1,
    LipschitzEnv,
    NoDelay,
    UniformDelay,
    Zooming,
    make_env,
    run,
    tent1d,
)
from iclr26.decision.delayed_lipschitz_bandit.claim_check import delayed_bandit_decider, fit_slope
from iclr26.decision.delayed_lipschitz_bandit.coverage import ball_key
from iclr26.decision.delayed_lipschitz_bandit.experiment import EXPERIMENT, delay_model, make_algorithm
from iclr26.decision.delayed_lipschitz_bandit.grid_ucb import grid_arms
from iclr26.harness import Outcome

C = 0.1  # the reproduction's conf_scale: many arms, many activations


def _loop(env, algo, delay, T, seed, after_round=None, on_receive=None):
    """The runner's loop, spelled out so that tests can look inside after every round."""
    delays = delay.sample(np.random.default_rng(seed), T)
    eps = env.noise(T)
    queue = DelayQueue()
    for t in range(1, T + 1):
        x, arm = algo.select(t)
        queue.push(t, delays[t - 1], arm, float(env.mean(x[None])[0]) + eps[t - 1])
        for pull_t, arm_id, y in queue.pop_due(t):
            if on_receive is not None:
                on_receive(t, arm_id, pull_t)
            algo.receive(t, arm_id, pull_t, y)
        if after_round is not None:
            after_round(t, algo, queue)
    return delays, queue


# ---- (1) tau = 0: Delayed Zooming plays exactly like classical zooming ---------------------------------------
@pytest.mark.parametrize(("name", "grid_res", "T"), [("trig1d", 256, 1500), ("bimodal2d", 24, 700)])
@pytest.mark.parametrize("lazy", [True, False])
def test_no_delay_matches_classical_zooming(name, grid_res, T, lazy):
    env = make_env(name, seed=3)
    fast = run(env, DelayedZooming(env.dim, T, lazy=lazy, grid_res=grid_res, conf_scale=C), NoDelay(), T, 0)
    slow = run(env, Zooming(env.dim, T, grid_res=grid_res, conf_scale=C), NoDelay(), T, 0)
    np.testing.assert_array_equal(fast["points"], slow["points"])
    np.testing.assert_array_equal(fast["n_active"], slow["n_active"])
    assert fast["n_active"][-1] > 5  # the comparison covers many activations


# ---- (2) the lazy invariant r_t(x) >= r_s(x) / 2 at every round ------------------------------------------------
@pytest.mark.parametrize("delay", [UniformDelay(100), GeometricDelay(50)])
def test_lazy_invariant_holds_every_round_and_naive_breaks_it(delay):
    env = make_env("trig1d", seed=1)
    ratios = {}
    for lazy in (True, False):
        algo = DelayedZooming(1, 3000, lazy=lazy, grid_res=512, conf_scale=C, debug=lazy)
        seen = []
        _loop(env, algo, delay, 3000, 7, after_round=lambda t, a, q, seen=seen: seen.append(a.radius_ratio()))
        ratios[lazy] = min(seen)
    assert ratios[True] >= 0.5
    assert ratios[False] < 0.5  # without the lazy rule the radius does halve between pulls: the test can fail


def test_debug_mode_raises_when_the_invariant_is_broken():
    algo = DelayedZooming(1, 100, grid_res=32, conf_scale=C, debug=True)
    _, arm = algo.select(1)
    algo._v[arm] = 10  # tamper: ten observations incorporated since the last pull (v_s = 0)
    with pytest.raises(AssertionError, match="invariant"):
        algo.check_invariant()


def test_lazy_buffers_and_flushes_on_the_next_pull():
    algo = DelayedZooming(1, 1000, grid_res=64, conf_scale=C)
    _, k = algo.select(1)  # v_s = 0: at most 3 observations keep 1 + v <= 4
    for y in (0.5, 0.6, 0.7, 0.8, 0.9):
        algo.receive(2, k, 1, y)
    assert int(algo._v[k]) == 3 and algo.feedback_counts()["buffered"] == 2
    others = np.arange(algo.n_active) != k
    algo._index[: algo.n_active][others] = -1.0  # tamper: make arm k the argmax of the next round
    assert algo.select(3)[1] == k
    assert int(algo._v[k]) == 5 and algo.feedback_counts()["buffered"] == 0
    assert math.isclose(float(algo._sums[k]), 3.5)


# ---- (3) reward conservation -----------------------------------------------------------------------------------
@pytest.mark.parametrize("algo_name", ["dz", "naive", "dlpp", "blin", "grid_ucb"])
@pytest.mark.parametrize("delay", [UniformDelay(100), CensoredDelay(0.5, GeometricDelay(20))])
def test_reward_conservation(algo_name, delay):
    env = make_env("trig1d", seed=2)
    algo = make_algorithm(algo_name, 1, 3000, C, seed=5)
    out = run(env, algo, delay, 2500, seed=11)  # stop before the horizon: rewards still in flight
    c = out["counts"]
    assert (
        c["incorporated"] + c["buffered"] + c["in_flight"] + c["censored"] + c["discarded"]
        == c["pulls"]
        == 2500
    )
    assert c["in_flight"] > 0
    if isinstance(delay, CensoredDelay):
        assert 1000 < c["censored"] < 1500
    if algo_name == "dlpp":
        assert c["discarded"] > 0  # late rewards of earlier phases


def test_lazy_zooming_buffers_rewards_under_delay():
    env = make_env("bimodal2d", seed=0)
    counts = []
    _loop(
        env,
        algo := DelayedZooming(2, 3000, grid_res=32, conf_scale=C),
        UniformDelay(100),
        3000,
        1,
        after_round=lambda t, a, q: counts.append(a.feedback_counts()["buffered"]),
    )
    assert max(counts) > 0 and algo.incorporated > 0


# ---- (4) after each activation every grid candidate is covered -------------------------------------------------
@pytest.mark.parametrize(("dim", "grid_res"), [(1, 128), (2, 20)])
def test_covering_counts_match_brute_force_every_round(dim, grid_res):
    env = make_env("trig1d" if dim == 1 else "bimodal2d", seed=4)
    cells = np.stack([m.ravel() for m in np.meshgrid(*([np.arange(grid_res)] * dim), indexing="ij")], axis=1)

    def check(t, algo, queue):
        k = algo.n_active
        centres = cells[algo._cell[:k]]
        keys = np.array([ball_key(algo._radius_of[v], grid_res) for v in algo._v[:k]])
        dist2 = ((cells[:, None, :] - centres[None]) ** 2).sum(axis=2)
        brute = (dist2 <= keys[None, :]).sum(axis=1)
        np.testing.assert_array_equal(algo.grid.counts.reshape(-1), brute)
        assert brute.min() >= 1

    algo = DelayedZooming(dim, 1200, grid_res=grid_res, conf_scale=C)
    _loop(env, algo, GeometricDelay(30), 1200, 2, after_round=check)
    assert algo.n_active > 5


# ---- (5) DLPP's cubes partition the surviving region; the optimum's cube survives --------------------------------
@pytest.mark.parametrize("name", ["tent1d", "bimodal2d"])
def test_dlpp_cubes_partition_and_keep_the_optimum(name):
    env = make_env(name, noise_sd=0.0, seed=0)
    x_star = {"tent1d": np.array([0.37]), "bimodal2d": np.array([0.25, 0.3])}[name]
    algo = DLPP(env.dim, 12_000, conf_scale=C, seed=1)
    state = {"phase": algo.phase}

    def check(t, a, q):
        if a.phase == state["phase"]:
            return
        state["phase"] = a.phase
        lower, edge = a.cubes()
        volume = len(lower) * edge**a.dim
        assert math.isclose(volume + a.eliminated_volume, 1.0, rel_tol=1e-12)
        cells = np.round(lower / edge)
        np.testing.assert_allclose(cells * edge, lower, atol=1e-12)  # aligned on the dyadic grid
        assert len(np.unique(cells, axis=0)) == len(cells)  # distinct, hence disjoint
        assert np.all(lower >= 0) and np.all(lower + edge <= 1 + 1e-12)
        inside = np.all((lower <= x_star + 1e-12) & (x_star <= lower + edge + 1e-12), axis=1)
        assert inside.any(), f"the cube of argmax mu was eliminated in phase {a.phase - 1}"

    _loop(env, algo, NoDelay(), 12_000, 0, after_round=check)
    assert algo.phase >= 4 and algo.eliminated_volume > 0  # eliminations did happen


def test_blin_equals_dlpp_without_delay():
    env = make_env("bimodal2d", seed=5)
    a = run(env, DLPP(2, 4000, conf_scale=C, seed=3), NoDelay(), 4000, 0)
    b = run(env, BLiN(2, 4000, conf_scale=C, seed=3), NoDelay(), 4000, 0)
    np.testing.assert_array_equal(a["points"], b["points"])
    assert a["phases"] == b["phases"] and len(a["phases"]) >= 3


def test_dlpp_counts_observations_and_blin_counts_pulls():
    env = make_env("trig1d", seed=0)
    delay = CensoredDelay(0.5, GeometricDelay(20))
    dlpp, blin = DLPP(1, 3000, conf_scale=C, seed=1), BLiN(1, 3000, conf_scale=C, seed=1)
    run(env, dlpp, delay, 3000, 4)
    run(env, blin, delay, 3000, 4)
    assert (
        dlpp.phase_ends[-1] > blin.phase_ends[len(dlpp.phase_ends) - 1]
    )  # waiting for arrivals takes longer


def test_dlpp_max_phases_freezes_the_survivors():
    algo = DLPP(1, 500, conf_scale=C, seed=0, max_phases=2)
    run(make_env("tent1d"), algo, NoDelay(), 500, 0)
    assert algo.final and algo.phase == 2 and len(algo.phase_ends) == 2 and algo.edge == 0.25


# ---- (6) censored rewards never surface ---------------------------------------------------------------------------
@pytest.mark.parametrize("algo_name", ["dz", "dlpp"])
def test_censored_rewards_never_surface(algo_name):
    env = make_env("trig1d", seed=0)
    received = []
    algo = make_algorithm(algo_name, 1, 2000, C, seed=0)
    delays, queue = _loop(
        env,
        algo,
        CensoredDelay(0.3, UniformDelay(10)),
        2000,
        9,
        on_receive=lambda t, a, s: received.append(s),
    )
    lost = set((np.flatnonzero(np.isinf(delays)) + 1).tolist())
    assert lost and not lost & set(received)
    assert len(received) + queue.censored + len(queue) == 2000


def test_delay_queue_delivers_in_arrival_order_at_the_end_of_the_due_round():
    q = DelayQueue()
    q.push(1, 5, 0, 0.1)
    q.push(2, 0, 1, 0.2)
    q.push(3, 1, 2, 0.3)
    q.push(4, math.inf, 3, 0.4)
    assert q.pop_due(2) == [(2, 1, 0.2)]
    assert q.pop_due(4) == [(3, 2, 0.3)]
    assert q.pop_due(10) == [(1, 0, 0.1)]
    assert len(q) == 0 and q.censored == 1 and q.pushed == 4


def test_runner_delivers_undelayed_rewards_in_their_own_round():
    pairs = []
    algo = GridDelayedUCB1(1, 50, conf_scale=C)
    original = algo.receive

    def receive(t, arm_id, pull_t, y):
        pairs.append((t, pull_t))
        original(t, arm_id, pull_t, y)

    algo.receive = receive
    run(make_env("tent1d"), algo, NoDelay(), 50, 0)
    assert pairs == [(t, t) for t in range(1, 51)]


# ---- (7) seed determinism --------------------------------------------------------------------------------------
@pytest.mark.parametrize("algo_name", ["dz", "dlpp", "grid_ucb"])
def test_runs_are_seed_deterministic(algo_name):
    def once(seed):
        env = make_env("bimodal2d", seed=seed)
        algo = make_algorithm(algo_name, 2, 1500, C, seed=seed)
        return run(env, algo, GeometricDelay(20), 1500, seed)["regret_curve"]

    np.testing.assert_array_equal(once(1), once(1))
    assert not np.array_equal(once(1), once(2))


# ---- delays, environments, baselines ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "delay", [NoDelay(), UniformDelay(40), GeometricDelay(20), CensoredDelay(0.5, GeometricDelay(20))]
)
def test_delay_samples_match_their_quantiles_and_means(delay):
    x = delay.sample(np.random.default_rng(0), 100_000)
    assert np.all(x >= 0) and np.all(x[np.isfinite(x)] == np.floor(x[np.isfinite(x)]))
    for p in (0.1, 0.5, 0.9):
        q = delay.quantile(p)
        assert np.mean(x <= q) >= p - 0.01
        if math.isfinite(q) and q > 0:
            assert np.mean(x <= q - 1) < p + 0.01  # the smallest such k
    if math.isfinite(delay.mean):
        assert abs(x.mean() - delay.mean) < 0.02 * max(1.0, delay.mean)


def test_environment_mu_star_and_lipschitz_check():
    env = make_env("trig1d")
    fine = np.linspace(0, 1, 1_000_001)[:, None]
    assert abs(env.mu_star - env.mean(fine).max()) < 1e-9
    assert make_env("bimodal2d").mu_star == 0.9
    LipschitzEnv(tent1d, 1)  # slope exactly 1 passes
    with pytest.raises(ValueError, match="Lipschitz"):
        LipschitzEnv(lambda x: 0.5 + 0.3 * np.sin(4 * x[:, 0]), 1)


def test_environment_noise_is_common_across_calls():
    env = make_env("trig1d", noise_sd=0.1, seed=4)
    np.testing.assert_array_equal(env.noise(100), env.noise(100))
    assert abs(env.noise(100_000).std() - 0.1) < 0.002


def test_grid_ucb_arm_count_and_exploration():
    assert grid_arms(1, 20_000).shape == (13, 1)  # ceil((T / log T)^(1/3))
    assert grid_arms(2, 20_000).shape == (49, 2)  # 45 rounded up to 7 x 7
    env = make_env("tent1d", seed=0)
    algo = GridDelayedUCB1(1, 5000, conf_scale=C)
    out = run(env, algo, UniformDelay(20), 5000, 0)
    best = int(np.argmax(env.mean(algo.arms)))
    assert algo.pulls[best] > 0.5 * 5000 and out["regret_curve"][-1] < 0.1 * 5000


def test_delayed_zooming_learns_under_delay():
    env = make_env("tent1d", seed=0)
    out = run(env, DelayedZooming(1, 5000, conf_scale=C), UniformDelay(100), 5000, 0)
    late = out["points"][-1000:, 0]
    assert np.mean(np.abs(late - 0.37) < 0.1) > 0.9
    assert out["regret_curve"][-1] < 0.05 * 5000


def test_delay_names_of_the_experiment():
    assert delay_model("uniform20").max == 40 and delay_model("max200").max == 200
    assert delay_model("geometric50").mean == 50 and delay_model("none").mean == 0
    with pytest.raises(ValueError, match="delay name"):
        delay_model("poisson5")


# ---- the claim check ------------------------------------------------------------------------------------------
def _rows(n=8, dz_delay=1.2, dlpp_delay=1.05, dlpp_learned=0.3, slope=0.6, seed=0):
    rng = np.random.default_rng(seed)
    horizons = (2_500, 5_000, 10_000, 20_000)
    rows = []
    for _ in range(n):
        row = {}
        for f, base, uniform in (("trig1d", 250.0, 2100.0), ("bimodal2d", 750.0, 7000.0)):
            row[f"uniform_regret_{f}"] = uniform
            row[f"regret_{f}_none_dz"] = base * rng.uniform(0.9, 1.1)
            row[f"regret_{f}_uniform50_dz"] = base * dz_delay * rng.uniform(0.9, 1.1)
            row[f"regret_{f}_none_dlpp"] = uniform * dlpp_learned * rng.uniform(0.97, 1.03)
            row[f"regret_{f}_geometric50_dlpp"] = (
                row[f"regret_{f}_none_dlpp"] * dlpp_delay * rng.uniform(0.97, 1.03)
            )
            row[f"dlpp_regret_vs_uniform_{f}"] = row[f"regret_{f}_none_dlpp"] / uniform
        for i, T in enumerate(horizons):
            row[f"sweep_horizon_{i}"] = float(T)
            row[f"regret_sweep_{i}"] = 3.0 * T**slope * rng.uniform(0.95, 1.05)
        rows.append(row)
    return rows


CLAIM = EXPERIMENT.claims[0]


def test_claim_supported_on_good_metrics():
    verdict = CLAIM.judge(_rows())
    assert verdict.outcome is Outcome.SUPPORTED, verdict.explanation


@pytest.mark.parametrize(
    "sabotage",
    [
        {"dz_delay": 2.5},  # delay doubles Delayed Zooming's regret
        {"dlpp_delay": 1.9},  # DLPP is not robust
        {"slope": 1.0},  # linear regret, e.g. a baseline's numbers in place of zooming's
    ],
)
def test_claim_check_fails_on_sabotaged_metrics(sabotage):
    verdict = CLAIM.judge(_rows(**sabotage))
    assert verdict.outcome is Outcome.NOT_SUPPORTED, verdict.explanation


def test_a_dlpp_that_did_not_learn_is_not_reproduced():
    verdict = CLAIM.judge(_rows(dlpp_learned=0.99))
    assert verdict.outcome is Outcome.NOT_REPRODUCED, verdict.explanation
    assert "dlpp_regret_vs_uniform_trig1d" in verdict.explanation
    # even a refuted rule is not reported as evidence against the paper when DLPP did not learn
    assert CLAIM.judge(_rows(dlpp_learned=0.99, dz_delay=2.5)).outcome is Outcome.NOT_REPRODUCED


def test_the_precondition_holds_when_dlpp_learned_in_every_seed():
    rows = _rows(dlpp_learned=0.6)
    assert not CLAIM.unmet(rows)
    assert CLAIM.judge(rows).outcome is Outcome.SUPPORTED
    rows[0] = {**rows[0], "dlpp_regret_vs_uniform_bimodal2d": 0.9}  # one seed that did not learn is enough
    assert CLAIM.judge(rows).outcome is Outcome.NOT_REPRODUCED


def test_claim_borderline_is_inconclusive_and_one_seed_is_not_judged():
    assert CLAIM.judge(_rows(dz_delay=1.6)).outcome is Outcome.INCONCLUSIVE
    assert CLAIM.judge(_rows(n=1)).outcome is Outcome.INCONCLUSIVE


def test_the_decider_reads_only_declared_metrics_and_states_each_part():
    rows = [{m: r[m] for m in CLAIM.metrics} for r in _rows()]
    verdict = delayed_bandit_decider()(rows)
    assert verdict.outcome is Outcome.SUPPORTED
    for part in ("(a) trig1d", "(a) bimodal2d", "(b) trig1d", "(b) bimodal2d", "(c)"):
        assert part in verdict.explanation


def test_fit_slope_recovers_a_power_law():
    T = np.array([1e3, 2e3, 4e3, 8e3])
    assert math.isclose(fit_slope(T, 5 * T**0.7), 0.7, rel_tol=1e-9)
    assert math.isnan(fit_slope(T, [1.0, 0.0, 2.0, 3.0]))


# ---- bad input -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: run(make_env("trig1d"), DLPP(1, 100), NoDelay(), 0, 0), ["T must"]),
        (lambda: DelayedZooming(1, 100, delta=1.5), ["delta"]),
        (lambda: DLPP(1, 100, delta=0.0), ["delta"]),
        (lambda: UniformDelay(-3), ["max", "non-negative integer"]),
        (lambda: UniformDelay(2.5), ["max", "non-negative integer"]),
        (lambda: GeometricDelay(-1.0), ["mean"]),
        (lambda: DelayQueue().push(1, -1, 0, 0.5), ["delay", "non-negative integer"]),
        (lambda: DelayQueue().push(1, 1.5, 0, 0.5), ["delay", "non-negative integer"]),
        (lambda: LipschitzEnv(lambda x: 1.5 + 0 * x[:, 0], 1), ["mu", "[0, 1]"]),
        (lambda: LipschitzEnv(lambda x: 0.5 + 0.4 * np.sin(10 * x[:, 0]), 1), ["mu", "Lipschitz"]),
        (lambda: run(make_env("trig1d"), DLPP(2, 100), NoDelay(), 10, 0), ["dim"]),
        (lambda: DLPP(1, 100, conf_scale=0.2, c=0.1), ["c", "conf_scale"]),
        (lambda: CensoredDelay(0.0), ["p"]),
        (lambda: DelayedZooming(1, 0), ["horizon"]),
        (lambda: DelayedZooming(1, 100, conf_scale=-1.0), ["conf_scale"]),
    ],
)
def test_bad_input_names_the_argument(call, words):
    with pytest.raises(ValueError) as info:
        call()
    for word in words:
        assert word in str(info.value)


def test_custom_delay_model_with_bad_samples_is_rejected():
    class Negative:
        def sample(self, rng, size):
            return -np.ones(size)

    with pytest.raises(ValueError, match="non-negative integers"):
        run(make_env("trig1d"), DLPP(1, 10), Negative(), 10, 0)
