"""Online Exploratory Landscape Analysis (ELA) features of a search state (our feature list; the paper's exact
list is not public).

For permutations (TSP tours, CVRP giant tours) distances are *edge distances* ``1 - shared undirected edges / n``;
for real vectors (PSO positions) Euclidean distances. Objective values are minimised (tour lengths).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from iclr26.agents.autoep.tsp import check_tour
from iclr26.checks import check_array, check_int

__all__ = ["FEATURE_NAMES", "ELAState", "edge_distance", "features"]

FEATURE_NAMES = ("diversity", "fdc", "improvement", "stagnation", "fitness_cv", "duplicates")


@dataclass
class ELAState:
    """What a controller sees every K generations.

    generation : generations done; theta : the current hyperparameters; features : :func:`features` of now;
    history : the last rounds as dicts ``{"theta", "y", "z"}`` (y: best objective so far, z: features), oldest
    first, the current round last."""

    generation: int
    theta: dict[str, float]
    features: dict[str, float]
    history: list[dict[str, Any]] = field(default_factory=list)


def _adjacency(pop: np.ndarray) -> np.ndarray:
    p, n = pop.shape
    nxt = np.roll(pop, -1, axis=1)
    a = np.zeros((p, n, n), dtype=np.float64)
    rows = np.repeat(np.arange(p), n)
    a[rows, pop.ravel(), nxt.ravel()] = 1.0
    a[rows, nxt.ravel(), pop.ravel()] = 1.0
    return a.reshape(p, n * n)


def edge_distance(a: np.ndarray, b: np.ndarray) -> float:
    """``1 - shared undirected edges / n`` between two tours (0 for the same cycle, rotations/reflections too)."""
    a = check_tour("a", a)
    adj = _adjacency(np.stack([a, check_tour("b", b, a.size)]))
    return float(1.0 - (adj[0] @ adj[1]) / 2.0 / adj.shape[1] ** 0.5)


def _is_permutation_population(pop: np.ndarray) -> bool:
    if not np.issubdtype(pop.dtype, np.integer):
        return False
    n = pop.shape[1]
    return bool(np.all(np.sort(pop, axis=1) == np.arange(n)))


def features(
    population: Sequence[Any] | np.ndarray,
    fitness: Sequence[float] | np.ndarray,
    best: Any,
    history: Sequence[float] | None = None,
    *,
    window: int = 5,
) -> dict[str, float]:
    """ELA features of the current population.

    Parameters
    ----------
    population : (P, n) array (P >= 2): integer rows that are permutations of ``range(n)`` use edge distances,
        anything else Euclidean distances.
    fitness : (P,) objective values (lower is better).
    best : the best solution so far (a row like the population's).
    history : best objective value at each earlier round, oldest first, the current one last (may be empty).
    window : rounds over which ``improvement`` is measured.

    Returns
    -------
    dict with ``diversity`` (mean pairwise distance), ``fdc`` (Pearson correlation between objective values and
    distances to `best`; 0 when either is constant), ``improvement`` (relative decrease of the best value over the
    last `window` rounds), ``stagnation`` (trailing rounds without improvement), ``fitness_cv`` (std / |mean|)
    and ``duplicates`` (fraction of rows that repeat an earlier one; permutations up to rotation/reflection).
    """
    pop = np.asarray(population)
    if pop.ndim != 2 or pop.shape[0] < 2:
        raise ValueError(f"population must be a 2-d array with at least 2 rows, got shape {pop.shape}")
    f = check_array("fitness", fitness)
    if f.shape != (pop.shape[0],) or not np.all(np.isfinite(f)):
        raise ValueError(f"fitness must be {pop.shape[0]} finite values (one per row), got shape {f.shape}")
    window = check_int("window", window, low=1)
    b = np.asarray(best)
    if b.shape != (pop.shape[1],):
        raise ValueError(f"best must have shape ({pop.shape[1]},) like a population row, got {b.shape}")
    p, n = pop.shape
    if _is_permutation_population(pop):
        b = check_tour("best", b, n)  # a row like the population's: a permutation too
        adj = _adjacency(np.vstack([pop, b[None, :]]).astype(np.int64))
        shared = adj @ adj.T / 2.0
        dist = 1.0 - shared / n
        pair, to_best = dist[:p, :p], dist[:p, p]
        canon = [_canonical(row) for row in pop]
    else:
        x = pop.astype(float)
        pair = np.sqrt(((x[:, None, :] - x[None, :, :]) ** 2).sum(-1))
        to_best = np.sqrt(((x - b.astype(float)[None, :]) ** 2).sum(-1))
        canon = [tuple(np.round(row, 12)) for row in x]
    diversity = float(pair[np.triu_indices(p, 1)].mean())
    fdc = 0.0
    if f.std() > 1e-12 and to_best.std() > 1e-12:
        fdc = float(np.corrcoef(f, to_best)[0, 1])
    h = [float(v) for v in (history or [])]
    improvement = 0.0
    if len(h) >= 2:
        old = h[max(0, len(h) - 1 - window)]
        improvement = float((old - h[-1]) / abs(old)) if old != 0 else 0.0
    stagnation = 0
    for k in range(len(h) - 1, 0, -1):
        if h[k] < h[k - 1]:
            break
        stagnation += 1
    mean = abs(float(f.mean()))
    cv = float(f.std() / mean) if mean > 0 else 0.0
    duplicates = 1.0 - len(set(canon)) / p
    return {
        "diversity": diversity,
        "fdc": fdc,
        "improvement": improvement,
        "stagnation": float(stagnation),
        "fitness_cv": cv,
        "duplicates": float(duplicates),
    }


def _canonical(tour: np.ndarray) -> tuple[int, ...]:
    t = np.roll(tour, -int(np.argmin(tour)))
    r = np.roll(t[::-1], 1)
    return tuple(int(v) for v in (t if t[1] <= r[1] else r))


def as_prompt(z: Mapping[str, float]) -> str:
    """Features as ``name=value`` text for a prompt."""
    return ", ".join(f"{k}={v:.4g}" for k, v in z.items())
