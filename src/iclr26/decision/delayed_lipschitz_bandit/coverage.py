"""The candidate grid of zooming's activation (covering) rule, with incremental covering counts.

Paper: Liu, Kang and Lee, "Lipschitz Bandits with Stochastic Delayed Feedback", ICLR 2026 (arXiv 2510.00309).
Zooming keeps every point of the arm space inside some ball B(x, r_t(x)) of an active arm x; when a ball
shrinks and leaves a point uncovered, an uncovered point is activated. We check the rule on a grid of
``n^dim`` cell centres (i + 0.5) / n. Arms are grid points, and a ball in index units is

    B(p, r) = {i : ||i - p||^2 <= q},  q = floor((r n)^2)   (Euclidean metric; ||.||^2 is an integer),

so two radii with the same q cover the same points and a radius change only costs work when q changes.
:class:`CoverGrid` keeps, per grid point, the number of active balls containing it: shrinking a ball
decrements its ring {q_new < ||i - p||^2 <= q_old} and reports the points whose count fell to zero.
"""

from __future__ import annotations

import math
from functools import reduce

import numpy as np

from iclr26.checks import check_int

__all__ = ["CoverGrid", "ball_key", "default_grid_res"]

_DEFAULT_RES = {1: 4096, 2: 128, 3: 32}


def default_grid_res(dim: int) -> int:
    """Grid points per axis: 2^12 in 1-D, 128 x 128 in 2-D (the brief), 32^3 in 3-D, 8 per axis beyond."""
    return _DEFAULT_RES.get(dim, 8)


def ball_key(radius: float, n: int) -> int:
    """q = floor((r n)^2): grid point i lies in B(p, r) iff ||i - p||^2 <= q (index units).

    Examples
    --------
    >>> ball_key(0.5, 4), ball_key(0.49, 4)
    (4, 3)
    """
    return math.floor((radius * n) ** 2)


class CoverGrid:
    """Grid candidates of the covering rule and how many active balls cover each.

    Parameters
    ----------
    dim : dimension of [0, 1]^dim.
    n : grid points per axis (cell centres (i + 0.5) / n).

    Examples
    --------
    >>> g = CoverGrid(1, 8)
    >>> g.add((4,), 1)
    >>> g.uncovered().tolist()
    [0, 1, 2, 6, 7]
    >>> g.shrink((4,), 1, 0).tolist()
    [3, 5]
    """

    def __init__(self, dim: int, n: int) -> None:
        self.dim, self.n = check_int("dim", dim, low=1), check_int("grid_res", n, low=2)
        self.shape = (self.n,) * dim
        axis = (np.arange(self.n) + 0.5) / self.n
        mesh = np.meshgrid(*([axis] * dim), indexing="ij")
        self.points = np.stack([m.ravel() for m in mesh], axis=1)  # (n^dim, dim), row-major flat order
        self.counts = np.zeros(self.shape, dtype=np.int32)

    def index(self, flat: int) -> tuple[int, ...]:
        """Multi-index of a flat grid index."""
        return tuple(int(i) for i in np.unravel_index(flat, self.shape))

    def _box(self, center: tuple[int, ...], q: int) -> tuple[tuple[slice, ...], np.ndarray, list[int]]:
        """The bounding box of B(center, q) clipped to the grid: slices, squared distances, lower corner."""
        w = math.isqrt(q)
        lows = [max(0, c - w) for c in center]
        highs = [min(self.n - 1, c + w) for c in center]
        squares = [(np.arange(lo, hi + 1) - c) ** 2 for lo, hi, c in zip(lows, highs, center)]
        dist2 = reduce(np.add.outer, squares) if self.dim > 1 else squares[0]
        return tuple(slice(lo, hi + 1) for lo, hi in zip(lows, highs)), dist2, lows

    def add(self, center: tuple[int, ...], q: int) -> None:
        """A new ball B(center, q): increment the count of every grid point inside it."""
        box, dist2, _ = self._box(center, q)
        self.counts[box][dist2 <= q] += 1

    def shrink(self, center: tuple[int, ...], q_old: int, q_new: int) -> np.ndarray:
        """B(center, q_old) -> B(center, q_new), q_new <= q_old; return flat indices that became uncovered."""
        box, dist2, lows = self._box(center, q_old)
        ring = (dist2 <= q_old) & (dist2 > q_new)
        view = self.counts[box]
        view[ring] -= 1
        local = np.nonzero(ring & (view == 0))
        if local[0].size == 0:
            return np.empty(0, dtype=np.int64)
        return np.ravel_multi_index(tuple(i + lo for i, lo in zip(local, lows)), self.shape)

    def uncovered(self) -> np.ndarray:
        """Flat indices of grid points no active ball covers (ascending)."""
        return np.flatnonzero(self.counts == 0)

    def nearest(self, candidates: np.ndarray, reference: np.ndarray) -> int:
        """The candidate flat index nearest to `reference` (index units); ties go to the lowest flat index."""
        coords = np.stack(np.unravel_index(candidates, self.shape), axis=1)
        return int(candidates[np.argmin(((coords - reference) ** 2).sum(axis=1))])
