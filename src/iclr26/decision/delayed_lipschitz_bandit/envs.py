"""Lipschitz bandit environments on [0, 1]^d for "Lipschitz Bandits with Stochastic Delayed Feedback".

Paper: Liu, Kang and Lee, ICLR 2026 (arXiv 2510.00309, OpenReview dfoN64vP4Q). The setting: an unknown mean
reward mu: [0, 1]^d -> [0, 1] that is 1-Lipschitz for the Euclidean metric D(x, y) = ||x - y||_2, and noisy
rewards y_t = mu(x_t) + eps_t with eps_t ~ N(0, noise_sd^2). Regret R(T) = sum_t (mu* - mu(x_t)).

The paper's test functions were not available, so the reproduction fixes three 1-Lipschitz ones (``trig1d``,
``tent1d``, ``bimodal2d``; see :data:`REWARD_FUNCTIONS`).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy.optimize import minimize

from iclr26.checks import check_array, check_float, check_int

__all__ = ["REWARD_FUNCTIONS", "LipschitzEnv", "bimodal2d", "make_env", "tent1d", "trig1d"]

MeanFn = Callable[[np.ndarray], np.ndarray]

_LIPSCHITZ_TOL = 1e-9
_CHECK_POINTS = {1: 4001, 2: 201}  # grid points per axis of the Lipschitz / range check
_STAR_POINTS = {1: 2**16 + 1, 2: 1025}  # grid points per axis of the dense grid for mu*


def _points(x: object, dim: int) -> np.ndarray:
    """`x` as finite (n, dim) arm coordinates."""
    x = check_array("x", x, ndim=2, finite=True)
    if x.shape[1] != dim:
        raise ValueError(f"x must have shape (n, {dim}), got {x.shape}")
    return x


def trig1d(x: np.ndarray) -> np.ndarray:
    """mu(x) = 0.5 + 0.12 sin(5x) + 0.03 cos(13x) on [0, 1] (|mu'| <= 0.6 + 0.39 < 1)."""
    x = _points(x, 1)
    return 0.5 + 0.12 * np.sin(5.0 * x[:, 0]) + 0.03 * np.cos(13.0 * x[:, 0])


def tent1d(x: np.ndarray) -> np.ndarray:
    """mu(x) = 0.9 - |x - 0.37| on [0, 1] (slope exactly 1)."""
    x = _points(x, 1)
    return 0.9 - np.abs(x[:, 0] - 0.37)


def bimodal2d(x: np.ndarray) -> np.ndarray:
    """mu(x) = max(0.9 - ||x - (0.25, 0.3)||, 0.8 - ||x - (0.75, 0.7)||, 0) on [0, 1]^2 (Euclidean cones)."""
    x = _points(x, 2)
    a = 0.9 - np.hypot(x[:, 0] - 0.25, x[:, 1] - 0.3)
    b = 0.8 - np.hypot(x[:, 0] - 0.75, x[:, 1] - 0.7)
    return np.maximum(np.maximum(a, b), 0.0)


REWARD_FUNCTIONS: dict[str, tuple[MeanFn, int, float]] = {
    "trig1d": (trig1d, 1, float("nan")),  # mu* from the dense grid
    "tent1d": (tent1d, 1, 0.9),
    "bimodal2d": (bimodal2d, 2, 0.9),
}
"""name -> (mu, dim, analytic mu* or NaN when it is taken from a dense grid)."""


def _axis_grid(points: int, dim: int) -> np.ndarray:
    axis = np.linspace(0.0, 1.0, points)
    mesh = np.meshgrid(*([axis] * dim), indexing="ij")
    return np.stack([m.ravel() for m in mesh], axis=1)


class LipschitzEnv:
    """A stochastic Lipschitz bandit on [0, 1]^dim: rewards mu(x) + N(0, noise_sd^2).

    Parameters
    ----------
    mu : vectorised mean reward, ``mu(points) -> values`` for points of shape (n, dim); it must map into
        [0, 1] and be 1-Lipschitz for the Euclidean metric (both checked on a grid at construction).
    dim : dimension of the arm space (1 or 2 are checked on a grid; higher dims are accepted unchecked).
    noise_sd : standard deviation of the Gaussian reward noise.
    seed : seed of the noise stream; :meth:`noise` returns the same eps_1..eps_T for every call, so every
        algorithm run on the same env sees the same noise at each round (common random numbers).
    mu_star : the maximum of mu if known analytically; otherwise the maximum over a dense grid.

    Examples
    --------
    >>> env = LipschitzEnv(tent1d, dim=1, noise_sd=0.1, seed=0, mu_star=0.9)
    >>> round(float(env.mean(np.array([[0.37], [0.87]]))[1]), 6), env.mu_star
    (0.4, 0.9)
    """

    def __init__(
        self,
        mu: MeanFn,
        dim: int,
        noise_sd: float = 0.1,
        seed: int = 0,
        mu_star: float | None = None,
    ) -> None:
        self.dim = check_int("dim", dim, low=1)
        if not callable(mu):
            raise TypeError(f"mu must be a callable mapping (n, dim) points to n values, got {mu!r}")
        self.noise_sd = check_float("noise_sd", noise_sd, low=0.0)
        self.seed = check_int("seed", seed, low=0)
        if mu_star is not None and not (
            isinstance(mu_star, float) and math.isnan(mu_star)
        ):  # NaN: from a grid
            check_float("mu_star (None, NaN or the maximum of mu)", mu_star, 0.0, 1.0)
        self.mu = mu
        if self.dim in _CHECK_POINTS:
            self._check_mean(_axis_grid(_CHECK_POINTS[self.dim], self.dim))
        if mu_star is None or not np.isfinite(mu_star):
            mu_star = self._dense_max()
        self.mu_star = float(mu_star)

    def _dense_max(self) -> float:
        """max mu over a dense grid, refined by a bounded local search around the best grid point."""
        points = _STAR_POINTS.get(self.dim, 9)
        grid = _axis_grid(points, self.dim)
        values = self.mean(grid)
        best = int(np.argmax(values))
        step = 1.0 / (points - 1)
        bounds = [(max(0.0, c - step), min(1.0, c + step)) for c in grid[best]]
        local = minimize(lambda p: -self.mean(p[None, :])[0], grid[best], bounds=bounds, method="L-BFGS-B")
        return float(max(values[best], -local.fun))

    def _check_mean(self, grid: np.ndarray) -> None:
        values = self.mean(grid)
        if not np.all(np.isfinite(values)):
            raise ValueError(
                f"mu must map [0, 1]^{self.dim} into [0, 1]; on a grid check it returns NaN or inf"
            )
        if np.any(values < 0.0) or np.any(values > 1.0):
            raise ValueError(
                f"mu must map [0, 1]^{self.dim} into [0, 1]; on a grid check it takes values in "
                f"[{values.min():.4g}, {values.max():.4g}]"
            )
        n = _CHECK_POINTS[self.dim]
        cube = values.reshape((n,) * self.dim)
        step = 1.0 / (n - 1)
        # |mu(a) - mu(b)| <= ||a - b|| on axis and (in 2-D) diagonal neighbours of the grid
        slopes = [np.abs(np.diff(cube, axis=a)).max() / step for a in range(self.dim)]
        if self.dim == 2:
            slopes.append(np.abs(cube[1:, 1:] - cube[:-1, :-1]).max() / (step * np.sqrt(2.0)))
            slopes.append(np.abs(cube[1:, :-1] - cube[:-1, 1:]).max() / (step * np.sqrt(2.0)))
        steepest = float(max(slopes))
        if steepest > 1.0 + _LIPSCHITZ_TOL:
            raise ValueError(
                f"mu must be 1-Lipschitz (Euclidean metric); a grid check finds a slope of {steepest:.4g}"
            )

    def mean(self, points: np.ndarray) -> np.ndarray:
        """mu at `points` of shape (n, dim), checked for shape."""
        points = np.asarray(points, dtype=float)
        if points.ndim != 2 or points.shape[1] != self.dim:
            raise ValueError(f"points must have shape (n, dim={self.dim}), got {points.shape}")
        if not np.all((points >= 0.0) & (points <= 1.0)):  # False for NaN too
            raise ValueError(f"points must lie in the arm space [0, 1]^{self.dim} (no NaN)")
        values = np.asarray(self.mu(points), dtype=float)
        if values.shape != (points.shape[0],):
            raise ValueError(
                f"mu must return shape ({points.shape[0]},) for {points.shape[0]} points, got {values.shape}"
            )
        return values

    def noise(self, T: int) -> np.ndarray:
        """eps_1..eps_T (index t - 1), the same for every call: N(0, noise_sd^2) from `seed`."""
        return self.noise_sd * np.random.default_rng(self.seed).standard_normal(check_int("T", T, low=0))

    def __repr__(self) -> str:
        name = getattr(self.mu, "__name__", "mu")
        return f"LipschitzEnv({name}, dim={self.dim}, noise_sd={self.noise_sd}, seed={self.seed})"


def make_env(name: str, noise_sd: float = 0.1, seed: int = 0) -> LipschitzEnv:
    """The reproduction's environment `name` (a key of :data:`REWARD_FUNCTIONS`).

    Examples
    --------
    >>> make_env("bimodal2d").mu_star
    0.9
    """
    if name not in REWARD_FUNCTIONS:
        raise ValueError(f"name must be one of {sorted(REWARD_FUNCTIONS)}, got {name!r}")
    mu, dim, star = REWARD_FUNCTIONS[name]
    return LipschitzEnv(mu, dim, noise_sd=noise_sd, seed=seed, mu_star=star)
