"""Oracle tests for AutoEP: operators, ELA features, controllers, the controlled GA, the claim's decider."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from iclr26.agents.autoep import (
    GA_RANGES,
    GATSP,
    ELAState,
    FixedController,
    LLMChainController,
    NoELAChainController,
    RandomController,
    RuleChainController,
    ScheduleController,
    check_ranges,
    clip_theta,
    distance_matrix,
    edge_distance,
    features,
    greedy_tour,
    inversion_mutation,
    order_crossover,
    parse_theta,
    random_instance,
    reference_length,
    run_controlled,
    tour_length,
    two_opt,
)
from iclr26.agents.autoep.__main__ import main
from iclr26.agents.autoep.experiment import EXPERIMENT, relative_gain_rule
from iclr26.harness.claims import Outcome
from iclr26.lab.llm import OpenAICompatibleBackend, ScriptedBackend
from tests.llm_stub import serve_stub


def _is_perm(t, n):
    return t.dtype.kind == "i" and np.array_equal(np.sort(t), np.arange(n))


def _ox_slow(a, b, i, j):
    """Textbook OX: keep a[i:j]; walk b from position j (wrapping), writing unused cities at j, j+1, ... (wrapping)."""
    n = len(a)
    child = [None] * n
    child[i:j] = list(a[i:j])
    pos = j % n
    for k in range(n):
        city = b[(j + k) % n]
        if city in child:
            continue
        while child[pos] is not None:
            pos = (pos + 1) % n
        child[pos] = city
    return np.array(child)


# ---------------------------------------------------------------- operators and tour length


def test_ox_and_inversion_always_return_permutations():
    rng = np.random.default_rng(0)
    for n in (3, 4, 7, 20):
        for _ in range(200):
            a, b = rng.permutation(n), rng.permutation(n)
            assert _is_perm(order_crossover(a, b, rng), n)
            assert _is_perm(inversion_mutation(a, rng), n)


def test_ox_equals_the_slow_reference_on_the_same_cut_points():
    rng = np.random.default_rng(1)
    for _ in range(300):
        n = int(rng.integers(3, 15))
        a, b = rng.permutation(n), rng.permutation(n)
        seed = int(rng.integers(0, 2**31))
        cut = np.sort(np.random.default_rng(seed).choice(n + 1, size=2, replace=False))
        fast = order_crossover(a, b, np.random.default_rng(seed))
        np.testing.assert_array_equal(fast, _ox_slow(a, b, *cut))
        np.testing.assert_array_equal(fast[cut[0] : cut[1]], a[cut[0] : cut[1]])


def test_ox_of_identical_parents_is_the_parent_and_inversion_is_a_reversal():
    rng = np.random.default_rng(2)
    a = rng.permutation(10)
    assert np.array_equal(order_crossover(a, a, rng), a)
    child = inversion_mutation(a, rng)
    diff = np.flatnonzero(child != a)
    if diff.size:
        i, j = diff[0], diff[-1]
        np.testing.assert_array_equal(child[i : j + 1], a[i : j + 1][::-1])


def test_tour_length_hand_case_and_rotation_reflection_invariance():
    square = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float)
    d = distance_matrix(square)
    assert tour_length(np.array([0, 1, 2, 3]), d) == pytest.approx(4.0)
    assert tour_length(np.array([0, 2, 1, 3]), d) == pytest.approx(2 + 2 * np.sqrt(2))
    rng = np.random.default_rng(3)
    d = distance_matrix(random_instance(12, rng))
    t = rng.permutation(12)
    base = tour_length(t, d)
    for k in range(12):
        assert tour_length(np.roll(t, k), d) == pytest.approx(base)
        assert tour_length(np.roll(t[::-1], k), d) == pytest.approx(base)


def test_two_opt_reaches_a_2opt_local_optimum_and_reference_beats_greedy():
    rng = np.random.default_rng(4)
    d = distance_matrix(random_instance(15, rng))
    t = two_opt(rng.permutation(15), d)
    assert _is_perm(t, 15)
    best = tour_length(t, d)
    for i, j in itertools.combinations(range(15), 2):
        u = t.copy()
        u[i : j + 1] = u[i : j + 1][::-1]
        assert tour_length(u, d) >= best - 1e-9
    g = greedy_tour(d, 0)
    assert _is_perm(g, 15) and g[0] == 0
    assert reference_length(d, starts=5) <= tour_length(g, d) + 1e-12


# ---------------------------------------------------------------- ELA features


def test_diversity_is_zero_for_identical_tours_and_rotations_and_matches_the_pairwise_loop():
    rng = np.random.default_rng(5)
    t = rng.permutation(10)
    same = np.stack([t, np.roll(t, 3), t[::-1], np.roll(t[::-1], 5)])
    z = features(same, np.ones(4), t, [])
    assert z["diversity"] == pytest.approx(0.0) and z["duplicates"] == pytest.approx(0.75)
    pop = np.stack([rng.permutation(10) for _ in range(7)])
    z = features(pop, rng.random(7), pop[0], [])
    slow = np.mean([edge_distance(pop[i], pop[j]) for i, j in itertools.combinations(range(7), 2)])
    assert z["diversity"] == pytest.approx(slow)


def test_edge_distance_hand_case():
    # 0-1-2-3-4-5 vs 0-1-2-3-5-4: edges {01,12,23,34,45,50} vs {01,12,23,35,54,40} share 4 of 6
    assert edge_distance(np.arange(6), np.array([0, 1, 2, 3, 5, 4])) == pytest.approx(1 - 4 / 6)


def test_fdc_is_plus_one_for_increasing_and_minus_one_for_decreasing_linear_fitness():
    """Sign convention: f is a tour length (minimised) and distances are to the best; FDC = corr(f, dist)."""
    rng = np.random.default_rng(6)
    best = rng.permutation(12)
    pop = np.stack([best] + [rng.permutation(12) for _ in range(9)])
    dist = np.array([edge_distance(p, best) for p in pop])
    assert features(pop, 3.0 + 2.0 * dist, best, [])["fdc"] == pytest.approx(1.0)
    assert features(pop, 10.0 - 0.5 * dist, best, [])["fdc"] == pytest.approx(-1.0)
    assert features(pop, np.ones(10), best, [])["fdc"] == 0.0  # constant fitness: defined as 0
    x = rng.random((8, 3))  # real vectors (PSO): Euclidean distances
    dx = np.linalg.norm(x - x[0], axis=1)
    assert features(x, 1.0 + dx, x[0], [])["fdc"] == pytest.approx(1.0)


def test_improvement_and_stagnation_hand_cases():
    pop = np.stack([np.arange(5), np.arange(5)[::-1]])
    z = features(pop, [1.0, 2.0], pop[0], [10.0, 9.0, 8.0, 8.0, 8.0])
    assert z["stagnation"] == 2.0 and z["improvement"] == pytest.approx(0.2)
    z = features(pop, [1.0, 2.0], pop[0], [10.0, 9.0, 8.0, 8.0, 8.0, 8.0, 8.0], window=2)
    assert z["improvement"] == 0.0 and z["stagnation"] == 4.0
    assert features(pop, [1.0, 3.0], pop[0], [])["fitness_cv"] == pytest.approx(0.5)


# ---------------------------------------------------------------- controllers


def _state(stagnation=0.0, diversity=0.5, improvement=0.0, theta=None):
    z = {"diversity": diversity, "fdc": 0.0, "improvement": improvement, "stagnation": stagnation,
         "fitness_cv": 0.1, "duplicates": 0.0}  # fmt: skip
    theta = theta or {"pc": 0.6, "pm": 0.4}
    return ELAState(30, theta, z, [{"theta": theta, "y": 5.0, "z": z}])


def test_clip_and_parse():
    assert clip_theta({"pc": 1.3, "pm": -0.2}, GA_RANGES) == {"pc": 0.8, "pm": 0.05}
    assert clip_theta({"pc": 0.5, "pm": 0.3}, GA_RANGES) == {"pc": 0.5, "pm": 0.3}
    tags = {"pc": "A", "pm": "B"}
    assert parse_theta("sure: <A> 0.7 </A> and <B>1e-1</B>", tags) == {"pc": 0.7, "pm": 0.1}
    assert parse_theta("<A>0.7</A> only", tags) is None
    assert parse_theta("", tags) is None


def test_rule_chain_raises_pm_on_stagnation_and_lowers_it_when_improving():
    rc = RuleChainController()
    up = rc.propose(_state(stagnation=3))
    assert up["pm"] > 0.4 and up["pc"] < 0.6
    assert rc.log[-1]["analysis"] == "explore"
    down = rc.propose(_state(improvement=0.05))
    assert down["pm"] < 0.4 and down["pc"] > 0.6
    assert rc.propose(_state()) == {"pc": 0.6, "pm": 0.4}  # hold
    step = 0.15 * (0.8 - 0.05)
    assert up["pm"] == pytest.approx(0.4 + step)
    assert rc.propose(_state(stagnation=5, theta={"pc": 0.4, "pm": 0.8})) == {"pc": 0.4, "pm": 0.8}  # clipped


def test_rule_chain_uses_diversity_only_with_ela():
    low_div = _state(diversity=0.05, improvement=0.05)
    assert RuleChainController().propose(low_div)["pm"] > 0.4  # explore: diversity collapsed
    assert RuleChainController(use_ela=False).propose(low_div)["pm"] < 0.4  # exploit: improving y


def test_fixed_random_schedule():
    s = _state()
    assert FixedController({"pc": 0.5, "pm": 0.2}).propose(s) == {"pc": 0.5, "pm": 0.2}
    r1, r2 = RandomController(seed=3), RandomController(seed=3)
    for _ in range(20):
        th = r1.propose(s)
        assert th == r2.propose(s)
        assert 0.4 <= th["pc"] <= 0.8 and 0.05 <= th["pm"] <= 0.8
    sc = ScheduleController(100, pm_start=0.8, pm_end=0.0)
    assert [sc.propose(ELAState(g, {}, {}))["pm"] for g in (0, 50, 100, 200)] == pytest.approx(
        [0.8, 0.4, 0, 0]
    )


def test_llm_chain_parses_clips_and_keeps_theta_on_garbage():
    replies = iter(["needs exploration", "raise pm, lower pc", "<A>0.3</A> <B>0.9</B>",
                    "?", "?", "I cannot comply"])  # fmt: skip
    llm = ScriptedBackend(lambda msgs: next(replies))
    ctl = LLMChainController(llm, llm, llm)
    assert ctl.propose(_state()) == {"pc": 0.4, "pm": 0.8}  # clipped to the README ranges
    assert ctl.propose(_state()) == {"pc": 0.6, "pm": 0.4}  # unparsable: theta kept
    assert ctl.failures == 1 and ctl.log[-1]["kept"]
    prompts = [c.last_user_message for c in llm.calls]
    assert "diversity=" in prompts[0] and "<A>value of pc</A> <B>value of pm</B>" in prompts[2]
    assert "needs exploration" in prompts[1] and "raise pm" in prompts[2]


def test_llm_chain_survives_backend_errors_and_noela_hides_features():
    def boom(msgs):
        raise RuntimeError("down")

    ctl = LLMChainController(ScriptedBackend(boom), ScriptedBackend(boom), ScriptedBackend(boom))
    assert ctl.propose(_state()) == {"pc": 0.6, "pm": 0.4} and "RuntimeError" in ctl.log[-1]["error"]
    llm = ScriptedBackend(["x", "y", "<A>0.5</A><B>0.5</B>"])
    noela = NoELAChainController(llm, llm, llm)
    assert noela.propose(_state()) == {"pc": 0.5, "pm": 0.5}
    assert "diversity" not in llm.calls[0].last_user_message and "y=5.0000" in llm.calls[0].last_user_message


def test_llm_chain_over_the_openai_compatible_endpoint():
    with serve_stub(lambda body: "<A>0.55</A> <B>0.25</B>") as (url, state):
        backend = OpenAICompatibleBackend(url, "stub-model")
        ctl = LLMChainController(backend, backend, backend)
        assert ctl.propose(_state()) == {"pc": 0.55, "pm": 0.25}
    assert len(state.requests) == 3 and state.requests[0]["body"]["model"] == "stub-model"


def test_endpoint_cli_against_the_loopback_server(capsys):
    with serve_stub(lambda body: "<A>0.7</A> <B>0.6</B>") as (url, state):
        out = main(["--llm", f"{url}@stub-model", "--n", "12", "--instances", "1", "--generations", "20",
                    "--pop-size", "10"])  # fmt: skip
    assert out["failures"] == {"llm_chain": 0, "llm_chain_noela": 0}
    assert len(state.requests) == 2 * 3 * 2  # two chains x three LLMs x two rounds (K = 10, 20 generations)
    assert set(json.loads(capsys.readouterr().out)["gaps"]) == {"llm_chain", "llm_chain_noela", "fixed_mid"}


# ---------------------------------------------------------------- the controlled GA


def test_ga_elitism_keeps_the_best_and_no_variation_only_copies():
    c = random_instance(15, np.random.default_rng(7))
    ga = GATSP(c, 12, seed=0)
    before = ga.best_length
    ga.step({"pc": 0.0, "pm": 0.0})
    assert ga.best_length == before
    old = {tuple(p.genome) for p in GATSP(c, 12, seed=0).population}
    assert {tuple(p.genome) for p in ga.population} <= old
    for _ in range(20):
        prev = ga.best_length
        ga.step({"pc": 0.8, "pm": 0.5})
        assert ga.best_length <= prev + 1e-12
        assert all(_is_perm(p.genome, 15) for p in ga.population)


def test_ga_options_greedy_init_and_2opt_children():
    c = random_instance(12, np.random.default_rng(8))
    d = distance_matrix(c)
    greedy = GATSP(c, 12, init="greedy", seed=1).population
    assert all(np.array_equal(p.genome, greedy_tour(d, int(p.genome[0]))) for p in greedy[:10])
    assert len({int(p.genome[0]) for p in greedy[:10]}) == 10  # ten distinct start cities
    ga = GATSP(c, 12, init="greedy", local_search="2opt", seed=1)
    ga.step({"pc": 0.5, "pm": 0.3})
    for p in ga.population:
        assert tour_length(two_opt(p.genome, d), d) == pytest.approx(-p.fitness)


def test_run_controlled_calls_every_K_and_is_seeded():
    c = random_instance(12, np.random.default_rng(9))
    r1 = run_controlled(GATSP(c, 10, seed=2), RuleChainController(), 25, K=10)
    r2 = run_controlled(GATSP(c, 10, seed=2), RuleChainController(), 25, K=10)
    assert [x["generation"] for x in r1.rounds] == [0, 10, 20] and len(r1.best) == 26
    assert r1.best == r2.best and r1.theta == r2.theta
    assert np.all(np.diff(r1.best) <= 1e-12)
    r = run_controlled(GATSP(c, 10, seed=2), FixedController({"pc": 0.9, "pm": 0.0}), 5, K=1)
    assert len(r.rounds) == 5 and all(t == {"pc": 0.8, "pm": 0.05} for t in r.theta)  # clipped each call


# ---------------------------------------------------------------- experiment and claim


def test_decider_supports_refutes_and_is_inconclusive():
    win = [{"gap_rule": 10.0 + i * 0.1, "gap_tuned": 20.0} for i in range(4)]
    lose = [{"gap_rule": 20.0 + i * 0.1, "gap_tuned": 10.0} for i in range(4)]
    tiny = [{"gap_rule": 19.9 - i * 0.01, "gap_tuned": 20.0} for i in range(4)]  # < 5% relative
    assert relative_gain_rule(win).outcome is Outcome.SUPPORTED
    assert relative_gain_rule(lose).outcome is Outcome.NOT_SUPPORTED
    assert relative_gain_rule(tiny).outcome is Outcome.INCONCLUSIVE


def test_smoke_run_is_fast_and_finite():
    rec = EXPERIMENT.run_seed("smoke", 0, "cpu")
    m = rec["metrics"]
    for k in ("gap_tuned", "gap_random", "gap_schedule", "gap_rule", "gap_rule_noela"):
        assert np.isfinite(m[k]) and m[k] < m["gap_random_tour"]
    assert 0.4 <= m["tuned_pc"] <= 0.8 and 0.05 <= m["tuned_pm"] <= 0.8


def test_bad_inputs_raise_clear_errors():
    with pytest.raises(ValueError, match="low < high"):
        check_ranges({"pc": (0.8, 0.4)})
    with pytest.raises(ValueError, match="K must be an int"):
        run_controlled(GATSP(random_instance(5, np.random.default_rng(0)), 4), FixedController({}), 3, K=0)
    with pytest.raises(ValueError, match="pop_size"):
        GATSP(random_instance(5, np.random.default_rng(0)), 1)
    with pytest.raises(ValueError, match=r"shape \(n, 2\)"):
        GATSP(np.zeros((5, 3)))


# ---------------------------------------------------------------- the experiment against an endpoint


def test_endpoint_claim_reads_the_llm_chain_against_tuned_fixed():
    from iclr26.agents.autoep.experiment import ENDPOINT_CLAIMS

    (claim,) = ENDPOINT_CLAIMS
    base = {"llm_chain_below_random_tour": 50.0, "tuned_below_random_tour": 50.0}
    win = [{**base, "gap_llm_chain": 10.0 + i * 0.1, "gap_tuned": 20.0} for i in range(4)]
    lose = [{**base, "gap_llm_chain": 20.0 + i * 0.1, "gap_tuned": 10.0} for i in range(4)]
    assert claim.judge(win).outcome is Outcome.SUPPORTED
    assert claim.judge(lose).outcome is Outcome.NOT_SUPPORTED
    unlearned = [{**r, "llm_chain_below_random_tour": -1.0} for r in win]
    assert claim.judge(unlearned).outcome is Outcome.NOT_REPRODUCED
    assert "gap_llm_chain" not in EXPERIMENT.claim_metrics  # the offline claims never read endpoint metrics


def test_run_with_llm_takes_the_endpoint_path_on_the_offline_instances():
    from iclr26.agents.autoep.experiment import ENDPOINT_CLAIMS

    assert EXPERIMENT.config("smoke").llm is None and EXPERIMENT.config("full").llm is None
    offline = EXPERIMENT.run_seed("smoke", 0, "cpu")["metrics"]
    with serve_stub(lambda body: "<A>0.7</A> <B>0.6</B>") as (url, state):
        rec = EXPERIMENT.with_config("smoke", llm=f"{url}@stub-model").run_seed("smoke", 0, "cpu")
    m, cfg = rec["metrics"], EXPERIMENT.config("smoke")
    rounds = cfg.n_test * (cfg.generations // cfg.K)
    assert len(state.requests) == 2 * 3 * rounds  # two chains x three LLM roles x control rounds
    assert m["failures_llm_chain"] == 0 and m["failures_llm_chain_noela"] == 0
    assert {x for c in ENDPOINT_CLAIMS for x in c.metrics} <= set(m)
    assert all(np.isfinite(v) for v in m.values())
    # the same seed's instances, tuned grid and reference tours as offline: the tuned baseline is the same run
    assert m["gap_tuned"] == offline["gap_tuned"] and m["gap_random_tour"] == offline["gap_random_tour"]
    assert rec["artifacts"]["last_replies"]["llm_chain"]["theta"] == {"pc": 0.7, "pm": 0.6}
