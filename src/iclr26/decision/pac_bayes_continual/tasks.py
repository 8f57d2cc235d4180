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

from iclr26.checks import check_array, check_choice, check_float, check_int, check_tensor, check_token_ids

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

    def __post_init__(self) -> None:
        check_int("n_classes", self.n_classes, low=2)
        for xs, ys in (("X", "y"), ("X_hold", "y_hold")):
            x, y = getattr(self, xs), getattr(self, ys)
            check_tensor(
                xs, x, ndim=2, floating=True, shape=(None, self.X.shape[-1] if xs == "X_hold" else None)
            )
            check_tensor(ys, y, ndim=1, shape=(x.shape[0],))
            check_token_ids(ys, y, self.n_classes)

    def sample(self, m: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        """S_t: m i.i.d. draws from D_t (uniform over the pool, with replacement)."""
        check_int("m (samples per task)", m, low=1)
        if not isinstance(generator, torch.Generator):
            raise TypeError(f"generator must be a torch.Generator, got {type(generator).__name__}")
        idx = torch.randint(0, len(self.y), (m,), generator=generator)
        return self.X[idx], self.y[idx]


def _check_family(n_tasks: int, pool_size: int) -> None:
    check_int("n_tasks", n_tasks, low=1)
    check_int("pool_size (in [10, 1797))", pool_size, 10, 1796)


def _check_rng(rng: object) -> None:
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")


def _check_tasks(tasks: object) -> list[LinRegTask]:
    if not isinstance(tasks, (list, tuple)) or not tasks or not all(isinstance(t, LinRegTask) for t in tasks):
        raise ValueError(f"tasks must be a non-empty list of LinRegTask, got {tasks!r}")
    if len({t.w.size for t in tasks}) != 1:
        raise ValueError(f"tasks must share one input dimension, got {sorted({t.w.size for t in tasks})}")
    return list(tasks)


def digits_pool(
    seed: int, pool_size: int = 1400
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """(X_pool, y_pool, X_hold, y_hold): a seeded split of the 1,797 digits, pixels scaled to [0, 1]."""
    _check_family(1, pool_size)
    check_int("seed", seed, low=0)
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

    def __post_init__(self) -> None:
        w = check_array("w", self.w, ndim=1, finite=True)
        support = check_array("support", self.support, ndim=1, finite=True)
        if support.shape != w.shape or np.any(support < 0):
            raise ValueError(
                f"support must be {w.size} nonnegative scales (one per coordinate of w), got {support.tolist()}"
            )
        check_float("noise_sd", self.noise_sd, low=0.0)

    def sample(self, m: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        check_int("m (samples)", m, low=1)
        _check_rng(rng)
        X = rng.standard_normal((m, self.w.size)) * self.support
        return X, X @ self.w + self.noise_sd * rng.standard_normal(m)

    def risk(self, h: np.ndarray) -> float | np.ndarray:
        """L(h, D) = (h - w)^T Sigma (h - w) + noise_sd^2 (h may be a batch of shape (n, d))."""
        h = np.asarray(h)
        if h.ndim not in (1, 2) or h.shape[-1] != self.w.size or not np.all(np.isfinite(h)):
            raise ValueError(
                f"h must be finite weights of shape ({self.w.size},) or (n, {self.w.size}), got {h.shape}"
            )
        diff = h - self.w
        return (diff**2 * self.support).sum(-1) + self.noise_sd**2

    def gibbs_risk(self, mean: np.ndarray, cov: np.ndarray) -> float:
        """E_(h ~ N(mean, cov)) L(h, D) = L(mean, D) + tr(Sigma cov)."""
        d = self.w.size
        if np.shape(mean) != (d,) or np.shape(cov) != (d, d) or not np.all(np.isfinite(cov)):
            raise ValueError(
                f"mean must have shape ({d},) and cov finite of shape ({d}, {d}), got {np.shape(mean)}, {np.shape(cov)}"
            )
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
    check_choice("scenario", scenario, SCENARIOS)
    check_choice("regime", regime, REGIMES)
    check_int("n_tasks", n_tasks, low=2)
    check_int(
        "d (>= 4 for drift in the overparam regime)" if scenario == "drift" else "d",
        d,
        low=4 if (scenario, regime) == ("drift", "overparam") else 2,
    )
    check_float("noise_sd (positive)", noise_sd, low=0.0, low_open=True)
    check_float("drift_angle", drift_angle)
    _check_rng(rng)
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
    tasks = _check_tasks(tasks)
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
    tasks = _check_tasks(tasks)
    seen: set[str] = set()
    mask = np.zeros(len(tasks), dtype=bool)
    for t, task in enumerate(tasks):
        mask[t] = task.label in seen
        seen.add(task.label)
    return mask
