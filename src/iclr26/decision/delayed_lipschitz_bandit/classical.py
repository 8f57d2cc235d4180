"""Classical zooming (Kleinberg, Slivkins and Upfal 2008): the delay-free reference, written plainly.

Baseline of "Lipschitz Bandits with Stochastic Delayed Feedback" (Liu, Kang and Lee, ICLR 2026, arXiv
2510.00309), meant to be fed undelayed rewards (run it with ``NoDelay``; under a delay it incorporates each
reward on arrival). Radii count observations, r(x) = c sqrt((4 log T + 2 log(2/delta)) / (1 + v(x))); the
index is mu_hat(x) + 2 r(x); after every update the whole candidate grid is checked against every ball by
brute force, and uncovered points are activated nearest the arm of highest index, as in ``DelayedZooming``.
It is O(grid x arms) per update: a readable oracle for tests and small runs, not for long horizons.
"""

from __future__ import annotations

import numpy as np

from iclr26.checks import check_float, check_int
from iclr26.decision.delayed_lipschitz_bandit.confidence import check_problem, zooming_radius
from iclr26.decision.delayed_lipschitz_bandit.coverage import ball_key, default_grid_res

__all__ = ["Zooming"]


class Zooming:
    """Classical zooming on the grid of ``DelayedZooming``, brute-force covering check (slow reference).

    Parameters
    ----------
    dim, horizon, delta, grid_res, conf_scale : as for ``DelayedZooming``.

    Examples
    --------
    >>> algo = Zooming(dim=1, horizon=50, conf_scale=0.1, grid_res=32)
    >>> x, arm = algo.select(1)
    >>> algo.receive(1, arm, 1, 0.5)
    >>> algo.n_active
    3
    """

    def __init__(
        self,
        dim: int,
        horizon: int,
        delta: float | None = None,
        grid_res: int | None = None,
        conf_scale: float = 1.0,
    ) -> None:
        self.delta = check_problem(dim, horizon, delta, conf_scale)
        self.dim, self.horizon, self.conf_scale = int(dim), int(horizon), float(conf_scale)
        self.n = default_grid_res(self.dim) if grid_res is None else check_int("grid_res", grid_res, low=2)
        axes = np.meshgrid(*([np.arange(self.n)] * self.dim), indexing="ij")
        self.cells = np.stack([a.ravel() for a in axes], axis=1)  # multi-indices, row-major
        self.arm_cell: list[int] = []
        self.v: list[int] = []
        self.sums: list[float] = []
        self.incorporated = 0
        self._cover((self.n - 1) / 2.0 * np.ones(self.dim))

    @property
    def n_active(self) -> int:
        return len(self.arm_cell)

    def radius(self, k: int) -> float:
        return zooming_radius(self.v[k], self.horizon, self.delta, self.conf_scale)

    def index(self, k: int) -> float:
        mean = self.sums[k] / self.v[k] if self.v[k] else 0.0
        return mean + 2.0 * self.radius(k)  # mu_hat(x) + 2 r(x)

    def best(self) -> int:
        indices = [self.index(k) for k in range(self.n_active)]
        return indices.index(max(indices))  # first arm on ties

    def uncovered(self) -> np.ndarray:
        """Grid cells in no ball B(x, r(x)) of an active arm, by brute force over all cells and arms."""
        if not self.arm_cell:
            return np.arange(len(self.cells))
        centres = self.cells[self.arm_cell]  # (arms, dim)
        keys = np.array([ball_key(self.radius(k), self.n) for k in range(self.n_active)])
        dist2 = ((self.cells[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)  # (cells, arms)
        return np.flatnonzero(~np.any(dist2 <= keys[None, :], axis=1))

    def _cover(self, reference: np.ndarray | None = None) -> None:
        while (free := self.uncovered()).size:
            ref = reference if not self.arm_cell else self.cells[self.arm_cell[self.best()]]
            dist2 = ((self.cells[free] - ref) ** 2).sum(axis=1)
            self.arm_cell.append(int(free[np.argmin(dist2)]))  # nearest the best arm; lowest index on ties
            self.v.append(0)
            self.sums.append(0.0)

    def select(self, t: int) -> tuple[np.ndarray, int]:
        check_int("t", t, 1, self.horizon)
        k = self.best()
        return (self.cells[self.arm_cell[k]] + 0.5) / self.n, k

    def receive(self, t: int, arm_id: int, pull_t: int, y: float) -> None:
        check_int("arm_id", arm_id, 0, self.n_active - 1)
        check_float("y", y)
        self.v[arm_id] += 1
        self.sums[arm_id] += y
        self.incorporated += 1
        self._cover()

    def feedback_counts(self) -> dict[str, int]:
        return {"incorporated": self.incorporated, "buffered": 0, "discarded": 0}
