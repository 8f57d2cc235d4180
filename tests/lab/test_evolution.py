"""Tests of the shared evolutionary core: the budget can never be exceeded, selection is seeded and correct,
the operators and loops behave as documented (the configurations MASS, C-Evolve and AutoEP rely on)."""

import math
import threading

import numpy as np
import pytest

from iclr26.lab.evolution import (
    WORST,
    BudgetedEvaluator,
    BudgetExhausted,
    EvaluationBudget,
    FunctionCrossover,
    FunctionMutator,
    Individual,
    Island,
    PromptCrossover,
    PromptMutator,
    RNGStreams,
    as_fitness,
    evolve_islands,
    generational_step,
    softmax_select,
    softmax_weights,
    tournament_select,
)
from iclr26.lab.llm import ScriptedBackend


def test_budget_reserve_is_exact_and_refuses_without_charging():
    b = EvaluationBudget(10)
    b.reserve(3)
    b.reserve(7)
    assert (b.used, b.remaining) == (10, 0)
    with pytest.raises(BudgetExhausted, match="exceeds the 0 left"):
        b.reserve(1)
    assert b.used == 10 and b.refused == 1
    b0 = EvaluationBudget(5)
    with pytest.raises(BudgetExhausted):
        b0.reserve(6)  # too large: nothing is taken
    assert b0.used == 0
    b0.reserve(0)
    assert b0.used == 0


def test_sub_budgets_charge_the_parent_and_respect_both_limits():
    b = EvaluationBudget(100)
    s1, s2, s3 = b.split([0.4, 0.3, 0.3], names=["one", "two", "three"])
    assert (s1.limit, s2.limit, s3.limit) == (40, 30, 30)
    s1.reserve(40)
    with pytest.raises(BudgetExhausted, match="one"):
        s1.reserve(1)
    s2.reserve(30)
    assert b.used == 70 and b.remaining == 30
    b.reserve(25)  # the parent spent elsewhere: the child can only take what the parent has left
    assert s3.remaining == 5
    with pytest.raises(BudgetExhausted):
        s3.reserve(6)
    assert b.used == 95 and b.used <= b.limit


@pytest.mark.parametrize("limit", [0, 1, 7, 50])
def test_budget_never_exceeded_under_adversarial_evaluators(limit):
    budget = EvaluationBudget(limit)
    rng = np.random.default_rng(limit)
    holder = {}

    def nasty(genome):
        r = rng.random()
        if r < 0.25:
            raise RuntimeError("boom")
        if r < 0.5:
            return float("nan")
        if r < 0.75:  # calls back into the budgeted evaluator (re-entrant)
            try:
                return holder["ev"](genome + 1)
            except BudgetExhausted:
                return float("inf")
        return "not a number"

    ev = BudgetedEvaluator(nasty, budget, on_error="worst")
    holder["ev"] = ev
    results = []
    for g in range(200):
        try:
            results.append(ev(g))
        except BudgetExhausted:
            break
        assert budget.used <= limit
    assert budget.used == ev.calls <= limit
    assert ev.calls == limit  # every unit was spent, none twice
    assert all(as_fitness(r) == WORST for r in results)


def test_budget_holds_under_threads():
    budget = EvaluationBudget(500)
    ev = BudgetedEvaluator(lambda g: 1.0, budget)

    def work():
        for _ in range(200):
            try:
                ev(0)
            except BudgetExhausted:
                return

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert budget.used == ev.calls == 500


def test_evaluator_errors_propagate_by_default_and_still_count():
    budget = EvaluationBudget(3)
    ev = BudgetedEvaluator(lambda g: 1 / 0, budget)
    with pytest.raises(ZeroDivisionError):
        ev(1)
    assert (budget.used, ev.calls, ev.errors) == (1, 1, 1)
    ev2 = BudgetedEvaluator(lambda g: 1.0, budget, cost=lambda g: len(g))
    ev2("ab")
    assert budget.used == 3
    with pytest.raises(BudgetExhausted):
        ev2("a")


def test_as_fitness():
    assert as_fitness(0.5) == 0.5 and as_fitness(2) == 2.0
    for bad in (float("nan"), float("inf"), -math.inf, None, "x", True, [1]):
        assert as_fitness(bad) == WORST


def test_softmax_weights_hand_computed_and_limits():
    w = softmax_weights([0.0, math.log(3.0)], 1.0)
    np.testing.assert_allclose(w, [0.25, 0.75])
    np.testing.assert_allclose(softmax_weights([1.0, 1.0, 1.0], 0.05), [1 / 3] * 3)
    np.testing.assert_allclose(softmax_weights([0.0, -math.inf], 1.0), [1.0, 0.0])
    np.testing.assert_allclose(softmax_weights([-math.inf, -math.inf], 1.0), [0.5, 0.5])
    assert softmax_weights([0.0, 1.0], 1e-4)[1] == pytest.approx(1.0)  # tau -> 0: argmax
    with pytest.raises(ValueError, match="tau"):
        softmax_weights([1.0], 0.0)
    with pytest.raises(ValueError, match="values"):
        softmax_weights([float("nan")], 1.0)


def test_softmax_select_matches_its_weights_and_is_seeded():
    f = [0.0, 0.5, 1.0]
    rng = np.random.default_rng(0)
    draws = np.array([softmax_select(f, 0.5, rng) for _ in range(40_000)])
    freq = np.bincount(draws, minlength=3) / draws.size
    np.testing.assert_allclose(freq, softmax_weights(f, 0.5), atol=0.01)
    a = [softmax_select(f, 0.5, np.random.default_rng(3)) for _ in range(5)]
    b = [softmax_select(f, 0.5, np.random.default_rng(3)) for _ in range(5)]
    assert a == b


def test_tournament_select_picks_fittest_of_sample():
    f = np.array([0.1, 0.9, 0.5, 0.3])
    rng = np.random.default_rng(0)
    assert all(tournament_select(f, 50, rng) == 1 for _ in range(20))  # k large: always the best
    draws = [tournament_select(f, 1, np.random.default_rng(s)) for s in range(2000)]
    assert abs(np.mean(np.array(draws) == 1) - 0.25) < 0.04  # k = 1: uniform


def test_rng_streams_are_independent_of_use_order():
    a, b = RNGStreams(5), RNGStreams(5)
    a["x"].random(10)
    assert a["y"].random() == b["y"].random()
    assert RNGStreams(5)["x"].random() != RNGStreams(6)["x"].random()


def test_island_trims_lowest_fitness_newest_first_among_ties():
    isl = Island(2)
    for i, f in enumerate([0.5, 0.1, 0.5, 0.9]):
        isl.add(Individual(f"g{i}", f, id=i))
    dropped = isl.trim()
    assert [d.id for d in dropped] == [1, 2]
    assert [m.id for m in isl.members] == [0, 3] and isl.best().id == 3


def test_prompt_mutator_and_crossover_are_prompt_transforms():
    llm = ScriptedBackend(lambda msgs: "CHILD: " + msgs[-1].content.upper())
    mut = PromptMutator(llm, "Improve: {genome} ({hint})", parse=lambda t: t.split("CHILD: ")[1])
    rng = np.random.default_rng(0)
    assert mut("be brief", rng, {"hint": "math"}) == "IMPROVE: BE BRIEF (MATH)"
    assert llm.calls[0].seed is not None
    bad = PromptMutator(ScriptedBackend(["   "]), "x {genome}")
    assert bad("parent", rng) == "parent" and bad.failures == 1
    cx = PromptCrossover(ScriptedBackend(lambda m: m[-1].content), "{a} + {b}")
    assert cx("p", "q", rng) == "p + q"
    with pytest.raises(ValueError, match="genome"):
        PromptMutator(llm, "no field")


def test_evolve_islands_spends_exactly_the_budget_and_improves():
    budget = EvaluationBudget(60)
    ev = BudgetedEvaluator(lambda g: -abs(g - 40), budget)
    mut = FunctionMutator(lambda g, rng, ctx: g + int(rng.integers(1, 4)))
    run = evolve_islands([0], ev, mut, n_islands=3, island_size=5, seed=1)
    assert run.stopped == "budget" and budget.used == 60 == len(run.history)
    assert run.best.fitness > -40 and all(len(i) <= 5 for i in run.islands)
    assert all(b2 >= b1 for b1, b2 in zip(run.best_so_far, run.best_so_far[1:]))
    again = evolve_islands([0], BudgetedEvaluator(lambda g: -abs(g - 40), EvaluationBudget(60)), mut,
                           n_islands=3, island_size=5, seed=1)  # fmt: skip
    assert [h.genome for h in again.history] == [h.genome for h in run.history]


def test_evolve_islands_with_crossover_migration_and_refit():
    calls = []

    def refit(islands, t, streams):
        calls.append(t)
        for isl in islands:
            for m in isl.members:
                m.meta["refit"] = t

    ev = BudgetedEvaluator(lambda g: float(sum(g)), EvaluationBudget(40))
    mut = FunctionMutator(lambda g, rng, ctx: tuple(x ^ int(rng.random() < 0.2) for x in g))
    cx = FunctionCrossover(lambda a, b, rng: a[:4] + b[4:])
    run = evolve_islands([(0,) * 8], ev, mut, n_islands=2, island_size=4, crossover=cx, crossover_rate=0.5,
                         migration_rate=0.5, refit=refit, seed=0)  # fmt: skip
    assert calls == list(range(len(calls))) and len(calls) >= 19
    assert len(run.history) == 40
    assert any(len(h.parent_ids) == 2 for h in run.history)
    assert run.best.fitness >= 1


def test_evolve_islands_max_iterations_and_bad_args():
    ev = BudgetedEvaluator(lambda g: 0.0, EvaluationBudget(100))
    run = evolve_islands([1, 2], ev, FunctionMutator(lambda g, r, c: g), n_islands=2, max_iterations=3)
    assert run.stopped == "max_iterations" and len(run.history) == 2 + 2 * 3
    with pytest.raises(ValueError, match="n_islands"):
        evolve_islands([1], ev, FunctionMutator(lambda g, r, c: g), n_islands=0)
    with pytest.raises(ValueError, match="init"):
        evolve_islands([], ev, FunctionMutator(lambda g, r, c: g))
    with pytest.raises(ValueError, match="crossover"):
        evolve_islands([1], ev, FunctionMutator(lambda g, r, c: g), crossover_rate=0.5)


def test_generational_step_keeps_elites_and_respects_pc_pm():
    rng = np.random.default_rng(0)
    pop = [Individual((i,), float(i), id=i) for i in range(6)]
    ev = BudgetedEvaluator(lambda g: float(sum(g)), EvaluationBudget(100))
    nxt = generational_step(pop, ev, crossover=FunctionCrossover(lambda a, b, r: a + b),
                            mutate=FunctionMutator(lambda g, r, c: g + (100,)), pc=0.0, pm=0.0, rng=rng,
                            elitism=2)  # fmt: skip
    assert [p.id for p in nxt[:2]] == [5, 4] and len(nxt) == 6
    assert all(len(p.genome) == 1 for p in nxt)  # no crossover, no mutation: copies of parents
    nxt = generational_step(pop, ev, crossover=FunctionCrossover(lambda a, b, r: a + b),
                            mutate=FunctionMutator(lambda g, r, c: g + (100,)), pc=1.0, pm=1.0, rng=rng)  # fmt: skip
    assert all(len(p.genome) == 3 and p.genome[-1] == 100 for p in nxt[2:])
    assert ev.calls == 8


def test_a_refit_hook_on_its_own_stream_leaves_the_trajectory_unchanged():
    """C-Evolve's K = 1 property: group sampling in `refit` draws from its own stream, so an identity refit
    reproduces the individual-fitness run exactly."""

    def make():
        return BudgetedEvaluator(lambda g: -abs(g - 9), EvaluationBudget(30))

    mut = FunctionMutator(lambda g, rng, ctx: g + int(rng.integers(-1, 3)))

    def refit(islands, t, streams):
        streams["groups"].integers(0, 10, size=10)  # sampled groups, fitness left as it is

    plain = evolve_islands([0], make(), mut, island_size=4, seed=3)
    hooked = evolve_islands([0], make(), mut, island_size=4, seed=3, refit=refit)
    assert [h.genome for h in plain.history] == [h.genome for h in hooked.history]
