"""TSP pieces for AutoEP's GA: instances, tour length, OX crossover, inversion mutation, 2-opt, greedy tours.

A tour is a 1-d ``int64`` permutation of ``range(n)``; its length closes the cycle (last city back to the first),
so it is invariant to rotations and reflections of the sequence.
"""

from __future__ import annotations

import numpy as np

from iclr26.checks import check_array, check_int

__all__ = [
    "check_coords",
    "check_tour",
    "distance_matrix",
    "greedy_tour",
    "inversion_mutation",
    "order_crossover",
    "random_instance",
    "reference_length",
    "tour_length",
    "two_opt",
]


def check_coords(coords: object) -> np.ndarray:
    """`coords` as a finite float array of shape (n, 2) with n >= 3, else ``ValueError``."""
    c = np.asarray(coords, dtype=float) if not isinstance(coords, np.ndarray) else coords.astype(float)
    if c.ndim != 2 or c.shape[1] != 2 or c.shape[0] < 3 or not np.all(np.isfinite(c)):
        raise ValueError(f"coords must be a finite array of shape (n, 2) with n >= 3, got shape {c.shape}")
    return c


def _check_dist(dist: object) -> np.ndarray:
    """`dist` as a finite square float matrix."""
    d = check_array("dist", dist, ndim=2, finite=True)
    if d.shape[0] != d.shape[1]:
        raise ValueError(f"dist must be a square (n, n) distance matrix, got shape {d.shape}")
    return d


def check_tour(name: str, tour: object, n: int | None = None) -> np.ndarray:
    """`tour` as a 1-d integer permutation of ``range(n)`` (n = its length when not given)."""
    t = check_array(name, tour, ndim=1, integer=True)
    if (n is not None and t.size != n) or not np.array_equal(np.sort(t), np.arange(t.size)):
        want = "range(n)" if n is None else f"range({n})"
        raise ValueError(f"{name} must be a permutation of {want}, got {t.tolist()}")
    return t


def random_instance(n: int, rng: np.random.Generator) -> np.ndarray:
    """`n` cities uniform in the unit square, shape (n, 2)."""
    return rng.random((check_int("n", n, low=3), 2))


def distance_matrix(coords: object) -> np.ndarray:
    """Euclidean distances between all cities, shape (n, n), zero diagonal."""
    c = check_coords(coords)
    return np.sqrt(((c[:, None, :] - c[None, :, :]) ** 2).sum(-1))


def tour_length(tour: np.ndarray, dist: np.ndarray) -> float:
    """Length of the closed tour under the distance matrix `dist`."""
    dist = _check_dist(dist)
    t = check_tour("tour", tour, dist.shape[0])
    return float(dist[t, np.roll(t, -1)].sum())


def order_crossover(a: np.ndarray, b: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Davis's order crossover (OX): copy ``a[i:j]`` in place, fill the other positions, starting after ``j``
    and wrapping, with the cities of `b` in the order they appear in `b` read from position ``j`` on."""
    a = check_tour("a", a)
    n = a.size
    b = check_tour("b", b, n)
    i, j = np.sort(rng.choice(n + 1, size=2, replace=False))
    child = np.empty(n, dtype=np.int64)
    child[i:j] = a[i:j]
    used = np.zeros(n, dtype=bool)
    used[a[i:j]] = True
    donor = np.roll(b, -j)
    fill = donor[~used[donor]]
    pos = np.roll(np.arange(n), -j)[: n - (j - i)]
    child[pos] = fill
    return child


def inversion_mutation(tour: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Reverse a random segment ``tour[i:j+1]`` (i < j) of a copy of `tour`."""
    tour = check_tour("tour", tour)
    n = tour.size
    i, j = np.sort(rng.choice(n, size=2, replace=False))
    child = tour.copy()
    child[i : j + 1] = child[i : j + 1][::-1]
    return child


def greedy_tour(dist: np.ndarray, start: int) -> np.ndarray:
    """Nearest-neighbour tour from city `start`."""
    dist = _check_dist(dist)
    n = dist.shape[0]
    check_int("start", start, low=0, high=n - 1)
    left = np.ones(n, dtype=bool)
    tour = [start]
    left[start] = False
    for _ in range(n - 1):
        d = np.where(left, dist[tour[-1]], np.inf)
        nxt = int(np.argmin(d))
        tour.append(nxt)
        left[nxt] = False
    return np.array(tour, dtype=np.int64)


def two_opt(tour: np.ndarray, dist: np.ndarray, max_sweeps: int = 1000) -> np.ndarray:
    """2-opt local search to a local optimum (best move per city, repeated until no move shortens the tour)."""
    dist = _check_dist(dist)
    t = check_tour("tour", tour, dist.shape[0]).astype(np.int64)  # a copy
    n = t.size
    for _ in range(check_int("max_sweeps", max_sweeps, low=1)):
        improved = False
        for i in range(n - 2):
            a, b = t[i], t[i + 1]
            c = t[i + 2 :]
            d = np.roll(t, -1)[i + 2 :]
            if i == 0:
                c, d = c[:-1], d[:-1]
            if c.size == 0:
                continue
            delta = dist[a, c] + dist[b, d] - dist[a, b] - dist[c, d]
            k = int(np.argmin(delta))
            if delta[k] < -1e-12:
                j = i + 2 + k
                t[i + 1 : j + 1] = t[i + 1 : j + 1][::-1]
                improved = True
        if not improved:
            break
    return t


def reference_length(dist: np.ndarray, starts: int = 10, seed: int = 0) -> float:
    """Best length of 2-opt from `starts` nearest-neighbour tours (start cities drawn with `seed`).

    A strong but not optimal reference (LKH is not used offline); gaps to it may be slightly negative."""
    dist = _check_dist(dist)
    n = dist.shape[0]
    rng = np.random.default_rng(seed)
    firsts = rng.choice(n, size=min(check_int("starts", starts, low=1), n), replace=False)
    return min(tour_length(two_opt(greedy_tour(dist, int(s)), dist), dist) for s in firsts)
