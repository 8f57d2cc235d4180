"""Task families for the cumulative-loss certificates (OpenReview hWw269fPov).

Digits (sklearn's bundled 8x8 ``load_digits``, 1,797 images scaled to [0, 1]): a seeded split into a 1,400-image
pool and a held-out rest. Task t's distribution D_t is the empirical distribution of the (permuted / split)
pool, so S_t is drawn i.i.d. with replacement and the true risk L(h, D_t) is exact on the pool.

- :func:`permuted_digits`: task 1 is the identity, later tasks apply a fixed random pixel permutation.
- :func:`split_digits`: the 5 binary tasks {0,1}, {2,3}, ..., {8,9} cycled (labels 0/1, one shared head).

Linear regression (:func:`linreg_tasks`): x ~ N(0, diag(support)), y = x^T w + N(0, noise_sd^2); families
``iid``, ``alternating`` (A, B, A, ...), ``switch`` (A then B from T/2), ``drift`` (w rotated by a small angle per
task); regimes ``overparam`` (A uses coordinates 1..d/2, B the rest: one h fits both) and ``limited`` (both use all
coordinates with independent targets). :func:`oracle_rhs` gives L(h*_(1:t-1), D_t) with h* the population
minimiser of the summed risk of tasks 1..t-1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from sklearn.datasets import load_digits

__all__ = [
    "DigitsTask",
    "LinRegTask",
    "SCENARIOS",
    "digits_pool",
    "linreg_tasks",
    "oracle_rhs",
    "permuted_digits",
    "seen_before",
    "split_digits",
]

SCENARIOS = ("iid", "alternating", "switch", "drift")
REGIMES = ("overparam", "limited")


@dataclass
class DigitsTask:
    """One digits task: its pool (the exact D_t), a held-out set and the number of classes."""

    name: str
    X: torch.Tensor
    y: torch.Tensor
    X_hold: torch.Tensor
    y_hold: torch.Tensor
    n_classes: int

    def sample(self, m: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        """S_t: m i.i.d. draws from D_t (uniform over the pool, with replacement)."""
        if not (isinstance(m, int) and m >= 1):
            raise ValueError(f"m (samples per task) must be an integer >= 1, got {m!r}")
        idx = torch.randint(0, len(self.y), (m,), generator=generator)
        return self.X[idx], self.y[idx]


def _check_family(n_tasks: int, pool_size: int) -> None:
    if not (isinstance(n_tasks, int) and n_tasks >= 1):
        raise ValueError(f"n_tasks must be an integer >= 1, got {n_tasks!r}")
    if not (isinstance(pool_size, int) and 10 <= pool_size < 1797):
        raise ValueError(f"pool_size must be an integer in [10, 1797), got {pool_size!r}")


def digits_pool(
    seed: int, pool_size: int = 1400
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """(X_pool, y_pool, X_hold, y_hold): a seeded split of the 1,797 digits, pixels scaled to [0, 1]."""
    _check_family(1, pool_size)
    data = load_digits()
    order = np.random.default_rng(seed).permutation(len(data.target))
    X = torch.tensor(data.data[order] / 16.0, dtype=torch.float32)
    y = torch.tensor(data.target[order], dtype=torch.long)
    return X[:pool_size], y[:pool_size], X[pool_size:], y[pool_size:]


def permuted_digits(n_tasks: int, seed: int, pool_size: int = 1400) -> list[DigitsTask]:
    """Permuted-Digits: task 1 unpermuted, each later task a fixed random permutation of the 64 pixels."""
    _check_family(n_tasks, pool_size)
    Xp, yp, Xh, yh = digits_pool(seed, pool_size)
    rng = np.random.default_rng(seed + 7919)
    tasks = []
    for t in range(n_tasks):
        perm = torch.arange(64) if t == 0 else torch.from_numpy(rng.permutation(64))
        tasks.append(DigitsTask(f"perm{t}", Xp[:, perm], yp, Xh[:, perm], yh, 10))
    return tasks


def split_digits(n_tasks: int, seed: int, pool_size: int = 1400) -> list[DigitsTask]:
    """Split-Digits: the binary tasks {0,1}, {2,3}, {4,5}, {6,7}, {8,9} cycled to `n_tasks` tasks."""
    _check_family(n_tasks, pool_size)
    Xp, yp, Xh, yh = digits_pool(seed, pool_size)
    tasks = []
    for t in range(n_tasks):
        k = t % 5
        sel, hold = (yp // 2) == k, (yh // 2) == k
        tasks.append(DigitsTask(f"split{2 * k}{2 * k + 1}", Xp[sel], yp[sel] % 2, Xh[hold], yh[hold] % 2, 2))
    return tasks


@dataclass
class LinRegTask:
    """y = x^T w + N(0, noise_sd^2) with x ~ N(0, diag(support)); `label` identifies the distribution."""

    w: np.ndarray
    support: np.ndarray
    noise_sd: float
    label: str

    def sample(self, m: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        X = rng.standard_normal((m, self.w.size)) * self.support
        return X, X @ self.w + self.noise_sd * rng.standard_normal(m)

    def risk(self, h: np.ndarray) -> float | np.ndarray:
        """L(h, D) = (h - w)^T Sigma (h - w) + noise_sd^2 (h may be a batch of shape (n, d))."""
        diff = np.asarray(h) - self.w
        return (diff**2 * self.support).sum(-1) + self.noise_sd**2

    def gibbs_risk(self, mean: np.ndarray, cov: np.ndarray) -> float:
        """E_(h ~ N(mean, cov)) L(h, D) = L(mean, D) + tr(Sigma cov)."""
        return float(self.risk(mean) + np.sum(np.diag(cov) * self.support))


def linreg_tasks(
    scenario: str,
    regime: str,
    n_tasks: int,
    rng: np.random.Generator,
    d: int = 10,
    noise_sd: float = 0.1,
    drift_angle: float = 0.05,
) -> list[LinRegTask]:
    """A task sequence of one family (`scenario` in SCENARIOS) in one capacity `regime` ('overparam'/'limited')."""
    if scenario not in SCENARIOS:
        raise ValueError(f"scenario must be one of {SCENARIOS}, got {scenario!r}")
    if regime not in REGIMES:
        raise ValueError(f"regime must be one of {REGIMES}, got {regime!r}")
    if not (isinstance(n_tasks, int) and n_tasks >= 2 and isinstance(d, int) and d >= 2):
        raise ValueError(f"n_tasks and d must be integers >= 2, got {n_tasks!r} and {d!r}")
    if not noise_sd > 0:
        raise ValueError(f"noise_sd must be positive, got {noise_sd}")
    if regime == "overparam":
        sup_a = (np.arange(d) < d // 2).astype(float)
        sup_b = 1.0 - sup_a
    else:
        sup_a = sup_b = np.ones(d)
    w_a = rng.standard_normal(d) * sup_a
    w_b = rng.standard_normal(d) * sup_b
    a, b = LinRegTask(w_a, sup_a, noise_sd, "A"), LinRegTask(w_b, sup_b, noise_sd, "B")
    if scenario == "iid":
        return [a] * n_tasks
    if scenario == "alternating":
        return [a if t % 2 == 0 else b for t in range(n_tasks)]
    if scenario == "switch":
        return [a if t < n_tasks // 2 else b for t in range(n_tasks)]
    u = rng.standard_normal(d) * sup_a
    u -= (u @ w_a) / (w_a @ w_a) * w_a
    u *= np.linalg.norm(w_a) / np.linalg.norm(u)
    return [
        LinRegTask(np.cos(t * drift_angle) * w_a + np.sin(t * drift_angle) * u, sup_a, noise_sd, f"drift{t}")
        for t in range(n_tasks)
    ]


def oracle_rhs(tasks: list[LinRegTask]) -> np.ndarray:
    """Per task t: L(h*_(1:t-1), D_t), h* = argmin sum_(s<t) L(h, D_s) (minimum norm); NaN for t = 1."""
    d = tasks[0].w.size
    out = np.full(len(tasks), np.nan)
    gram, rhs = np.zeros((d, d)), np.zeros(d)
    for t, task in enumerate(tasks):
        if t > 0:
            out[t] = task.risk(np.linalg.pinv(gram) @ rhs)
        sigma = np.diag(task.support)
        gram += sigma
        rhs += sigma @ task.w
    return out


def seen_before(tasks: list[LinRegTask]) -> np.ndarray:
    """Mask of the tasks whose distribution already appeared earlier in the sequence."""
    seen: set[str] = set()
    mask = np.zeros(len(tasks), dtype=bool)
    for t, task in enumerate(tasks):
        mask[t] = task.label in seen
        seen.add(task.label)
    return mask
