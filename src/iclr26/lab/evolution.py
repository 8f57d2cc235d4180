"""One evolutionary core for the prompt- and program-search papers (MASS, C-Evolve, AutoEP).

The pieces, each usable alone:

* :class:`EvaluationBudget` counts evaluation units (one candidate on one item, one child on its metric set...)
  and can never be exceeded: :meth:`EvaluationBudget.reserve` takes the units *before* the evaluator runs and
  refuses a request larger than what is left, so an evaluator that raises, returns NaN or calls back into the
  budget cannot push ``used`` past ``limit``. :meth:`EvaluationBudget.split` hands out per-stage sub-budgets
  that draw on the parent.
* :class:`BudgetedEvaluator` wraps ``evaluate(genome)`` so that every call is paid for first; non-finite or
  non-numeric scores become the worst fitness (``-inf``), errors either propagate or score ``-inf``.
* :class:`Individual`, :class:`Island`: a scored genome and a capped population (the lowest fitness leaves).
* Seeded selection: :func:`softmax_weights` / :func:`softmax_select` (C-Evolve's parent sampling, MASS's
  block activation probabilities ``softmax(I / t)``), :func:`tournament_select`, :func:`uniform_select`.
  Every random choice takes an explicit ``numpy.random.Generator``; :class:`RNGStreams` gives independent named
  streams, so adding a new random draw to one part of a loop does not shift the others.
* Operators: :class:`FunctionMutator`, :class:`FunctionCrossover` for any genome, and the prompt transforms
  :class:`PromptMutator`, :class:`PromptCrossover`: fill a template with the parent(s), ask an
  :class:`~iclr26.lab.llm.LLMBackend`, parse the reply into the child.
* Loops: :func:`evolve_islands` (steady state: every iteration each island selects a parent, breeds and
  evaluates one child, trims to its capacity, optionally migrates; a ``refit`` hook rescores members, e.g.
  C-Evolve's voting-score EMA) and :func:`generational_step` (a GA generation with elitism whose ``pc``/``pm``
  a controller may change between generations, AutoEP).

How the three papers configure it:

* MASS: :class:`EvaluationBudget` (split 40 / 30 / 30 % over its stages; one unit = one workflow run on one
  item), :class:`BudgetedEvaluator` with ``cost = len(items)``, :func:`softmax_weights` for the stage-2
  activation probabilities, :class:`PromptMutator` to propose instructions on a real backend.
* C-Evolve: ``evolve_islands(init=[seed_prompt], evaluator=BudgetedEvaluator(outputs_on_D_met, budget),
  mutate=PromptMutator(reflective template), n_islands=3, island_size=10, select=softmax (tau 0.05),
  migration_rate=0.1, refit=<voting-score EMA update>)``; the refit hook draws its group samples from its own
  stream, so with one island it leaves the individual-fitness trajectory unchanged.
* AutoEP: :func:`generational_step` once per generation with ``pc``, ``pm`` from the controller, OX crossover
  and inversion mutation as :class:`FunctionCrossover` / :class:`FunctionMutator`, elitism 2, tournament
  selection.

Example
-------
>>> import numpy as np
>>> from iclr26.lab.evolution import BudgetedEvaluator, EvaluationBudget, FunctionMutator, evolve_islands
>>> budget = EvaluationBudget(20)
>>> ev = BudgetedEvaluator(lambda g: -abs(g - 7), budget)
>>> run = evolve_islands([0], ev, FunctionMutator(lambda g, rng, ctx: g + int(rng.integers(-2, 3))),
...                      n_islands=2, island_size=4, seed=0)
>>> budget.used <= 20, run.best.fitness <= 0
(True, True)
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from iclr26.checks import check_choice, check_float, check_int, check_probability

__all__ = [
    "WORST",
    "BudgetExhausted",
    "BudgetedEvaluator",
    "EvaluationBudget",
    "EvolutionRun",
    "FunctionCrossover",
    "FunctionMutator",
    "Individual",
    "Island",
    "PromptCrossover",
    "PromptMutator",
    "RNGStreams",
    "as_fitness",
    "evolve_islands",
    "generational_step",
    "softmax_select",
    "softmax_weights",
    "tournament_select",
    "uniform_select",
]

WORST = float("-inf")


class BudgetExhausted(RuntimeError):
    """An evaluation was refused because the budget has fewer units left than it costs."""


class EvaluationBudget:
    """A counter of evaluation units that can never exceed ``limit``.

    Parameters
    ----------
    limit : int
        Units available (>= 0).
    name : str
        Used in error messages.
    parent : EvaluationBudget, optional
        A sub-budget also charges its parent; a reservation must fit both.

    Examples
    --------
    >>> b = EvaluationBudget(10)
    >>> b.reserve(4); b.used, b.remaining
    (4, 6)
    >>> stage1, stage2 = b.split([0.5, 0.5]); stage1.limit, stage2.limit
    (3, 3)
    """

    def __init__(self, limit: int, *, name: str = "budget", parent: EvaluationBudget | None = None) -> None:
        self.limit = check_int(f"{name} limit", limit, low=0)
        self.name = name
        self.parent = parent
        self.used = 0
        self.refused = 0
        self._lock = parent._lock if parent is not None else threading.RLock()

    @property
    def remaining(self) -> int:
        own = self.limit - self.used
        return own if self.parent is None else min(own, self.parent.remaining)

    def can_afford(self, cost: int = 1) -> bool:
        return check_int("cost", cost, low=0) <= self.remaining

    def reserve(self, cost: int = 1) -> None:
        """Take `cost` units now, or raise :class:`BudgetExhausted` and take nothing."""
        cost = check_int("cost", cost, low=0)
        with self._lock:
            if cost > self.remaining:
                self.refused += 1
                raise BudgetExhausted(
                    f"{self.name}: an evaluation costing {cost} units exceeds the {self.remaining} left "
                    f"(limit {self.limit}, used {self.used})"
                )
            node: EvaluationBudget | None = self
            while node is not None:
                node.used += cost
                node = node.parent

    def split(self, fractions: Sequence[float], names: Sequence[str] | None = None) -> list[EvaluationBudget]:
        """Sub-budgets of ``floor(fraction * remaining)`` units each (fractions >= 0 summing to <= 1)."""
        fr = [check_float("fractions", f, 0.0, 1.0) for f in fractions]
        if not fr or sum(fr) > 1.0 + 1e-9:
            raise ValueError(
                f"fractions must be a non-empty sequence of values in [0, 1] summing to <= 1, got {fractions!r}"
            )
        names = list(names) if names is not None else [f"{self.name}[{i}]" for i in range(len(fr))]
        if len(names) != len(fr):
            raise ValueError(f"names must have one entry per fraction ({len(fr)}), got {len(names)}")
        base = self.remaining
        return [
            EvaluationBudget(int(math.floor(f * base + 1e-9)), name=n, parent=self) for f, n in zip(fr, names)
        ]

    def __repr__(self) -> str:
        return f"EvaluationBudget({self.name!r}, used={self.used}, limit={self.limit})"


def as_fitness(value: Any) -> float:
    """`value` as a float fitness; NaN, infinities, non-numbers and None are the worst fitness (``-inf``)."""
    if isinstance(value, bool) or value is None:
        return WORST
    try:
        x = float(value)
    except (TypeError, ValueError):
        return WORST
    return x if math.isfinite(x) else WORST


class BudgetedEvaluator:
    """``evaluate(genome)`` behind an :class:`EvaluationBudget`: each call reserves its cost before running.

    Parameters
    ----------
    evaluate : callable
        ``evaluate(genome) -> result``; the result is returned as is (a score, or outputs for C-Evolve).
    budget : EvaluationBudget
    cost : int or callable
        Units per call, or ``cost(genome) -> int`` (MASS: the number of items a candidate is scored on).
    on_error : ``"raise"`` or ``"worst"``
        An exception from `evaluate` propagates (the units stay spent: the call was made) or gives ``None``.

    Attributes
    ----------
    calls : number of calls that reached `evaluate`; errors : how many raised.
    """

    def __init__(
        self,
        evaluate: Callable[[Any], Any],
        budget: EvaluationBudget,
        *,
        cost: int | Callable[[Any], int] = 1,
        on_error: str = "raise",
    ) -> None:
        if not callable(evaluate):
            raise ValueError(f"evaluate must be callable as evaluate(genome), got {evaluate!r}")
        if not isinstance(budget, EvaluationBudget):
            raise ValueError(f"budget must be an EvaluationBudget, got {type(budget).__name__}")
        if not callable(cost):
            check_int("cost", cost, low=0)
        check_choice("on_error", on_error, ("raise", "worst"))
        self.evaluate, self.budget, self.cost, self.on_error = evaluate, budget, cost, on_error
        self.calls = 0
        self.errors = 0

    def __call__(self, genome: Any) -> Any:
        cost = self.cost(genome) if callable(self.cost) else self.cost
        self.budget.reserve(check_int("cost", cost, low=0))
        self.calls += 1
        try:
            return self.evaluate(genome)
        except BudgetExhausted:
            raise
        except Exception:
            self.errors += 1
            if self.on_error == "raise":
                raise
            return None


@dataclass
class Individual:
    """A genome with its fitness, the evaluator's raw result, lineage and free-form annotations."""

    genome: Any
    fitness: float
    result: Any = None
    id: int = 0
    parent_ids: tuple[int, ...] = ()
    born: int = 0
    meta: dict[str, Any] = field(default_factory=dict)


class Island:
    """A population capped at `capacity`: :meth:`trim` drops the lowest fitness (the newest among ties)."""

    def __init__(self, capacity: int) -> None:
        self.capacity = check_int("island_size", capacity, low=1)
        self.members: list[Individual] = []

    def add(self, ind: Individual) -> None:
        self.members.append(ind)

    def trim(self) -> list[Individual]:
        dropped = []
        while len(self.members) > self.capacity:
            worst = min(
                range(len(self.members)), key=lambda i: (self.members[i].fitness, -self.members[i].id)
            )
            dropped.append(self.members.pop(worst))
        return dropped

    def fitnesses(self) -> np.ndarray:
        return np.array([m.fitness for m in self.members], dtype=float)

    def best(self) -> Individual:
        if not self.members:
            raise ValueError("the island is empty")
        return max(self.members, key=lambda m: (m.fitness, -m.id))

    def __len__(self) -> int:
        return len(self.members)


class RNGStreams:
    """Independent named generators from one seed: ``streams["select"]``, ``streams["mutate"]``, ...

    A stream's numbers depend only on (seed, name), not on which other streams were used or in what order.
    """

    def __init__(self, seed: int) -> None:
        self.seed = check_int("seed", seed, low=0)
        self._streams: dict[str, np.random.Generator] = {}

    def __getitem__(self, name: str) -> np.random.Generator:
        if name not in self._streams:
            words = [int(b) for b in name.encode()]
            self._streams[name] = np.random.default_rng(np.random.SeedSequence([self.seed, 0xE701, *words]))
        return self._streams[name]


def softmax_weights(values: Sequence[float] | np.ndarray, tau: float) -> np.ndarray:
    """``softmax(values / tau)``, stable; ``-inf`` entries get 0, and all ``-inf`` gives the uniform weights."""
    tau = check_float("tau", tau, 0.0, low_open=True)
    v = np.asarray(values, dtype=float)
    if v.ndim != 1 or v.size == 0:
        raise ValueError(f"values must be a non-empty 1-d sequence, got shape {v.shape}")
    if np.isnan(v).any() or np.isposinf(v).any():
        raise ValueError(f"values must be finite or -inf, got {v.tolist()}")
    if np.isneginf(v).all():
        return np.full(v.size, 1.0 / v.size)
    z = (v - v[np.isfinite(v)].max()) / tau
    w = np.exp(z)
    return w / w.sum()


def softmax_select(fitness: Sequence[float] | np.ndarray, tau: float, rng: np.random.Generator) -> int:
    """An index drawn with probabilities :func:`softmax_weights` (one uniform draw from `rng`)."""
    w = softmax_weights(fitness, tau)
    return int(min(np.searchsorted(np.cumsum(w), rng.random(), side="right"), w.size - 1))


def tournament_select(fitness: Sequence[float] | np.ndarray, k: int, rng: np.random.Generator) -> int:
    """The fittest of `k` indices drawn uniformly with replacement (the first drawn among ties)."""
    f = np.asarray(fitness, dtype=float)
    if f.ndim != 1 or f.size == 0:
        raise ValueError(f"fitness must be a non-empty 1-d sequence, got shape {f.shape}")
    idx = rng.integers(0, f.size, size=check_int("k", k, low=1))
    return int(idx[int(np.argmax(f[idx]))])


def uniform_select(n: int, rng: np.random.Generator) -> int:
    return int(rng.integers(0, check_int("n", n, low=1)))


class FunctionMutator:
    """``fn(genome, rng, context) -> child genome`` as a mutator (for non-LLM genomes)."""

    def __init__(self, fn: Callable[[Any, np.random.Generator, Mapping[str, Any]], Any]) -> None:
        if not callable(fn):
            raise ValueError(f"fn must be callable as fn(genome, rng, context), got {fn!r}")
        self.fn = fn

    def __call__(
        self, genome: Any, rng: np.random.Generator, context: Mapping[str, Any] | None = None
    ) -> Any:
        return self.fn(genome, rng, context or {})


class FunctionCrossover:
    """``fn(genome_a, genome_b, rng) -> child genome`` as a crossover operator."""

    def __init__(self, fn: Callable[[Any, Any, np.random.Generator], Any]) -> None:
        if not callable(fn):
            raise ValueError(f"fn must be callable as fn(a, b, rng), got {fn!r}")
        self.fn = fn

    def __call__(self, a: Any, b: Any, rng: np.random.Generator) -> Any:
        return self.fn(a, b, rng)


def _strip(text: str) -> str | None:
    text = text.strip()
    return text or None


class PromptMutator:
    """A prompt transform: ``template.format(genome=parent, **context)`` -> LLM -> ``parse(reply)`` = child.

    Parameters
    ----------
    backend : iclr26.lab.llm.LLMBackend
    template : str
        Must contain ``{genome}``; other fields come from the call's `context`.
    parse : callable
        ``parse(reply_text) -> genome or None``; None (unparsable) keeps the parent and counts a failure.
    temperature, max_tokens : passed to ``backend.chat``; each call gets a seed drawn from `rng`.
    """

    def __init__(
        self,
        backend: Any,
        template: str,
        parse: Callable[[str], Any] = _strip,
        *,
        temperature: float = 0.7,
        max_tokens: int = 512,
    ) -> None:
        if not hasattr(backend, "chat"):
            raise ValueError(f"backend must be an LLMBackend (with .chat), got {type(backend).__name__}")
        if not isinstance(template, str) or "{genome}" not in template:
            raise ValueError(f"template must be a str containing '{{genome}}', got {template!r}")
        self.backend, self.template, self.parse = backend, template, parse
        self.temperature, self.max_tokens = temperature, max_tokens
        self.failures = 0

    def _ask(self, prompt: str, rng: np.random.Generator) -> Any:
        from iclr26.lab.llm import Message

        reply = self.backend.chat(
            [Message("user", prompt)],
            temperature=self.temperature,
            max_tokens=self.max_tokens,
            seed=int(rng.integers(0, 2**31 - 1)),
        )
        return self.parse(reply.text)

    def __call__(
        self, genome: Any, rng: np.random.Generator, context: Mapping[str, Any] | None = None
    ) -> Any:
        child = self._ask(self.template.format(genome=genome, **(context or {})), rng)
        if child is None:
            self.failures += 1
            return genome
        return child


class PromptCrossover(PromptMutator):
    """A two-parent prompt transform: the template holds ``{a}`` and ``{b}``; unparsable keeps parent `a`."""

    def __init__(self, backend: Any, template: str, parse: Callable[[str], Any] = _strip, **kw: Any) -> None:
        if not isinstance(template, str) or "{a}" not in template or "{b}" not in template:
            raise ValueError(f"template must be a str containing '{{a}}' and '{{b}}', got {template!r}")
        super().__init__(backend, template.replace("{a}", "{genome}"), parse, **kw)
        self.template = template

    def __call__(self, a: Any, b: Any, rng: np.random.Generator) -> Any:  # type: ignore[override]
        child = self._ask(self.template.format(a=a, b=b), rng)
        if child is None:
            self.failures += 1
            return a
        return child


@dataclass
class EvolutionRun:
    """What :func:`evolve_islands` returns: the islands, every individual evaluated, and the best-so-far trace."""

    islands: list[Island]
    history: list[Individual]
    best_so_far: list[float]
    stopped: str

    @property
    def best(self) -> Individual:
        return max((m for isl in self.islands for m in isl.members), key=lambda m: (m.fitness, -m.id))


def evolve_islands(
    init: Sequence[Any],
    evaluator: Callable[[Any], Any],
    mutate: Callable[[Any, np.random.Generator, Mapping[str, Any]], Any],
    *,
    n_islands: int = 1,
    island_size: int = 10,
    select: Callable[[np.ndarray, np.random.Generator], int] | None = None,
    crossover: Callable[[Any, Any, np.random.Generator], Any] | None = None,
    crossover_rate: float = 0.0,
    migration_rate: float = 0.0,
    fitness: Callable[[Any], float] = as_fitness,
    refit: Callable[[list[Island], int, RNGStreams], None] | None = None,
    context: Callable[[Individual, Island], Mapping[str, Any]] | None = None,
    max_iterations: int | None = None,
    seed: int = 0,
) -> EvolutionRun:
    """Steady-state island evolution until the evaluator's budget (or `max_iterations`) runs out.

    Every island starts from the evaluated `init` genomes. Iteration t: for each island, ``select(fitness,
    rng)`` picks a parent (default: softmax with tau 0.05), with probability `crossover_rate` a second parent
    from the same island is crossed in, then ``mutate(genome, rng, context)``; the child is evaluated once,
    added and the island trimmed. Then ``refit(islands, t, streams)`` may rescore members, and with
    probability `migration_rate` per island its best member is copied into a random other island (trimmed).
    Streams: ``select``, ``mutate``, ``crossover``, ``migrate``; `refit` may use its own names.
    """
    check_int("n_islands", n_islands, low=1)
    check_int("island_size", island_size, low=1)
    check_probability("crossover_rate", crossover_rate)
    check_probability("migration_rate", migration_rate)
    if crossover_rate > 0 and crossover is None:
        raise ValueError("crossover_rate > 0 needs a crossover operator")
    if len(init) == 0:
        raise ValueError("init must hold at least one genome")
    streams = RNGStreams(seed)
    pick = select or (lambda f, rng: softmax_select(f, 0.05, rng))
    islands = [Island(island_size) for _ in range(n_islands)]
    history: list[Individual] = []
    best: list[float] = []

    def score(genome: Any, parents: tuple[int, ...]) -> Individual:
        result = evaluator(genome)
        ind = Individual(
            genome, fitness(result), result, id=len(history), parent_ids=parents, born=len(history)
        )
        history.append(ind)
        best.append(max(best[-1], ind.fitness) if best else ind.fitness)
        return ind

    try:
        seeds = [score(g, ()) for g in init]
        for isl in islands:
            for s in seeds:
                isl.add(Individual(s.genome, s.fitness, s.result, s.id, (), s.born, dict(s.meta)))
            isl.trim()
        t = 0
        while max_iterations is None or t < max_iterations:
            for isl in islands:
                parent = isl.members[pick(isl.fitnesses(), streams["select"])]
                genome = parent.genome
                parents: tuple[int, ...] = (parent.id,)
                if crossover is not None and streams["crossover"].random() < crossover_rate and len(isl) > 1:
                    other = isl.members[pick(isl.fitnesses(), streams["select"])]
                    genome = crossover(genome, other.genome, streams["crossover"])
                    parents = (parent.id, other.id)
                ctx = context(parent, isl) if context is not None else {}
                child = score(mutate(genome, streams["mutate"], ctx), parents)
                isl.add(child)
                isl.trim()
            if refit is not None:
                refit(islands, t, streams)
            if n_islands > 1 and migration_rate > 0:
                for k, isl in enumerate(islands):
                    if streams["migrate"].random() < migration_rate:
                        dest = (k + 1 + int(streams["migrate"].integers(0, n_islands - 1))) % n_islands
                        islands[dest].add(isl.best())
                        islands[dest].trim()
            t += 1
        stopped = "max_iterations"
    except BudgetExhausted:
        stopped = "budget"
    return EvolutionRun(islands, history, best, stopped)


def generational_step(
    population: Sequence[Individual],
    evaluator: Callable[[Any], Any],
    *,
    crossover: Callable[[Any, Any, np.random.Generator], Any],
    mutate: Callable[[Any, np.random.Generator, Mapping[str, Any]], Any],
    pc: float,
    pm: float,
    rng: np.random.Generator,
    elitism: int = 2,
    select: Callable[[np.ndarray, np.random.Generator], int] | None = None,
    fitness: Callable[[Any], float] = as_fitness,
) -> list[Individual]:
    """One GA generation: keep the `elitism` fittest, fill the rest with children (crossover with probability
    `pc`, mutation with probability `pm`), each child evaluated once. Default selection: tournament of 2."""
    pc, pm = check_probability("pc", pc), check_probability("pm", pm)
    n = len(population)
    check_int("population size", n, low=2)
    check_int("elitism", elitism, low=0, high=n)
    pick = select or (lambda f, r: tournament_select(f, 2, r))
    f = np.array([p.fitness for p in population], dtype=float)
    order = sorted(range(n), key=lambda i: (-f[i], i))
    nxt = [population[i] for i in order[:elitism]]
    next_id = max(p.id for p in population) + 1
    while len(nxt) < n:
        a = population[pick(f, rng)]
        genome, parents = a.genome, (a.id,)
        if rng.random() < pc:
            b = population[pick(f, rng)]
            genome, parents = crossover(a.genome, b.genome, rng), (a.id, b.id)
        if rng.random() < pm:
            genome = mutate(genome, rng, {})
        result = evaluator(genome)
        nxt.append(Individual(genome, fitness(result), result, id=next_id, parent_ids=parents))
        next_id += 1
    return nxt
