"""DLPP: Delayed Lipschitz Phased Pruning (unbounded and censored delays), and its phased-pruning skeleton.

Paper: Liu, Kang and Lee, "Lipschitz Bandits with Stochastic Delayed Feedback", ICLR 2026 (arXiv 2510.00309).
Phase m = 1, 2, ... keeps a set B_m of dyadic cubes of edge r_m = 2^-m (phase 1: the 2^d cubes of edge 1/2):

* each cube needs v_m = ceil(c^2 (2 log T + log(2/delta)) / (2 r_m^2)) *observed* rewards of phase m;
* round-robin over the cubes still below v_m observations; a pull plays a uniform random point of the cube;
* rewards of pulls made in an earlier phase that arrive late are discarded (each cube mean stays an unbiased
  average over the cube); rewards of the current phase that arrive after a cube reached v_m still count;
* phase end (every cube reached v_m): mu_hat(B) = mean of its observed rewards; eliminate B if
  max_B' mu_hat(B') - mu_hat(B) >= 8 r_m; split each survivor into its 2^d children; m <- m + 1;
* after ``max_phases`` phases (default: none, phases run until T) play uniformly inside the survivors.

The factor 8 is ``elimination_factor`` (the brief's value is the default; smaller values are an ablation).

Counting observations instead of pulls is what makes the phase length adapt to the delay: a cube stops being
pulled only once enough of its rewards have actually arrived (the regret then depends on a delay quantile,
Pr(v_{t+Q(p)}(B) <= (p/2) n_t(B)) <= exp(-(p/8) n_t(B))). ``blin.py`` counts pulls instead.
"""

from __future__ import annotations

import itertools
import math
from collections import deque

import numpy as np

from iclr26.checks import check_float, check_int
from iclr26.decision.delayed_lipschitz_bandit.confidence import check_problem, phase_observations

__all__ = ["DLPP", "PhasedPruning"]

ELIMINATION_FACTOR = 8.0  # eliminate B when max mu_hat - mu_hat(B) >= 8 r_m


class PhasedPruning:
    """Dyadic cubes, phases, elimination and splitting; subclasses decide when a phase is complete.

    Parameters
    ----------
    dim, horizon, delta, conf_scale : as for the other algorithms (c scales v_m by c^2).
    seed : seed of the uniform points played inside cubes.
    max_phases : stop refining after this many phases and play uniformly inside the survivors (None: never).
    elimination_factor : eliminate a cube whose mean trails the best by >= elimination_factor * r_m (8).
    """

    def __init__(
        self,
        dim: int,
        horizon: int,
        delta: float | None = None,
        conf_scale: float = 1.0,
        seed: int = 0,
        max_phases: int | None = None,
        elimination_factor: float = ELIMINATION_FACTOR,
    ) -> None:
        self.delta = check_problem(dim, horizon, delta, conf_scale)
        check_float("elimination_factor", elimination_factor, low=0.0, low_open=True)
        if max_phases is not None:
            check_int("max_phases (None or an int)", max_phases, low=1)
        check_int("seed", seed, low=0)
        self.dim, self.horizon, self.conf_scale = int(dim), int(horizon), float(conf_scale)
        self.max_phases = max_phases
        self.elimination_factor = float(elimination_factor)
        self._unit = np.random.default_rng(seed).random((self.horizon, self.dim))  # U[0,1)^d per round
        self._offsets = np.array(list(itertools.product((0.0, 1.0), repeat=self.dim)))  # 2^d child corners
        self.phase, self.edge = 0, 1.0
        self.phase_ends: list[int] = []
        self.eliminated_volume = 0.0
        self.incorporated = self.discarded = 0
        self.final = False
        self._begin_phase(np.zeros((1, self.dim)), 1)

    def _begin_phase(self, parents: np.ndarray, t: int) -> None:
        """Split every parent cube into its 2^d children and start phase m + 1 at round t."""
        self.edge /= 2.0
        self.phase += 1
        self.lower = (parents[:, None, :] + self.edge * self._offsets[None, :, :]).reshape(-1, self.dim)
        self._reset_stats(t)
        self.required: float = phase_observations(self.edge, self.horizon, self.delta, self.conf_scale)

    def _reset_stats(self, t: int) -> None:
        k = len(self.lower)
        self.obs = np.zeros(k, dtype=np.int64)
        self.sums = np.zeros(k)
        self.pulls = np.zeros(k, dtype=np.int64)
        self.pending = deque(range(k))
        self.phase_start = t

    def _end_phase(self, t_next: int) -> None:
        """Eliminate by the phase means, then split the survivors (or freeze them after ``max_phases``)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            means = self.sums / self.obs  # NaN for a cube with no observation: it cannot be eliminated
            best = np.nanmax(means) if np.any(self.obs > 0) else math.nan
            drop = best - means >= self.elimination_factor * self.edge  # max mu_hat(B') - mu_hat(B) >= 8 r_m
        self.eliminated_volume += float(drop.sum()) * self.edge**self.dim
        survivors = self.lower[~drop]
        self.phase_ends.append(t_next - 1)
        if self.max_phases is not None and self.phase >= self.max_phases:
            self.final = True
            self.lower = survivors
            self._reset_stats(t_next)
            self.required = math.inf
        else:
            self._begin_phase(survivors, t_next)

    def _check_feedback(self, t: int, arm_id: int, pull_t: int, y: float) -> bool:
        """Check a reward; True when it belongs to the current phase (`arm_id` then names one of its cubes)."""
        check_int("pull_t", pull_t, 1, self.horizon)
        check_float("y", y)
        if pull_t < self.phase_start:
            return False
        check_int("arm_id", arm_id, 0, self.n_active - 1)
        return True

    def _point(self, k: int, t: int) -> np.ndarray:
        return self.lower[k] + self.edge * self._unit[t - 1]  # uniform inside cube k

    @property
    def n_active(self) -> int:
        return len(self.lower)

    def cubes(self) -> tuple[np.ndarray, float]:
        """(lower corners of the active cubes, shape (n, dim); their edge)."""
        return self.lower.copy(), self.edge

    def feedback_counts(self) -> dict[str, int]:
        """Rewards received: incorporated into a cube of their own phase, or discarded (from an earlier phase)."""
        return {"incorporated": self.incorporated, "buffered": 0, "discarded": self.discarded}

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(dim={self.dim}, horizon={self.horizon}, delta={self.delta:.3g}, "
            f"conf_scale={self.conf_scale:g}, max_phases={self.max_phases}, "
            f"elimination_factor={self.elimination_factor:g})"
        )


class DLPP(PhasedPruning):
    """Delayed Lipschitz Phased Pruning: a phase ends when every cube has v_m *observed* rewards of the phase.

    Parameters
    ----------
    dim, horizon, delta, conf_scale, seed, max_phases, elimination_factor : see :class:`PhasedPruning`.
    c : the brief's name for ``conf_scale`` (give one of them).

    Examples
    --------
    >>> algo = DLPP(dim=1, horizon=100, conf_scale=0.1)
    >>> x, cube = algo.select(1)
    >>> algo.receive(1, cube, 1, 0.5)
    >>> algo.n_active, algo.phase, bool(0.0 <= x[0] < 0.5)
    (2, 1, True)
    """

    def __init__(
        self,
        dim: int,
        horizon: int,
        delta: float | None = None,
        conf_scale: float = 1.0,
        seed: int = 0,
        max_phases: int | None = None,
        elimination_factor: float = ELIMINATION_FACTOR,
        *,
        c: float | None = None,
    ) -> None:
        if c is not None:
            if conf_scale != 1.0 and conf_scale != c:
                raise ValueError(f"c is an alias of conf_scale; got c={c!r} and conf_scale={conf_scale!r}")
            conf_scale = c
        super().__init__(dim, horizon, delta, conf_scale, seed, max_phases, elimination_factor)

    def select(self, t: int) -> tuple[np.ndarray, int]:
        check_int("t", t, 1, self.horizon)
        k = self.pending[0]
        self.pending.rotate(-1)  # round-robin over the cubes still below v_m observations
        self.pulls[k] += 1
        return self._point(k, t), k

    def receive(self, t: int, arm_id: int, pull_t: int, y: float) -> None:
        if not self._check_feedback(t, arm_id, pull_t, y):  # a pull of an earlier phase: its cube is gone
            self.discarded += 1
            return
        self.incorporated += 1
        self.obs[arm_id] += 1
        self.sums[arm_id] += y
        if self.obs[arm_id] == self.required:
            self.pending.remove(arm_id)
            if not self.pending:
                self._end_phase(t + 1)
