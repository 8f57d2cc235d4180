"""A GA for the TSP on the shared evolutionary core, whose (pc, pm) a controller sets every K generations.

:class:`GATSP` keeps a population of :class:`~iclr26.lab.evolution.Individual` (fitness = minus tour length)
and :meth:`GATSP.step` runs one :func:`~iclr26.lab.evolution.generational_step` (tournament selection of 2,
OX crossover with probability pc, inversion mutation with probability pm, elitism 2). :func:`run_controlled`
is the AutoEP loop: every K generations the ELA features and the last rounds go to the controller, whose
proposal (clipped to the ranges) is used until the next call.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from iclr26.agents.autoep.controllers import GA_RANGES, Controller, check_ranges, clip_theta
from iclr26.agents.autoep.ela import ELAState, features
from iclr26.agents.autoep.tsp import (
    check_coords,
    distance_matrix,
    greedy_tour,
    inversion_mutation,
    order_crossover,
    tour_length,
    two_opt,
)
from iclr26.checks import check_choice, check_int
from iclr26.lab.evolution import (
    FunctionCrossover,
    FunctionMutator,
    Individual,
    RNGStreams,
    generational_step,
    tournament_select,
)

__all__ = ["GATSP", "ControlledRun", "run_controlled"]


class GATSP:
    """GA on one TSP instance.

    Parameters
    ----------
    coords : (n, 2) city coordinates.
    pop_size : population (>= 2). elitism : elites kept each generation. tournament : tournament size.
    init : ``"random"`` permutations, or ``"greedy"`` (nearest-neighbour tours from up to 10 start cities, the
        rest random; the released script's start).
    local_search : None, or ``"2opt"``: the initial tours and every crossover or mutation result are brought to a
        2-opt local optimum (the released "GA-2opt" scripts), so every child is 2-opt optimal (a child that is
        neither crossed nor mutated is a copy of a 2-opt optimal parent).
    seed : seeds the population and every generation's draws.
    """

    def __init__(
        self,
        coords: Any,
        pop_size: int = 60,
        *,
        elitism: int = 2,
        tournament: int = 2,
        init: str = "random",
        local_search: str | None = None,
        seed: int = 0,
    ) -> None:
        self.coords = check_coords(coords)
        self.dist = distance_matrix(self.coords)
        self.pop_size = check_int("pop_size", pop_size, low=2)
        self.elitism = check_int("elitism", elitism, low=0, high=self.pop_size)
        self.tournament = check_int("tournament", tournament, low=1)
        self.init = check_choice("init", init, ("random", "greedy"))
        self.local_search = check_choice("local_search", local_search, (None, "2opt"))
        self.streams = RNGStreams(check_int("seed", seed, low=0))
        self.generation = 0
        self.evaluations = 0
        n = self.coords.shape[0]
        rng = self.streams["init"]
        tours = []
        if self.init == "greedy":
            for s in rng.choice(n, size=min(10, n, self.pop_size), replace=False):
                tours.append(greedy_tour(self.dist, int(s)))
        while len(tours) < self.pop_size:
            tours.append(rng.permutation(n).astype(np.int64))
        self.population = [
            Individual(t, self._evaluate(t), id=i) for i, t in enumerate(self._improve(t) for t in tours)
        ]
        cx = order_crossover if self.local_search is None else self._crossover_2opt
        self.crossover = FunctionCrossover(cx)
        mut = inversion_mutation if self.local_search is None else self._mutate_2opt
        self.mutate = FunctionMutator(lambda g, r, ctx: mut(g, r))

    def _improve(self, tour: np.ndarray) -> np.ndarray:
        return two_opt(tour, self.dist) if self.local_search == "2opt" else tour

    def _crossover_2opt(self, a: np.ndarray, b: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return two_opt(order_crossover(a, b, rng), self.dist)

    def _mutate_2opt(self, tour: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return two_opt(inversion_mutation(tour, rng), self.dist)

    def _evaluate(self, tour: np.ndarray) -> float:
        self.evaluations += 1
        return -tour_length(tour, self.dist)

    @property
    def lengths(self) -> np.ndarray:
        return np.array([-p.fitness for p in self.population])

    @property
    def best(self) -> Individual:
        return max(self.population, key=lambda p: p.fitness)

    @property
    def best_length(self) -> float:
        return -self.best.fitness

    def step(self, theta: Mapping[str, float]) -> None:
        """One generation with crossover probability ``theta["pc"]`` and mutation probability ``theta["pm"]``."""
        k = self.tournament
        self.population = generational_step(
            self.population,
            self._evaluate,
            crossover=self.crossover,
            mutate=self.mutate,
            pc=theta["pc"],
            pm=theta["pm"],
            rng=self.streams["generation"],
            elitism=self.elitism,
            select=lambda f, r: tournament_select(f, k, r),
        )
        self.generation += 1


@dataclass
class ControlledRun:
    """What :func:`run_controlled` returns: best length before the first and after each generation (G + 1 values), theta used at each generation,
    the controller rounds (generation, theta proposed, features) and the final best tour."""

    best: list[float]
    theta: list[dict[str, float]]
    rounds: list[dict[str, Any]] = field(default_factory=list)
    best_tour: np.ndarray | None = None


def run_controlled(
    ga: GATSP,
    controller: Controller,
    generations: int,
    *,
    K: int = 10,
    theta0: Mapping[str, float] | None = None,
    ranges: Mapping[str, Any] = GA_RANGES,
    history_len: int = 5,
    window: int = 5,
) -> ControlledRun:
    """Run `generations` generations of `ga`, asking `controller` for theta at generation 0 and every `K` after.

    theta0 (default: the middle of each range) is what the controller sees as the current theta at the first
    call. The history shown holds the last `history_len` rounds."""
    generations = check_int("generations", generations, low=1)
    K = check_int("K", K, low=1)
    history_len = check_int("history_len", history_len, low=1)
    ranges = check_ranges(ranges)
    if not hasattr(controller, "propose"):
        raise TypeError(f"controller must have propose(state), got {type(controller).__name__}")
    theta = clip_theta(dict(theta0) if theta0 is not None else {k: (lo + hi) / 2 for k, (lo, hi) in ranges.items()},
                       ranges)  # fmt: skip
    ys: list[float] = []
    rounds: list[dict[str, Any]] = []
    best, thetas = [ga.best_length], []
    for g in range(generations):
        if g % K == 0:
            ys.append(ga.best_length)
            z = features(np.stack([p.genome for p in ga.population]), ga.lengths, ga.best.genome, ys,
                         window=window)  # fmt: skip
            hist = [*rounds[-(history_len - 1) :], {"theta": dict(theta), "y": ys[-1], "z": z}]
            state = ELAState(g, dict(theta), z, hist)
            theta = clip_theta(controller.propose(state), ranges)
            rounds.append({"generation": g, "theta": dict(theta), "y": ys[-1], "z": z})
        ga.step(theta)
        best.append(ga.best_length)
        thetas.append(dict(theta))
    return ControlledRun(best, thetas, rounds, ga.best.genome.copy())
