"""Monte Carlo of the learning outcome of an allocation, with Clopper-Pearson intervals.

Paper: "Incentives in Federated Learning with Heterogeneous Agents" (Procaccia, Shao, Shapira; ICLR 2026,
arXiv 2509.21612). One draw: each agent j contributes S_j ~ D_j^{m_j} (labels from h*), the pooled sample S is
given to ERM; the version space is V(S) = {h in H : h(x) = h*(x) for all x in S}. With worst-case
tie-breaking among consistent hypotheses, agent i fails iff V(S) meets B_i = {h : d_i(h) > epsilon}:

    fail_i(S) = 1[ exists h in B_i with h(x) = h*(x) for every x in S ]

The failure rate over draws estimates P(fail_i); its exact Clopper-Pearson interval uses Beta quantiles:
    lo = Beta^{-1}(alpha/2; x, n - x + 1),   hi = Beta^{-1}(1 - alpha/2; x + 1, n - x),   alpha = 1 - level.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.stats import beta

from iclr26.checks import check_float, check_int
from iclr26.decision.fl_incentives.instances import Instance, as_generator, check_instance, floats

__all__ = ["FailureEstimate", "clopper_pearson", "simulate_failures"]


def clopper_pearson(x: int | np.ndarray, n: int, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Exact two-sided binomial interval for x successes in n trials (vectorised over x).

    Examples
    --------
    >>> lo, hi = clopper_pearson(0, 100)
    >>> float(lo), round(float(hi), 4)
    (0.0, 0.0362)
    """
    check_int("n", n, low=1)
    check_float("level", level, 0.0, 1.0, low_open=True, high_open=True)
    x = np.asarray(x)
    if (
        x.dtype == bool
        or not np.issubdtype(x.dtype, np.number)
        or not np.all(np.isfinite(x))
        or np.any(x % 1)
    ):
        raise ValueError(f"x must be integer success counts in [0, n={n}], got {x.tolist()}")
    if np.any(x < 0) or np.any(x > n):
        raise ValueError(f"x must lie in [0, n={n}], got {x.tolist()}")
    alpha = 1.0 - level
    lo = np.where(x > 0, beta.ppf(alpha / 2, np.maximum(x, 1), n - x + 1), 0.0)
    hi = np.where(x < n, beta.ppf(1 - alpha / 2, x + 1, np.maximum(n - x, 1)), 1.0)
    return lo, hi


@dataclass(frozen=True)
class FailureEstimate:
    """Per-agent failure counts over `n_draws` samples S and their Clopper-Pearson interval at `level`."""

    failures: np.ndarray
    n_draws: int
    level: float = 0.95

    def __post_init__(self) -> None:
        check_int("n_draws", self.n_draws, low=1)
        check_float("level", self.level, 0.0, 1.0, low_open=True, high_open=True)
        failures = np.asarray(self.failures)
        if (
            failures.ndim != 1
            or not np.issubdtype(failures.dtype, np.integer)
            or np.any(failures < 0)
            or np.any(failures > self.n_draws)
        ):
            raise ValueError(
                f"failures must be a 1-D array of per-agent integer counts in [0, n_draws={self.n_draws}], "
                f"got {failures.tolist()}"
            )

    @property
    def rate(self) -> np.ndarray:
        return self.failures / self.n_draws

    @property
    def interval(self) -> tuple[np.ndarray, np.ndarray]:
        return clopper_pearson(self.failures, self.n_draws, self.level)


def simulate_failures(
    inst: Instance,
    m: np.ndarray | Sequence[int],
    n_draws: int,
    rng: np.random.Generator | int,
    level: float = 0.95,
    chunk: int = 2000,
) -> FailureEstimate:
    """Draw S `n_draws` times for the allocation `m` and count, per agent, the draws where worst-case ERM fails.

    Parameters
    ----------
    inst : the instance (true distributions).
    m : (k,) integer sample counts.
    n_draws : number of independent pooled samples S.
    rng : generator or seed.
    level : level of the Clopper-Pearson intervals.
    chunk : draws processed at once (memory: chunk x |H| floats).

    Examples
    --------
    >>> from iclr26.decision.fl_incentives.instances import pos_family_instance
    >>> inst = pos_family_instance(10, 100, 1.0)
    >>> est = simulate_failures(inst, [10, 10], 2000, rng=0)
    >>> bool(np.all(est.rate < 0.1))
    True
    """
    check_instance(inst)
    m = floats("m", m, f"{inst.k} nonnegative integer sample counts")
    if m.shape != (inst.k,) or np.any(m < 0) or not np.all(np.equal(np.mod(m, 1), 0)):
        raise ValueError(f"m must be {inst.k} nonnegative integer sample counts, got {m.tolist()}")
    check_int("n_draws", n_draws, low=1)
    check_float("level", level, 0.0, 1.0, low_open=True, high_open=True)
    check_int("chunk", chunk, low=1)
    rng = as_generator(rng)
    m = m.astype(np.int64)
    dis = inst.disagree.T.astype(np.float32)  # (n_x, n_h)
    bad = inst.bad.T.astype(np.float32)  # (n_h, k)
    failures = np.zeros(inst.k, dtype=np.int64)
    for start in range(0, n_draws, chunk):
        size = min(chunk, n_draws - start)
        counts = np.zeros((size, inst.n_points), dtype=np.int64)
        for j in np.flatnonzero(m > 0):
            counts += rng.multinomial(m[j], inst.D[j], size=size)  # S_j ~ D_j^{m_j}, as counts per point
        seen = (counts > 0).astype(np.float32)  # (size, n_x): the points of X that appear in S
        survive = (seen @ dis) == 0  # h in V(S) iff h agrees with h* on every point of S
        failures += ((survive.astype(np.float32) @ bad) > 0).sum(axis=0)  # V(S) meets B_i
    return FailureEstimate(failures, int(n_draws), level)
