"""Tests of MASS: blocks and their composition, the simulated world, MIPROLike/TPE, the three-stage search, the
claim rules and the endpoint path (oracles, limits that reduce to known methods, invariants, hand cases)."""

import re

import numpy as np
import pytest

from iclr26.agents.mass import (
    MASS,
    Aggregate,
    ChatOps,
    Debate,
    Demo,
    Executor,
    ItemSet,
    MIPROLike,
    Predictor,
    PromptConfig,
    Reflect,
    SimulatedLLM,
    Summarize,
    Workflow,
    arithmetic_items,
    default_prompts,
    evaluate,
    majority_vote,
    parse_letter,
    parse_verdict,
    random_search,
    sample_topology,
    tpe_suggest,
)
from iclr26.agents.mass.__main__ import main
from iclr26.agents.mass.experiment import EXPERIMENT, best_so_far
from iclr26.agents.mass.simulated import _sigmoid
from iclr26.harness.claims import Outcome
from iclr26.lab.evolution import EvaluationBudget
from iclr26.lab.llm import ScriptedBackend
from tests.llm_stub import serve_stub


@pytest.fixture(scope="module")
def world():
    return SimulatedLLM(3, n_train=30, n_val=60, n_test=200)


@pytest.fixture(scope="module")
def prompts(world):
    return {r: world.prompt(r, 2, 1) for r in ("predictor", "reflector", "debater", "summarizer")}


# ---------------------------------------------------------------- voting and the workflow algebra


def test_majority_vote_hand_cases():
    a = np.array([[2, 2, 2], [0, 1, 1], [3, 1, 0], [1, 0, 0], [-1, 2, -1], [-1, -1, -1]])
    np.testing.assert_array_equal(majority_vote(a, 4), [2, 1, 3, 0, 2, -1])  # ties -> earliest agent's answer
    same = np.random.default_rng(0).integers(0, 4, size=50)
    np.testing.assert_array_equal(majority_vote(np.stack([same] * 5, axis=1), 4), same)


def test_aggregate_of_one_is_the_predictor(world, prompts):
    for seed in range(3):
        np.testing.assert_array_equal(
            Aggregate(1)(world, prompts, world.test, seed), Predictor()(world, prompts, world.test, seed)
        )
    np.testing.assert_array_equal(
        Reflect(0)(world, prompts, world.test, 5), Predictor()(world, prompts, world.test, 5)
    )


def test_debate_without_rounds_and_predictor_prompts_is_aggregate(world, prompts):
    same = {**prompts, "debater": prompts["predictor"]}
    for n in (1, 3, 4):
        np.testing.assert_array_equal(
            Debate(n, 0)(world, same, world.test, 7), Aggregate(n)(world, same, world.test, 7)
        )
    # with their own debate prompts (and rounds) the two differ by design
    assert not np.array_equal(
        Debate(3, 0)(world, prompts, world.test, 7), Aggregate(3)(world, prompts, world.test, 7)
    )
    assert not np.array_equal(
        Debate(3, 1)(world, same, world.test, 7), Aggregate(3)(world, same, world.test, 7)
    )


def test_executor_acts_only_on_code_items_and_with_passing_tests_is_a_no_op(world, prompts):
    base = Predictor()(world, prompts, world.test, 2)
    ex = Executor()(world, prompts, world.test, 2)
    np.testing.assert_array_equal(ex[~world.test.code], base[~world.test.code])
    fixed = world.test.code & (base != world.test.answers)
    assert (ex[fixed] != base[fixed]).all()  # a failed test always forces a different answer
    assert (ex[world.test.code] == world.test.answers[world.test.code]).mean() >= (
        base[world.test.code] == world.test.answers[world.test.code]
    ).mean()
    passing = Executor(lambda items, a: np.ones(len(items), dtype=bool))(world, prompts, world.test, 2)
    np.testing.assert_array_equal(passing, base)


def test_workflow_canonical_order_agents_roles_and_spec():
    w = Workflow([Aggregate(3), Debate(2, 1), Reflect(2), "executor", Summarize()])
    assert w.describe() == "summarize > executor > reflect(2) > debate(2,1) > aggregate(3)"
    assert w == Workflow(["summarize", Aggregate(3), Reflect(2), Debate(2, 1), Executor()])
    assert w.n_agents == 1 + 3 * 2 * 2
    assert w.roles == {"debater", "reflector", "summarizer"}
    assert Workflow().n_agents == 1 and Workflow().roles == {"predictor"}
    assert Workflow.from_spec(w.spec()) == w
    assert Workflow.from_spec({"aggregate": 1, "reflect": 0, "summarize": False}) == Workflow()
    with pytest.raises(ValueError, match="unknown block name"):
        Workflow(["vote"])
    with pytest.raises(ValueError, match="more than once"):
        Workflow([Reflect(1), Reflect(2)])


def test_workflow_is_deterministic_and_order_free_in_items(world, prompts):
    w = Workflow(["summarize", Reflect(1), Aggregate(3)])
    a = w(world, prompts, world.test, 11)
    np.testing.assert_array_equal(a, w(world, prompts, world.test, 11))
    perm = np.random.default_rng(0).permutation(len(world.test))
    np.testing.assert_array_equal(
        w(world, prompts, world.test.subset(perm), 11), a[perm]
    )  # answers keyed by item
    assert not np.array_equal(a, w(world, prompts, world.test, 12))


def test_chat_path_equals_the_vectorised_path(world, prompts):
    items = world.val.subset(np.arange(24))
    for blocks in ([], ["summarize", Reflect(2)], ["executor", Debate(3, 1)],
                   ["summarize", "executor", Reflect(1), Debate(2, 1), Aggregate(2)]):  # fmt: skip
        w = Workflow(blocks)
        np.testing.assert_array_equal(w(ChatOps(world), prompts, items, 4), w(world, prompts, items, 4))


# ---------------------------------------------------------------- the simulated world


def test_simulated_accuracy_matches_the_logistic_model():
    w = SimulatedLLM(1, n_train=10, n_val=10, n_test=1000)
    p = w.prompt("predictor", 1, 2)
    calls = np.concatenate([w.answer(p, w.test, seed=s) == w.test.answers for s in range(60)])  # 60,000 calls
    expected = w.answer_probability(p, w.test).mean()
    assert abs(calls.mean() - expected) < 0.01  # ~4.5 standard errors


def test_simulated_errors_are_correlated_and_prompts_matter():
    w = SimulatedLLM(2, n_train=10, n_val=10, n_test=500)
    p = w.default_prompt("predictor")
    A = np.stack([w.answer(p, w.test, seed=s) for s in range(40)], axis=1)
    wrong = A != w.test.answers[:, None]
    # two wrong answers to the same item agree more often than uniform distractors would (1/3)
    agree = [
        np.mean(A[i, wrong[i]][:, None] == A[i, wrong[i]][None, :]) for i in range(500) if wrong[i].sum() > 5
    ]
    assert np.mean(agree) > 0.45
    q = [w.answer_probability(w.prompt("predictor", i, j), w.test).mean() for i in range(8) for j in range(6)]
    assert max(q) - min(q) > 0.1


def test_verify_false_alarm_and_detection_rates():
    w = SimulatedLLM(4, n_train=10, n_val=10, n_test=2000)
    p = w.prompt("reflector", 3, 0)
    q = w._quality(p, "reflector")
    right = w.test.answers
    wrong = (right + 1) % 4
    fa = np.mean([w.verify(p, w.test, right, s).mean() for s in range(10)])
    det = np.mean([w.verify(p, w.test, wrong, s).mean() for s in range(10)])
    assert abs(fa - _sigmoid(-q - 1.5)) < 0.01 and abs(det - _sigmoid(q + 0.5)) < 0.01


def test_exclusion_never_returns_the_excluded_option(world):
    p = world.default_prompt("predictor")
    a = world.answer(p, world.test, 1)
    b = world.answer(p, world.test, 2, exclude=a, reason="reflect")
    assert not np.any(a == b)


def test_unknown_prompts_have_neutral_quality(world):
    odd = PromptConfig("Something no pool contains.", (Demo("q", "a"),))
    np.testing.assert_allclose(
        world.answer_probability(odd, world.test),
        _sigmoid(
            -world._d[world.test.ids] - 0.5 * world._code[world.test.ids] - 1.0 * world._long[world.test.ids]
        ),
    )


# ---------------------------------------------------------------- TPE and MIPROLike


def test_tpe_concentrates_on_the_good_configuration():
    rng = np.random.default_rng(0)
    hist = [((i, j), float(i == 2) + float(j == 1) + 0.1 * rng.random())
            for _ in range(3) for i in range(4) for j in range(3)]  # fmt: skip
    picks = [tpe_suggest(hist, [4, 3], np.random.default_rng(s)) for s in range(200)]
    assert np.mean([p == (2, 1) for p in picks]) > 0.5  # uniform sampling: 1/12
    assert tpe_suggest(hist[:1], [4, 3], np.random.default_rng(0)) in {
        (i, j) for i in range(4) for j in range(3)
    }


def test_mipro_spends_its_budget_exactly_and_finds_good_prompts(world):
    d = default_prompts(world)
    budget = EvaluationBudget(2000)
    res = MIPROLike(world, 8, 6).optimize(
        Workflow(), d, ("predictor",), world.train, world.val, budget, seed=1
    )
    assert budget.used == res.trials[-1]["evals"] and 2000 - 25 < budget.used <= 2000
    assert sum(25 if t["kind"] == "minibatch" else len(world.val) for t in res.trials) == budget.used
    assert res.trials[0]["config"] == [0, 0]  # the current prompt first
    truth = {(i, j): world.answer_probability(world.prompt("predictor", i, j), world.test).mean()
             for i in range(8) for j in range(6)}  # fmt: skip
    chosen = truth[res.config["predictor"]]
    assert chosen > np.mean(list(truth.values())) and chosen > truth[(0, 0)]
    again = MIPROLike(world, 8, 6).optimize(
        Workflow(), d, ("predictor",), world.train, world.val, 2000, seed=1
    )
    assert again.config == res.config and again.val_score == res.val_score
    rnd = MIPROLike(world, 8, 6, sampler="random").optimize(Workflow(), d, ("predictor",), world.train, world.val,
                                                            2000, seed=1)  # fmt: skip
    assert rnd.trials != res.trials


def test_mipro_on_a_chat_backend_proposes_and_bootstraps():
    items = arithmetic_items(30, seed=0)

    def reply(msgs):
        text = msgs[-1].content
        if "Write one new" in text:
            return "Compute exactly, then pick the option."
        k = int(re.search(r"#(\d+)", text.split("Question: ")[-1]).group(1))
        return "Answer: " + "ABCD"[items.answers[k]]

    llm = ScriptedBackend(reply)
    mipro = MIPROLike(llm, n_instructions=3, n_demo_sets=3, minibatch=5)
    instr, demos = mipro.candidates("predictor", PromptConfig("Be careful."), items.subset(np.arange(10)),
                                    np.random.default_rng(0))  # fmt: skip
    assert instr == ["Be careful.", "Compute exactly, then pick the option."]  # proposals deduplicated
    assert demos[0] == () and len(demos) == 3 and all(len(s) == 3 for s in demos[1:])
    res = mipro.optimize(Workflow(), {"predictor": PromptConfig("Be careful.")}, ("predictor",),
                         items.subset(np.arange(10)), items.subset(np.arange(10, 30)), 100, seed=0)  # fmt: skip
    assert res.val_score == 1.0


# ---------------------------------------------------------------- MASS


def test_mass_with_only_stage_one_and_the_predictor_is_mipro(world):
    kw = {"n_instructions": 8, "n_demo_sets": 6}
    wf, pr, tr = MASS(world, apo=kw, block_set=("predictor",), stages=(1,), seed=5).run(
        world.train, world.val, 1500
    )
    res = MIPROLike(world, **kw).optimize(Workflow(), default_prompts(world), ("predictor",), world.train, world.val,
                                          1500, seed=5)  # fmt: skip
    assert wf == Workflow() and pr == res.prompts and tr["stage1_predictor_val"] == res.val_score
    assert tr["evals_used"] == res.trials[-1]["evals"] <= 1500


def test_mass_spends_exactly_its_budget_and_is_deterministic(world):
    budget = EvaluationBudget(5000)
    m = MASS(world, apo={"minibatch": 20}, n_topologies=4, seed=2)
    wf, pr, tr = m.run(world.train, world.val, budget)
    assert budget.used == tr["evals_used"] <= 5000 and budget.used > 5000 - 60
    assert set(tr["influence"]) == {"summarize", "executor", "reflect", "debate", "aggregate"}
    assert abs(sum(tr["probs"].values()) - 1.0) < 1e-9
    assert wf.n_agents <= 10 and all(r in pr for r in wf.roles)
    assert tr["best_val_after_stage3"] >= tr["best_val_after_stage2"]
    wf2, pr2, tr2 = MASS(world, apo={"minibatch": 20}, n_topologies=4, seed=2).run(
        world.train, world.val, 5000
    )
    assert wf2 == wf and pr2 == pr and tr2["curve"] == tr["curve"]


def test_mass_refuses_a_budget_too_small_for_its_split(world):
    with pytest.raises(ValueError, match="too small for the stage split"):
        MASS(world).run(world.train, world.val, 500)
    with pytest.raises(ValueError, match="D_val is empty"):
        MASS(world).run(world.train, world.val.subset([]), 5000)


def test_sample_topology_respects_the_agent_cap_and_probabilities():
    rng = np.random.default_rng(0)
    for _ in range(200):
        assert sample_topology(dict.fromkeys(("aggregate", "debate", "reflect", "summarize", "executor"), 0.7),
                               rng, max_agents=10).n_agents <= 10  # fmt: skip
    assert sample_topology({}, rng) == Workflow()
    assert sample_topology({"reflect": 1.0}, rng).get("reflect") is not None


def test_random_search_spends_whole_candidates_and_modes_differ(world):
    budget = EvaluationBudget(1000)
    wf, pr, tr = random_search(world, world.train, world.val, budget, prompts="default", seed=0)
    assert budget.used == 960 == 16 * len(world.val) and len(tr["curve"]) == 16
    assert pr == default_prompts(world)
    _, pr2, _ = random_search(world, world.train, world.val, 1000, prompts="random", seed=0)
    assert pr2 != default_prompts(world)


def test_evaluate_and_best_so_far():
    grid = np.array([0.0, 5.0, 10.0, 20.0])
    np.testing.assert_array_equal(
        best_so_far([(5, 0.3), (12, 0.2), (10, 0.5)], grid), [np.nan, 0.3, 0.5, 0.5]
    )
    items = arithmetic_items(8, seed=1)
    llm = ScriptedBackend(lambda m: "Answer: A")
    assert evaluate(Workflow(), {"predictor": PromptConfig("x")}, llm, items) == float(
        np.mean(items.answers == 0)
    )


def test_parsers():
    assert parse_letter("Answer: B", 4) == 1 and parse_letter("(C) is right", 4) == 2
    assert parse_letter("I think E", 4) == -1 and parse_letter("nothing", 4) == -1
    assert parse_letter("ABBA then D", 4) == 3
    assert parse_verdict("WRONG, because") and not parse_verdict("This is correct.")
    assert parse_verdict("incorrect") and not parse_verdict("no verdict")


def test_item_set_checks():
    items = arithmetic_items(5, seed=0)
    assert items.subset(np.array([True, False, True, False, False])).ids.tolist() == [0, 2]
    with pytest.raises(ValueError, match="predicted"):
        items.accuracy(np.zeros(3))
    with pytest.raises(ValueError, match="unique"):
        ItemSet(
            np.zeros(2), ("a", "b"), (("x",), ("y",)), np.zeros(2, int), np.zeros(2, bool), np.zeros(2, bool)
        )


# ---------------------------------------------------------------- the claim rules


def _rows(d_random, d_topo, d_apo=0.1, n=10):
    rng = np.random.default_rng(0)
    rows = []
    for i in range(n):
        base = 0.7 + 0.05 * rng.standard_normal()
        rows.append({"test_mass": base + d_random[i % len(d_random)], "test_random_joint": base,
                     "test_topology_only": base + d_random[i % len(d_random)] - d_topo[i % len(d_topo)],
                     "test_prompt_only_apo": base, "test_sc": base - d_apo, "mass_over_chance": 0.4,
                     "apo_over_chance": 0.4})  # fmt: skip
    return rows


def test_claim_rules_on_hand_built_rows():
    claim, apo = EXPERIMENT.claims
    assert claim.judge(_rows([0.05, 0.04, 0.06], [0.05, 0.07])).outcome is Outcome.SUPPORTED
    assert claim.judge(_rows([-0.05, -0.04, -0.06], [0.05])).outcome is Outcome.NOT_SUPPORTED
    assert (
        claim.judge(_rows([0.01, 0.02, 0.005], [0.05])).outcome is Outcome.INCONCLUSIVE
    )  # below the 2 points
    assert claim.judge(_rows([0.1, -0.1, 0.05], [0.05])).outcome is Outcome.INCONCLUSIVE
    sabotage = [{**r, "test_mass": r["test_random_joint"]} for r in _rows([0.05], [0.05])]
    assert claim.judge(sabotage).outcome is not Outcome.SUPPORTED
    failed = [{**r, "mass_over_chance": -0.01} for r in _rows([0.05], [0.05])]
    assert claim.judge(failed).outcome is Outcome.NOT_REPRODUCED
    assert apo.judge(_rows([0.0], [0.0], d_apo=0.08)).outcome is Outcome.SUPPORTED
    assert apo.judge(_rows([0.0], [0.0], d_apo=-0.08)).outcome is Outcome.NOT_SUPPORTED


# ---------------------------------------------------------------- the endpoint path


def _arith_reply(body):
    text = body["messages"][-1]["content"]
    if "Write one new" in text:
        return "Compute the product exactly."
    if "Summarize" in text:
        return "The numbers in the question."
    q = text.split("Question: ")[-1]
    nums = [int(v) for v in re.findall(r"\d+", q.split("\n")[0])[1:]]
    a, b = nums[0], nums[1]
    truth = (a * b) % 97 if "% 97" in q else a * b
    opts = re.findall(r"([A-D])\) (\d+)", q.split("\n")[1])
    letter = next((k for k, v in opts if int(v) == truth), "A")
    if "Is it correct?" in text:
        return "CORRECT" if f"Proposed answer: {letter}." in text else "WRONG"
    return f"Answer: {letter}"


def test_endpoint_path_against_the_loopback_server(capsys):
    with serve_stub(_arith_reply) as (url, state):
        out = main(["--llm", f"{url}@stub-model", "--budget", "500", "--n-train", "8", "--n-val", "10",
                    "--n-test", "12", "--n-instructions", "2", "--n-demo-sets", "2", "--n-topologies", "2"])  # fmt: skip
    assert out["metrics"]["test_mass"] == 1.0 and out["metrics"]["test_cot"] == 1.0
    assert out["metrics"]["evals_mass"] <= 500
    assert all(r["body"]["seed"] is not None for r in state.requests if "seed" in r["body"])
    assert '"test_mass"' in capsys.readouterr().out
