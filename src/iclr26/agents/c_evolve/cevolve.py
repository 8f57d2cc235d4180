"""C-Evolve's loop on the shared island engine: warm-up on individual scores, then voting-score EMA fitness.

The engine is :func:`iclr26.lab.evolution.evolve_islands` (softmax parent selection, one child per island per
iteration, island cap, migration). C-Evolve adds three things through its hooks:

* ``fitness``: in the warm-up phase a child's fitness is its individual score ``s({p})`` on D_met; in the voting
  phase a new child starts with its parent's ``s_EMA`` (the parent is captured by the ``context`` hook, which the
  engine calls just before it breeds and evaluates that child);
* ``refit`` (after every iteration): at the end of the warm-up every member's ``s_EMA`` is set to its individual
  score; in every voting iteration ``groups_per_iter`` groups (one member drawn uniformly from every island) are
  scored by the consensus of their cached outputs, ``V(p)`` = mean score of this iteration's groups containing
  ``p`` (Eq. 3) and ``s_EMA(p) <- alpha s_EMA(p) + (1 - alpha) V(p)`` (Eq. 4); members in no group keep theirs;
* the result: each island's top-fitness member forms the final group (distinct individuals: a migrated copy
  is not counted twice, see :func:`distinct_island_best`).

Group sampling and vote tie-breaking draw from their own streams (``"groups"``, ``"votes"``), so with one island
the selection / mutation / migration draws are those of individual-fitness evolution.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from iclr26.checks import check_choice, check_float, check_int, check_probability
from iclr26.lab.evolution import (
    BudgetedEvaluator,
    EvaluationBudget,
    FunctionMutator,
    Island,
    evolve_islands,
    softmax_select,
)

__all__ = ["CEvolve", "CEvolveResult", "FunctionMutator", "Individual", "Island", "distinct_island_best",
           "ema_update", "majority_vote", "voting_scores"]  # fmt: skip


@dataclass
class Individual:
    """A genome, its cached outputs on D_met (``{item id: answer}``), its individual score and its EMA score.

    ``ema`` is None until the voting phase starts; ``id`` is the evaluation index (0 = the seed)."""

    genome: Any
    outputs: dict[Hashable, Any]
    score: float
    ema: float | None = None
    id: int = 0
    parent_id: int | None = None
    islands: tuple[int, ...] = ()

    @property
    def fitness(self) -> float:
        return self.score if self.ema is None else self.ema


def majority_vote(
    answers: Sequence[Any],
    rng: np.random.Generator | None = None,
    *,
    scores: Sequence[float] | None = None,
) -> Any:
    """The most frequent answer (exact match). Ties: the tied answer of the highest-`scores` member when
    `scores` is given (the paper's "highest individual score" option), else a uniform draw from `rng` (the
    paper's rule), else the tied answer that appears first.

    >>> majority_vote(["a", "b", "a"])
    'a'
    """
    if len(answers) == 0:
        raise ValueError("answers must hold at least one answer, got an empty sequence")
    counts: dict[Any, int] = {}
    for a in answers:
        counts[a] = counts.get(a, 0) + 1
    top = max(counts.values())
    tied = [a for a in counts if counts[a] == top]
    if len(tied) == 1:
        return tied[0]
    if scores is not None:
        if len(scores) != len(answers):
            raise ValueError(f"scores must have one entry per answer ({len(answers)}), got {len(scores)}")
        best = max((s, -i) for i, (a, s) in enumerate(zip(answers, scores)) if a in tied)
        return answers[-best[1]]
    if rng is not None:
        return tied[int(rng.integers(0, len(tied)))]
    return tied[0]


def ema_update(ema: float, v: float, alpha: float) -> float:
    """Eq. 4: ``alpha * ema + (1 - alpha) * v``, exact when ``v == ema`` (so alpha 1 freezes, 0 gives v)."""
    alpha = check_probability("ema_alpha", alpha)
    if v == ema:
        return ema
    return alpha * ema + (1.0 - alpha) * v


def voting_scores(groups: Sequence[Sequence[int]], group_scores: Sequence[float]) -> dict[int, float]:
    """Eq. 3: for every member id in any group, the mean score of the groups that contain it.

    A member that sits twice in one group (a migrated copy) counts that group once.

    >>> voting_scores([(0, 1), (0, 2)], [1.0, 0.5])
    {0: 0.75, 1: 1.0, 2: 0.5}
    """
    if len(groups) != len(group_scores):
        raise ValueError(
            f"group_scores must have one entry per group ({len(groups)}), got {len(group_scores)}"
        )
    sums: dict[int, float] = {}
    counts: dict[int, int] = {}
    for g, s in zip(groups, group_scores):
        for pid in dict.fromkeys(g):
            sums[pid] = sums.get(pid, 0.0) + float(s)
            counts[pid] = counts.get(pid, 0) + 1
    return {pid: sums[pid] / counts[pid] for pid in sums}


def distinct_island_best(
    islands: Sequence[Sequence[Individual]], key: Callable[[Individual], float]
) -> list[Individual]:
    """One member per island, highest `key` first, skipping members an earlier island already gave.

    Migration copies an island's best into another island, so the plain "best of each island" can hold the
    same individual twice (a group of 3 that votes like 2); an island that holds only already-chosen members
    gives its best again.

    >>> a, b, c = (Individual(n, {}, s, id=i) for i, (n, s) in enumerate([("a", .9), ("b", .8), ("c", .5)]))
    >>> [m.genome for m in distinct_island_best([[a, c], [a, b]], key=lambda m: m.score)]
    ['a', 'b']
    """
    chosen: list[Individual] = []
    for members in islands:
        if len(members) == 0:
            raise ValueError("every island must hold at least one member")
        order = sorted(members, key=lambda m: (-key(m), m.id))
        taken = {m.id for m in chosen}
        chosen.append(next((m for m in order if m.id not in taken), order[0]))
    return chosen


@dataclass
class CEvolveResult:
    """What :meth:`CEvolve.run` returns.

    best_group : each island's top-fitness member (top ``s_EMA`` after a voting phase), island order, distinct
        individuals (:func:`distinct_island_best`).
    history : one dict per iteration: ``iteration``, ``evaluations`` (calls so far), ``phase``,
        ``group_ids`` (the current best-of-each-island group), ``group_score`` (its consensus on D_met), and
        ``sampled_groups`` / ``sampled_scores`` (the voting iteration's n_c groups as id lists and their scores).
    island_traces : ``[island][iteration]`` best fitness in that island after the iteration.
    individuals : every evaluated individual by id; islands : the final member ids per island.
    evaluations : number of ``evaluate`` calls (the seed included).
    """

    best_group: list[Individual]
    history: list[dict[str, Any]]
    island_traces: list[list[float]]
    individuals: dict[int, Individual]
    islands: list[list[int]]
    evaluations: int
    group_score: float
    extra: dict[str, Any] = field(default_factory=dict)

    def best_single(self) -> Individual:
        """The member with the highest individual score among the final islands (baseline (a))."""
        return max(self._members(), key=lambda m: (m.score, -m.id))

    def best_of_each_island(self) -> list[Individual]:
        """Each island's highest individual score, distinct members (baseline (b): post-hoc group)."""
        return distinct_island_best(
            [[self.individuals[i] for i in ids] for ids in self.islands], lambda m: m.score
        )

    def top_k(self, k: int | None = None) -> list[Individual]:
        """The `k` (default: number of islands) distinct members with the highest individual scores (baseline (c))."""
        k = len(self.islands) if k is None else check_int("k", k, low=1)
        return sorted(self._members(), key=lambda m: (-m.score, m.id))[:k]

    def _members(self) -> list[Individual]:
        ids = dict.fromkeys(i for isl in self.islands for i in isl)
        return [self.individuals[i] for i in ids]


class CEvolve:
    """Consensus-based evolution of a group of genomes (Li et al., ICLR 2026, arXiv 2509.23331).

    Parameters
    ----------
    evaluate : callable
        ``evaluate(genome) -> {item id: answer}`` on the metric set D_met; called once per genome, outputs are
        cached, voting never calls it again. Every call must return the ids of the first (seed) call.
    mutate : callable
        ``mutate(genome, rng, context) -> child genome`` (:class:`FunctionMutator`, :class:`LLMReflectiveMutator`).
        ``context`` holds ``parent`` (an :class:`Individual`), ``phase`` and, in the voting phase, ``group`` (the
        last sampled group containing the parent, as Individuals) and ``consensus`` (that group's vote outputs).
    metric : callable
        ``metric(outputs: {id: answer}) -> float``, the mean score of a set of outputs on D_met (higher better).
    n_islands : K, the group size (paper 3). island_size : P (paper 10).
    groups_per_iter : n_c groups sampled per voting iteration (paper 10).
    ema_alpha : alpha of Eq. 4 (paper 0.8). warmup_frac : T_w / T (paper's ablation schedule 50 + 50: 0.5).
    migration_rate : probability per island per iteration of copying its best into another island (0.1).
    tau : softmax temperature of parent selection (not stated in the paper; 0.05 is our choice).
    aggregate : ``aggregate(answers, rng) -> answer``; default :func:`majority_vote` with random ties.
    child_ema : ``"parent"`` (the paper: a voting-phase child starts with its parent's s_EMA) or ``"own"``
        (its individual score; with one island this makes C-Evolve coincide with individual-fitness evolution).
    seed : int.
    """

    def __init__(
        self,
        evaluate: Callable[[Any], Mapping[Hashable, Any]],
        mutate: Callable[[Any, np.random.Generator, Mapping[str, Any]], Any],
        metric: Callable[[Mapping[Hashable, Any]], float],
        n_islands: int = 3,
        island_size: int = 10,
        groups_per_iter: int = 10,
        ema_alpha: float = 0.8,
        warmup_frac: float = 0.5,
        migration_rate: float = 0.1,
        tau: float = 0.05,
        seed: int = 0,
        *,
        aggregate: Callable[[Sequence[Any], np.random.Generator], Any] | None = None,
        child_ema: str = "parent",
    ) -> None:
        for name, fn in (("evaluate", evaluate), ("mutate", mutate), ("metric", metric)):
            if not callable(fn):
                raise ValueError(f"{name} must be callable, got {fn!r}")
        self.evaluate, self.mutate, self.metric = evaluate, mutate, metric
        self.n_islands = check_int("n_islands", n_islands, low=1)
        self.island_size = check_int("island_size", island_size, low=1)
        self.groups_per_iter = check_int("groups_per_iter", groups_per_iter, low=1)
        self.ema_alpha = check_probability("ema_alpha", ema_alpha)
        self.warmup_frac = check_probability("warmup_frac", warmup_frac)
        self.migration_rate = check_probability("migration_rate", migration_rate)
        self.tau = check_float("tau", tau, 0.0, low_open=True)
        self.seed = check_int("seed", seed, low=0)
        if aggregate is not None and not callable(aggregate):
            raise ValueError(f"aggregate must be callable as aggregate(answers, rng), got {aggregate!r}")
        self.aggregate = aggregate or (lambda answers, rng: majority_vote(answers, rng))
        self.child_ema = check_choice("child_ema", child_ema, ("parent", "own"))

    def consensus(self, group: Sequence[Individual], rng: np.random.Generator) -> dict[Hashable, Any]:
        """The group's aggregated output per item (from cached outputs)."""
        if len(group) == 0:
            raise ValueError("group must hold at least one individual")
        ids = group[0].outputs.keys()
        return {i: self.aggregate([m.outputs[i] for m in group], rng) for i in ids}

    def group_score(self, group: Sequence[Individual], rng: np.random.Generator) -> float:
        """``s(g)``: the metric of the group's consensus on D_met."""
        return float(self.metric(self.consensus(group, rng)))

    def run(self, budget: int, init: Any = None) -> CEvolveResult:
        """Evolve with `budget` child evaluations (``budget // n_islands`` iterations; the seed costs one more).

        `init` is the seed genome every island starts from (required)."""
        budget = check_int("budget", budget, low=self.n_islands)
        if init is None:
            raise ValueError("init must be the seed genome (a prompt or any object), got None")
        K = self.n_islands
        T = budget // K
        T_w = int(round(self.warmup_frac * T))
        ids_ref: list[Hashable] = []
        inds: dict[int, Individual] = {}
        state: dict[str, Any] = {"parent": None, "voting": T_w == 0, "last_group": {}}
        n_calls = [0]

        def checked(genome: Any) -> dict[Hashable, Any]:
            out = self.evaluate(genome)
            n_calls[0] += 1
            if not isinstance(out, Mapping):
                raise ValueError(f"evaluate must return a dict {{item id: answer}}, got {type(out).__name__}")
            out = dict(out)
            if not ids_ref:
                if not out:
                    raise ValueError("outputs of the seed genome are empty: D_met needs at least one item")
                ids_ref.extend(out)
            missing = [i for i in ids_ref if i not in out]
            if missing:
                raise ValueError(f"outputs missing ids {missing[:5]} (of {len(ids_ref)} D_met items)")
            return {i: out[i] for i in ids_ref}

        evaluator = BudgetedEvaluator(checked, EvaluationBudget(budget + 1, name="C-Evolve budget"))

        def fitness(outputs: dict[Hashable, Any]) -> float:
            s = float(self.metric(outputs))
            parent = state["parent"]
            new = Individual(None, outputs, s, id=len(inds), parent_id=None if parent is None else parent.id)
            if state["voting"]:
                new.ema = s if (parent is None or self.child_ema == "own") else inds[parent.id].fitness
            inds[new.id] = new
            state["new"] = new
            return new.fitness

        def context(parent: Any, island: Island) -> dict[str, Any]:
            me = inds[parent.id]
            state["parent"] = me
            ctx: dict[str, Any] = {"parent": me, "phase": "voting" if state["voting"] else "warmup"}
            if me.id in state["last_group"]:
                group, cons = state["last_group"][me.id]
                ctx["group"], ctx["consensus"] = group, cons
            return ctx

        history: list[dict[str, Any]] = []
        traces: list[list[float]] = [[] for _ in range(K)]
        current_group: dict[str, Any] = {}

        def refit(islands: list[Island], t: int, streams: Any) -> None:
            groups: list[list[int]] = []
            scores: list[float] = []
            for isl in islands:  # attach genomes (the engine holds them) to our records
                for m in isl.members:
                    if inds[m.id].genome is None:
                        inds[m.id].genome = m.genome
            if state["voting"]:
                rng_g, rng_v = streams["groups"], streams["votes"]
                groups = [[isl.members[int(rng_g.integers(0, len(isl)))].id for isl in islands]
                          for _ in range(self.groups_per_iter)]  # fmt: skip
                last = {}
                for g in groups:
                    members = [inds[i] for i in g]
                    cons = self.consensus(members, rng_v)
                    scores.append(float(self.metric(cons)))
                    for i in g:
                        last[i] = (members, cons)
                state["last_group"] = last
                for pid, v in voting_scores(groups, scores).items():
                    ind = inds[pid]
                    ind.ema = ema_update(ind.score if ind.ema is None else ind.ema, v, self.ema_alpha)
            elif t + 1 >= T_w:  # the warm-up ends: s_EMA := individual score
                for isl in islands:
                    for m in isl.members:
                        inds[m.id].ema = inds[m.id].score
                state["voting"] = True
            for isl in islands:
                for m in isl.members:
                    m.fitness = inds[m.id].fitness
            best = distinct_island_best(
                [[inds[m.id] for m in isl.members] for isl in islands], lambda m: m.fitness
            )
            gs = self.group_score(best, streams["report"])
            history.append({"iteration": t + 1, "evaluations": n_calls[0],
                            "phase": "voting" if t >= T_w else "warmup",
                            "group_ids": [b.id for b in best], "group_score": gs,
                            "sampled_groups": groups, "sampled_scores": scores})  # fmt: skip
            for k, isl in enumerate(islands):
                traces[k].append(float(isl.fitnesses().max()))
            current_group["ids"] = [b.id for b in best]

        run = evolve_islands(
            [init],
            evaluator,
            self.mutate,
            n_islands=K,
            island_size=self.island_size,
            select=lambda f, rng: softmax_select(f, self.tau, rng),
            migration_rate=self.migration_rate,
            fitness=fitness,
            refit=refit,
            context=context,
            max_iterations=T,
            seed=self.seed,
        )
        for isl in run.islands:
            for m in isl.members:
                if inds[m.id].genome is None:
                    inds[m.id].genome = m.genome
        for h in run.history:
            if inds[h.id].genome is None:
                inds[h.id].genome = h.genome
        final = distinct_island_best(
            [[inds[m.id] for m in isl.members] for isl in run.islands], lambda m: m.fitness
        )
        members = [[m.id for m in isl.members] for isl in run.islands]
        for k, ids in enumerate(members):
            for i in ids:
                inds[i].islands = (*inds[i].islands, k)
        score = self.group_score(final, np.random.default_rng(np.random.SeedSequence([self.seed, 0xC0E])))
        return CEvolveResult(final, history, traces, inds, members, evaluator.calls, score,
                             {"iterations": T, "warmup_iterations": T_w, "stopped": run.stopped})  # fmt: skip
