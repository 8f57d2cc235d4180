"""BLiN-style phased pruning without delay logic: phases count pulls, not observations.

Baseline of "Lipschitz Bandits with Stochastic Delayed Feedback" (Liu, Kang and Lee, ICLR 2026, arXiv
2510.00309), after the batched Lipschitz bandit BLiN (Feng, Wang and Wang, 2022). Same cubes, v_m, uniform
points and elimination rule max mu_hat - mu_hat(B) >= 8 r_m as DLPP, but a phase ends once every cube has been
*pulled* v_m times; the means then use whatever rewards have arrived, and rewards arriving after their phase
are discarded. Under delays or censoring the means rest on fewer than v_m observations (a cube with none is
kept). With tau = 0 it plays exactly like DLPP.
"""

from __future__ import annotations

import numpy as np

from iclr26.checks import check_int
from iclr26.decision.delayed_lipschitz_bandit.dlpp import PhasedPruning

__all__ = ["BLiN"]


class BLiN(PhasedPruning):
    """Phased pruning that ends a phase after v_m pulls per cube (no delay logic).

    Parameters
    ----------
    dim, horizon, delta, conf_scale, seed, max_phases, elimination_factor : see ``PhasedPruning``.

    Examples
    --------
    >>> algo = BLiN(dim=1, horizon=100, conf_scale=0.1)
    >>> [algo.select(t)[1] for t in (1, 2)], algo.phase
    ([0, 1], 1)
    >>> algo.select(3)[1], algo.phase  # every cube pulled v_1 = 1 time: phase 2 starts
    (0, 2)
    """

    def select(self, t: int) -> tuple[np.ndarray, int]:
        check_int("t", t, 1, self.horizon)
        if not self.pending:  # every cube has v_m pulls: the phase ends before this round
            self._end_phase(t)
        k = self.pending.popleft()
        self.pulls[k] += 1
        if self.pulls[k] < self.required:
            self.pending.append(k)
        return self._point(k, t), k

    def receive(self, t: int, arm_id: int, pull_t: int, y: float) -> None:
        if not self._check_feedback(t, arm_id, pull_t, y):
            self.discarded += 1
            return
        self.incorporated += 1
        self.obs[arm_id] += 1
        self.sums[arm_id] += y
