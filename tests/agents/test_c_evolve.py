"""Tests of C-Evolve: majority vote, voting score (Eq. 3) and EMA (Eq. 4), the loop on the shared island engine
(a slow replay of the EMA bookkeeping, the K = 1 limit, determinism, the budget counter), the LLM pieces on a
scripted backend, the tree substrate and the claim rule."""

import numpy as np
import pytest

from iclr26.agents.c_evolve import (
    CEvolve,
    FunctionMutator,
    Individual,
    LLMAggregator,
    LLMReflectiveMutator,
    TreeWorld,
    ema_update,
    majority_vote,
    mutate_tree,
    parse_prompt,
    voting_scores,
)
from iclr26.agents.c_evolve.experiment import EXPERIMENT, run
from iclr26.harness.claims import Outcome
from iclr26.lab.llm import ScriptedBackend

# A toy world: genome = integer vector over 12 items, output of item i = genome[i] (0..3), target all zeros.
N_ITEMS = 12


def _evaluate(g):
    return {i: int(v) for i, v in enumerate(g)}


def _metric(out):
    return float(np.mean([out[i] == 0 for i in range(N_ITEMS)]))


def _mut(g, rng, ctx):
    g = list(g)
    g[int(rng.integers(0, N_ITEMS))] = int(rng.integers(0, 4))
    return tuple(g)


SEED_G = tuple([1] * N_ITEMS)


def _ce(**kw):
    return CEvolve(_evaluate, FunctionMutator(_mut), _metric, **kw)


# ---------------------------------------------------------------- majority vote


def test_majority_vote_hand_cases():
    assert majority_vote([3, 1, 3]) == 3
    assert majority_vote(["x"]) == "x"
    assert majority_vote([1, 2, 3]) == 1  # ties, no rng: first
    assert majority_vote([1, 2, 3], scores=[0.1, 0.9, 0.5]) == 2  # "highest individual score" option
    draws = {majority_vote([1, 2], np.random.default_rng(s)) for s in range(40)}
    assert draws == {1, 2}  # random ties use both


def test_vote_of_identical_members_equals_single():
    ce = _ce(seed=0)
    p = Individual("p", {i: i % 3 for i in range(N_ITEMS)}, 0.0)
    rng = np.random.default_rng(0)
    assert ce.consensus([p, p, p], rng) == p.outputs
    assert ce.group_score([p, p, p], rng) == ce.group_score([p], rng) == _metric(p.outputs)


# ---------------------------------------------------------------- Eq. 3 and Eq. 4


def _slow_voting(groups, scores):
    out = {}
    for pid in {i for g in groups for i in g}:
        vals = [s for g, s in zip(groups, scores) if pid in g]
        out[pid] = sum(vals) / len(vals)
    return out


def test_voting_scores_hand_built_three_islands():
    # islands {0,1}, {2,3}, {4,5,6}; member 6 is in no sampled group
    groups = [(0, 2, 4), (0, 3, 5), (1, 2, 4)]
    scores = [0.9, 0.6, 0.3]
    v = voting_scores(groups, scores)
    assert v == pytest.approx({0: 0.75, 1: 0.3, 2: 0.6, 3: 0.6, 4: 0.6, 5: 0.6})
    assert 6 not in v
    assert v == pytest.approx(_slow_voting(groups, scores))
    ema = {i: 0.5 for i in range(7)}
    new = {i: ema_update(ema[i], v[i], 0.8) if i in v else ema[i] for i in ema}
    assert new[0] == pytest.approx(0.8 * 0.5 + 0.2 * 0.75) and new[6] == 0.5
    assert all(ema_update(0.5, v[i], 0.0) == v[i] for i in v)  # alpha 0: s_EMA = V
    assert all(ema_update(0.5, v[i], 1.0) == 0.5 for i in v)  # alpha 1: frozen
    rng = np.random.default_rng(3)
    for _ in range(50):
        g = [tuple(rng.integers(0, 6, size=3)) for _ in range(int(rng.integers(1, 8)))]
        s = list(rng.random(len(g)))
        slow = {pid: np.mean([x for gg, x in zip(g, s) if pid in gg]) for pid in {i for gg in g for i in gg}}
        assert voting_scores(g, s) == pytest.approx(slow)


def _replay(res, alpha):
    """Slow reference of the EMA bookkeeping from the recorded groups: children inherit the parent's s_EMA."""
    ema = {}
    inds = res.individuals
    K = len(res.islands)
    for h in res.history:
        if h["phase"] != "voting":
            continue
        first = h["evaluations"] - K
        for cid in range(first, h["evaluations"]):
            p = inds[cid].parent_id
            ema[cid] = ema.get(p, inds[p].score)
        v = {}
        for pid in {i for g in h["sampled_groups"] for i in g}:
            vals = [s for g, s in zip(h["sampled_groups"], h["sampled_scores"]) if pid in g]
            v[pid] = sum(vals) / len(vals)
        for pid, val in v.items():
            old = ema.get(pid, inds[pid].score)
            ema[pid] = alpha * old + (1 - alpha) * val
    return ema


@pytest.mark.parametrize("alpha", [0.0, 0.8, 1.0])
def test_loop_ema_matches_slow_replay(alpha):
    res = _ce(ema_alpha=alpha, seed=1).run(60, init=SEED_G)
    assert sum(h["phase"] == "voting" for h in res.history) == 10
    ema = _replay(res, alpha)
    for isl in res.islands:
        for i in isl:
            assert res.individuals[i].ema == pytest.approx(ema.get(i, res.individuals[i].score), abs=1e-12)
    for h in res.history:  # sampled groups hold one member per island and are scored by their consensus
        for g, s in zip(h["sampled_groups"], h["sampled_scores"]):
            assert len(g) == 3
            assert 0.0 <= s <= 1.0
    if alpha == 1.0:
        assert all(
            res.individuals[i].ema == ema.get(i, res.individuals[i].score) for isl in res.islands for i in isl
        )


def test_k1_reduces_to_individual_fitness_evolution():
    kw = dict(n_islands=1, island_size=5, seed=4, child_ema="own")
    a = _ce(warmup_frac=0.5, **kw).run(40, init=SEED_G)
    b = _ce(warmup_frac=1.0, **kw).run(40, init=SEED_G)
    assert [i.genome for i in a.individuals.values()] == [i.genome for i in b.individuals.values()]
    assert a.islands == b.islands
    assert all(m.ema == m.score for m in a.individuals.values() if m.ema is not None)
    assert a.best_group[0].genome == b.best_single().genome


def test_k1_paper_rule_sampled_members_move_to_their_own_score():
    res = _ce(n_islands=1, island_size=5, seed=4, ema_alpha=0.0).run(40, init=SEED_G)
    last = res.history[-1]
    for i in {g[0] for g in last["sampled_groups"]}:
        assert res.individuals[i].ema == res.individuals[i].score  # V(p) = s({p}), alpha 0


def test_warmup_phase_uses_individual_scores():
    res = _ce(warmup_frac=1.0, seed=2).run(30, init=SEED_G)
    assert all(h["phase"] == "warmup" and h["sampled_groups"] == [] for h in res.history)
    assert [m.id for m in res.best_group] == [m.id for m in res.best_of_each_island()]


def test_determinism_and_budget_counter():
    calls = []

    def counting(g):
        calls.append(g)
        return _evaluate(g)

    r1 = CEvolve(counting, FunctionMutator(_mut), _metric, seed=7).run(45, init=SEED_G)
    n1 = len(calls)
    r2 = CEvolve(counting, FunctionMutator(_mut), _metric, seed=7).run(45, init=SEED_G)
    assert r1.evaluations == n1 == 1 + 45 and len(calls) == 2 * n1
    assert [m.genome for m in r1.best_group] == [m.genome for m in r2.best_group]
    assert [h["group_score"] for h in r1.history] == [h["group_score"] for h in r2.history]
    assert r1.history[-1]["evaluations"] == r1.evaluations
    r3 = CEvolve(counting, FunctionMutator(_mut), _metric, seed=8).run(45, init=SEED_G)
    assert [i.genome for i in r3.individuals.values()] != [i.genome for i in r1.individuals.values()]


def test_island_cap_and_final_group():
    res = _ce(island_size=4, seed=3).run(60, init=SEED_G)
    assert all(len(ids) <= 4 for ids in res.islands)
    taken = set()
    for k, ids in enumerate(res.islands):  # slow reference of the distinct best-of-each-island rule
        free = [res.individuals[i] for i in ids if i not in taken] or [res.individuals[i] for i in ids]
        best = max(free, key=lambda m: (m.fitness, -m.id))
        assert res.best_group[k].id == best.id and res.best_group[k].id in ids
        taken.add(best.id)
    assert len({m.id for m in res.best_group}) == 3
    assert len(res.top_k()) == 3 and len(res.best_of_each_island()) == 3
    assert len(res.island_traces) == 3 and all(len(t) == 20 for t in res.island_traces)


def test_voting_improves_toy_group():
    # On the toy the zero-target makes a group's consensus better than its members: the loop must find it.
    res = _ce(seed=0).run(150, init=SEED_G)
    assert res.group_score > _metric(_evaluate(SEED_G))


# ---------------------------------------------------------------- LLM pieces (scripted backend)


def test_reflective_mutator_prompt_and_parse():
    llm = ScriptedBackend(lambda msgs: "sure: <<<Think step by step.>>>")
    mut = LLMReflectiveMutator(llm, feedback=lambda g, rng, n: f"{n} examples of {g}")
    parent = Individual("Answer.", {0: "a", 1: "b"}, 0.5)
    other = Individual("Be brief.", {0: "a", 1: "c"}, 0.5)
    child = mut("Answer.", np.random.default_rng(0), {"parent": parent, "group": [parent, other],
                                                      "consensus": {0: "a", 1: "b"}})  # fmt: skip
    assert child == "Think step by step."
    sent = llm.calls[0].last_user_message
    assert "Answer." in sent and "3 examples of Answer." in sent and "consensus 'a'" in sent
    assert parse_prompt("  ") is None
    bad = LLMReflectiveMutator(ScriptedBackend(lambda m: "   "))
    assert bad("keep me", np.random.default_rng(0), {}) == "keep me" and bad.failures == 1


def test_llm_aggregator_selects_existing_answer():
    agg = LLMAggregator(ScriptedBackend(lambda m: "2"))
    assert agg(["Paris", "paris, France", "Lyon"]) == "paris, France"
    fallback = LLMAggregator(ScriptedBackend(lambda m: "none"))
    assert fallback(["a", "b", "a"]) == "a" and fallback.fallbacks == 1
    assert agg(["only"]) == "only"


def test_cevolve_on_prompts_with_scripted_llm():
    targets = {0: "4", 1: "9"}
    answers = {"p": {0: "4", 1: "1"}, "p+": {0: "4", 1: "9"}}

    def evaluate(prompt):
        return answers["p+" if "+" in prompt else "p"]

    llm = ScriptedBackend(lambda m: "<<<p+>>>")
    res = CEvolve(evaluate, LLMReflectiveMutator(llm), lambda o: float(np.mean([o[i] == targets[i] for i in o])),
                  seed=0).run(6, init="p")  # fmt: skip
    assert res.group_score == 1.0 and res.evaluations == 7 and len(llm.calls) == 6


# ---------------------------------------------------------------- substrate and experiment


def test_tree_world_and_mutation():
    w = TreeWorld("wine", 0)
    out = w.evaluate(w.seed_genome)
    assert set(out) == set(range(w.yva.size)) and 0.0 <= w.metric(out) <= 1.0
    rng = np.random.default_rng(0)
    g, same = w.seed_genome, 0
    for _ in range(200):
        c = mutate_tree(g, rng)
        assert any(c[0]) and 2 <= c[1] <= 12 and c[2] in (1, 2, 5, 10)
        same += c == g  # only when a hyperparameter step hits its bound
        g = c
    assert same < 30
    assert w.test_accuracy([w.seed_genome] * 3) == w.test_accuracy([w.seed_genome])
    n = w.fits
    w.evaluate(w.seed_genome)
    assert w.fits == n  # cached


def test_smoke_run_metrics():
    m = run(EXPERIMENT.configs["smoke"], 0, "cpu")
    v = m.values
    for ds in ("digits", "wine"):
        assert v[f"evals_cevolve_{ds}"] == v[f"evals_individual_{ds}"] == 43
        assert v[f"gain_single_{ds}"] == 0.0
        assert 0.0 <= v[f"test_cevolve_{ds}"] <= 1.0
    assert m.curves["test_cevolve_digits"].x[-1] == 43


def _rows(d_digits, d_wine, n=10):
    rng = np.random.default_rng(0)
    rows = []
    for _ in range(n):
        r = {}
        for ds, d in (("digits", d_digits), ("wine", d_wine)):
            b = 0.8 + 0.01 * rng.standard_normal()
            r[f"test_island_best_{ds}"] = b
            r[f"test_cevolve_{ds}"] = b + d + 0.003 * rng.standard_normal()
        rows.append(r)
    return rows


def test_claim_rule_three_ways():
    decide = EXPERIMENT.claims[0].decide
    assert decide(_rows(0.03, 0.0)).outcome is Outcome.SUPPORTED
    assert decide(_rows(-0.02, 0.0)).outcome is Outcome.NOT_SUPPORTED
    assert decide(_rows(0.03, -0.05)).outcome is Outcome.INCONCLUSIVE  # worse on wine beyond its interval
    assert decide(_rows(0.004, 0.0)).outcome is Outcome.INCONCLUSIVE  # above 0 but below the 1-point effect


def _arith_reply(body):
    import re

    last = body["messages"][-1]["content"]
    m = re.search(r"What is (\d+) \+ (\d+) \* (\d+)\?", last)
    if m:
        a, b, c = map(int, m.groups())
        return f"The answer is {a + b * c}"
    return "<<<Compute carefully; end with the integer.>>>"


def test_endpoint_path_against_stub(capsys):
    from iclr26.agents.c_evolve.__main__ import main
    from tests.llm_stub import serve_stub

    with serve_stub(_arith_reply) as (url, state):
        out = main(["--llm", f"{url}@stub-model", "--budget", "6", "--n-feedback", "4", "--n-metric", "5",
                    "--n-test", "6"])  # fmt: skip
    assert out["metrics"]["test_cevolve"] == 1.0 and out["metrics"]["test_single"] == 1.0
    assert out["metrics"]["evals_cevolve"] == 7
    assert '"test_cevolve"' in capsys.readouterr().out


# ---------------------------------------------------------------- the experiment against an endpoint


def test_endpoint_claim_reads_cevolve_against_island_best():
    from iclr26.agents.c_evolve.experiment import ENDPOINT_CLAIMS

    (claim,) = ENDPOINT_CLAIMS
    base = {"cevolve_over_mode": 0.5, "island_best_over_mode": 0.5}
    win = [{**base, "test_cevolve": 0.8 + 0.01 * i, "test_island_best": 0.7} for i in range(4)]
    lose = [{**base, "test_cevolve": 0.6 + 0.01 * i, "test_island_best": 0.7} for i in range(4)]
    assert claim.judge(win).outcome is Outcome.SUPPORTED
    assert claim.judge(lose).outcome is Outcome.NOT_SUPPORTED
    unlearned = [{**r, "cevolve_over_mode": 0.0} for r in win]
    assert claim.judge(unlearned).outcome is Outcome.NOT_REPRODUCED
    assert "test_cevolve" not in EXPERIMENT.claim_metrics  # the offline claims never read endpoint metrics


def test_run_with_llm_takes_the_endpoint_path_at_the_budget_sizes():
    from iclr26.agents.c_evolve.experiment import ENDPOINT_CLAIMS
    from tests.llm_stub import serve_stub

    assert EXPERIMENT.config("smoke").llm is None and EXPERIMENT.config("quick").llm is None
    with serve_stub(_arith_reply) as (url, state):
        exp = EXPERIMENT.with_config("smoke", llm=f"{url}@stub-model")
        rec = exp.run_seed("smoke", 0, "cpu")
    m, cfg = rec["metrics"], exp.config("smoke")
    assert (
        m["evals_cevolve"] == m["evals_individual"] == cfg.budget + 1
    )  # the seed prompt, then `budget` children
    assert {x for c in ENDPOINT_CLAIMS for x in c.metrics} <= set(m)
    # the stub answers every arithmetic question correctly: every group is perfect, the mode baseline is not
    assert m["test_cevolve"] == m["test_island_best"] == m["test_single"] == 1.0
    assert m["mode_acc"] < 1.0 and m["cevolve_over_mode"] > 0
    assert rec["artifacts"]["group"] and len(state.requests) > cfg.budget * cfg.n_metric
