"""Delayed Zooming: zooming with observation-based radii and lazy updates (bounded delays).

Paper: Liu, Kang and Lee, "Lipschitz Bandits with Stochastic Delayed Feedback", ICLR 2026 (arXiv 2510.00309).
Per active arm x: pulls n(x), incorporated observations v(x), mean mu_hat(x) of the incorporated rewards, a
buffer Q[x] of arrived-but-not-incorporated rewards, and s(x), the round of its last pull.

* radius from observations, not pulls:   r_t(x) = c sqrt((4 log T + 2 log(2/delta)) / (1 + v_t(x)));
* selection (zooming index):             x_t = argmax_x mu_hat(x) + 2 r_t(x)   (mu_hat = 0 before any data);
* activation: whenever a grid point leaves every ball B(x, r_t(x)), activate the uncovered point nearest the
  arm of highest index (the first arm: the point nearest the centre), until the grid is covered again;
* lazy update: a reward arriving for x is incorporated at once only if r_t(x) >= r_{s(x)}(x) / 2 still holds
  afterwards, i.e. 1 + v_new <= 4 (1 + v_{s(x)}(x)); otherwise it waits in Q[x], which is flushed into
  (v, mu_hat) on the next pull of x, before the pull is recorded.

``lazy=False`` is the naive baseline (incorporate every reward on arrival). With tau = 0 the lazy test always
passes, so ``DelayedZooming(lazy=True)`` then plays exactly like classical zooming (see ``classical.py``).
"""

from __future__ import annotations

import numpy as np

from iclr26.checks import check_float, check_int
from iclr26.decision.delayed_lipschitz_bandit.confidence import check_problem, zooming_radius_table
from iclr26.decision.delayed_lipschitz_bandit.coverage import CoverGrid, ball_key, default_grid_res

__all__ = ["DelayedZooming"]

# per-arm state: grid cell, v(x), v at the last pull s(x), pulls n(x), buffer Q[x] (count, sum), ball key q,
# sum of incorporated rewards, zooming index
_FIELDS_INT = ("cell", "v", "v_s", "pulls", "buf_n", "q")
_FIELDS_FLOAT = ("sums", "buf_sum", "index")


class DelayedZooming:
    """Delayed Zooming (lazy) or naive delayed zooming (``lazy=False``) on [0, 1]^dim, Euclidean metric.

    Parameters
    ----------
    dim : dimension of the arm space.
    horizon : T, known in advance (it enters the radius).
    delta : confidence parameter in (0, 1); default 1 / T.
    lazy : use the lazy-update rule (the paper's method); False incorporates on arrival.
    grid_res : candidate grid points per axis (default 2^12 in 1-D, 128 in 2-D).
    conf_scale : c, multiplies every radius (1 = theory).
    debug : check the radius invariant and the covering of the grid every round (raises AssertionError).

    Examples
    --------
    >>> algo = DelayedZooming(dim=1, horizon=100, conf_scale=0.1, grid_res=64)
    >>> x, arm = algo.select(1)
    >>> algo.receive(1, arm, 1, 0.7)
    >>> algo.n_active >= 1, x.shape
    (True, (1,))
    """

    def __init__(
        self,
        dim: int,
        horizon: int,
        delta: float | None = None,
        lazy: bool = True,
        grid_res: int | None = None,
        conf_scale: float = 1.0,
        debug: bool = False,
    ) -> None:
        self.delta = check_problem(dim, horizon, delta, conf_scale)
        self.dim, self.horizon, self.conf_scale = int(dim), int(horizon), float(conf_scale)
        self.lazy, self.debug = bool(lazy), bool(debug)
        self.grid = CoverGrid(self.dim, default_grid_res(self.dim) if grid_res is None else grid_res)
        self._radius_of = zooming_radius_table(self.horizon, self.delta, self.conf_scale)  # r(v), v = 0..T
        self.r0 = float(self._radius_of[0])
        self.n_active = 0
        self.incorporated = 0
        self._capacity = 0
        self._grow(64)
        centre = np.full(self.dim, (self.grid.n - 1) / 2.0)
        self._activate(self.grid.uncovered(), centre)

    # ---- storage -------------------------------------------------------------------------------------
    def _grow(self, capacity: int) -> None:
        for name in _FIELDS_INT + _FIELDS_FLOAT:
            old = getattr(self, f"_{name}", None)
            new = np.zeros(capacity, dtype=np.int64 if name in _FIELDS_INT else float)
            if old is not None:
                new[: old.size] = old
            setattr(self, f"_{name}", new)
        self._capacity = capacity

    def _new_arm(self, cell: int) -> None:
        if self.n_active == self._capacity:
            self._grow(2 * self._capacity)
        k = self.n_active
        q = ball_key(self.r0, self.grid.n)
        self._cell[k], self._q[k] = cell, q
        self._index[k] = 2.0 * self.r0  # mu_hat = 0 before any observation
        self.n_active += 1
        self.grid.add(self.grid.index(cell), q)

    def _activate(self, candidates: np.ndarray, reference: np.ndarray | None = None) -> None:
        """Activate uncovered candidates, each nearest the highest-index arm, until none is left uncovered."""
        counts = self.grid.counts.reshape(-1)
        while True:
            candidates = candidates[counts[candidates] == 0]
            if candidates.size == 0:
                break
            if self.n_active:  # the first arm goes nearest `reference` (the centre)
                best = int(np.argmax(self._index[: self.n_active]))
                reference = np.array(self.grid.index(int(self._cell[best])), dtype=float)
            self._new_arm(self.grid.nearest(candidates, reference))
        if self.debug and counts.min() < 1:
            raise AssertionError("covering rule violated: a grid candidate lies in no active ball")

    def _incorporate(self, k: int, n: int, total: float) -> None:
        """Add n rewards summing to `total` to arm k: update v, mu_hat, r, the index and the covering."""
        self.incorporated += n
        v = int(self._v[k]) + n
        self._v[k] = v
        self._sums[k] += total
        r = float(self._radius_of[min(v, self.horizon)])
        self._index[k] = self._sums[k] / v + 2.0 * r  # mu_hat(x) + 2 r_t(x)
        q_new = ball_key(r, self.grid.n)
        if q_new != self._q[k]:
            exposed = self.grid.shrink(self.grid.index(int(self._cell[k])), int(self._q[k]), q_new)
            self._q[k] = q_new
            if exposed.size:
                self._activate(exposed)

    # ---- ask / tell ----------------------------------------------------------------------------------
    def select(self, t: int) -> tuple[np.ndarray, int]:
        """x_t = argmax over active arms of mu_hat(x) + 2 r_t(x); flush the arm's buffer; record the pull."""
        check_int("t", t, 1, self.horizon)
        k = int(np.argmax(self._index[: self.n_active]))
        if self._buf_n[k]:
            n, total = int(self._buf_n[k]), float(self._buf_sum[k])
            self._buf_n[k], self._buf_sum[k] = 0, 0.0
            self._incorporate(k, n, total)
        self._v_s[k] = self._v[k]  # s(x) = t
        self._pulls[k] += 1
        if self.debug:
            self.check_invariant()
        return self.grid.points[self._cell[k]], k

    def receive(self, t: int, arm_id: int, pull_t: int, y: float) -> None:
        """A reward of arm `arm_id` (pulled at `pull_t`) arrives at round `t`: incorporate it or buffer it."""
        k = check_int("arm_id", arm_id, 0, self.n_active - 1)
        check_float("y", y)
        if self.lazy and self._v[k] + 2 > 4 * (1 + self._v_s[k]):  # 1 + v_new > 4 (1 + v_s): r would halve
            self._buf_n[k] += 1
            self._buf_sum[k] += y
        else:
            self._incorporate(k, 1, y)

    # ---- inspection ----------------------------------------------------------------------------------
    def radius_ratio(self) -> float:
        """min over pulled arms of r_t(x) / r_{s(x)}(x); the lazy rule keeps it >= 1/2."""
        pulled = self._pulls[: self.n_active] > 0
        if not pulled.any():
            return 1.0
        v, v_s = self._v[: self.n_active][pulled], self._v_s[: self.n_active][pulled]
        return float(np.min(np.sqrt((1.0 + v_s) / (1.0 + v))))

    def check_invariant(self) -> None:
        """Raise AssertionError unless r_t(x) >= r_{s(x)}(x) / 2 for every pulled arm (lazy mode only)."""
        if self.lazy and self.radius_ratio() < 0.5:
            raise AssertionError(f"lazy invariant violated: min r_t / r_s = {self.radius_ratio():.4f} < 1/2")

    @property
    def arms(self) -> np.ndarray:
        """Positions of the active arms, shape (n_active, dim), in activation order."""
        return self.grid.points[self._cell[: self.n_active]]

    def feedback_counts(self) -> dict[str, int]:
        """Rewards received so far: incorporated into (v, mu_hat), buffered in Q, discarded (never here)."""
        return {
            "incorporated": self.incorporated,
            "buffered": int(self._buf_n[: self.n_active].sum()),
            "discarded": 0,
        }

    def __repr__(self) -> str:
        return (
            f"DelayedZooming(dim={self.dim}, horizon={self.horizon}, delta={self.delta:.3g}, lazy={self.lazy}, "
            f"grid_res={self.grid.n}, conf_scale={self.conf_scale:g})"
        )
