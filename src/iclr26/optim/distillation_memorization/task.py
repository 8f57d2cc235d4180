"""The random memorisation task, its class-stratified split and temperature-softened targets.

Paper: "Dataset Distillation for Memorized Data: Soft Labels can Leak Held-Out Teacher Knowledge" (Behrens &
Zdeborova, arXiv 2506.14457, OpenReview lmVfTPQF3a). Inputs x ~ N(0, I_d)/sqrt(d), standardised per feature; labels
a random balanced assignment of C classes (n_per_class points each), so a teacher can only memorise them. The
teacher's training set is split per class into the transfer set D_S and the held-out set D_H. Soft targets are
p_T(x) = softmax(z_T(x) / tau).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from iclr26.checks import check_array, check_float, check_int

__all__ = [
    "MemorizationTask",
    "check_tau",
    "make_random_memorization_task",
    "one_hot",
    "shuffle_within_class",
    "soft_targets",
    "split_by_fraction",
    "stratified_split",
]


@dataclass(frozen=True)
class MemorizationTask:
    """A random-label task: standardised inputs ``X`` (n, d), labels ``y`` (n,), fresh inputs from the same law.

    ``mean`` and ``std`` are the per-feature statistics used to standardise ``X``; ``fresh(m, rng)`` draws new
    inputs standardised with the same statistics (for functional agreement off the training set).
    """

    X: np.ndarray
    y: np.ndarray
    n_classes: int
    mean: np.ndarray
    std: np.ndarray

    def __post_init__(self) -> None:
        check_int("n_classes", self.n_classes, low=2)
        X = check_array("X", self.X, ndim=2)
        n, d = X.shape
        y = check_array("y", self.y, ndim=1, integer=True)
        if y.shape != (n,):
            raise ValueError(f"y must have one label per row of X ({n},), got shape {y.shape}")
        if n and (int(y.min()) < 0 or int(y.max()) >= self.n_classes):
            raise ValueError(
                f"y must hold labels in [0, n_classes={self.n_classes}), got values in [{int(y.min())}, {int(y.max())}]"
            )
        for name in ("mean", "std"):
            if check_array(name, getattr(self, name), ndim=1).shape != (d,):
                raise ValueError(
                    f"{name} must have one entry per feature ({d},), got {np.shape(getattr(self, name))}"
                )

    @property
    def d(self) -> int:
        return int(self.X.shape[1])

    def fresh(self, m: int, rng: np.random.Generator) -> np.ndarray:
        """``m`` fresh inputs x ~ N(0, I_d)/sqrt(d), standardised with the task's statistics."""
        check_int("m", m, low=1)
        _check_rng(rng)
        raw = rng.standard_normal((m, self.d)) / np.sqrt(self.d)
        return (raw - self.mean) / self.std


def _check_rng(rng: object) -> None:
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")


def _labels(y: object) -> np.ndarray:
    """``y`` as a non-empty 1-D array of non-negative integer labels."""
    y = np.asarray(y)
    if y.ndim != 1 or y.size == 0 or y.dtype.kind not in "iu" or y.min() < 0:
        raise ValueError(
            f"y must be a non-empty 1-D array of integer labels >= 0, got {y.dtype} of shape {y.shape}"
        )
    return y


def make_random_memorization_task(n_per_class: int, d: int, C: int, seed: int) -> MemorizationTask:
    """Draw the pure memorisation task of the paper: Gaussian inputs and a random balanced labelling.

    Parameters
    ----------
    n_per_class : points per class (n = n_per_class * C).
    d : input dimension.
    C : number of classes (>= 2).
    seed : seed of the NumPy generator.

    Examples
    --------
    >>> task = make_random_memorization_task(n_per_class=5, d=8, C=3, seed=0)
    >>> task.X.shape, sorted(np.bincount(task.y).tolist())
    ((15, 8), [5, 5, 5])
    """
    check_int("C (number of classes)", C, low=2)
    check_int("n_per_class", n_per_class, low=1)
    check_int("d (input dimension)", d, low=1)
    check_int("seed", seed, low=0)
    rng = np.random.default_rng(seed)
    n = n_per_class * C
    raw = rng.standard_normal((n, d)) / np.sqrt(d)  # x ~ N(0, I_d) / sqrt(d)
    mean = raw.mean(axis=0)
    std = raw.std(axis=0) if n > 1 else np.ones(d)
    std = np.where(std > 0, std, 1.0)
    y = rng.permutation(np.repeat(np.arange(C), n_per_class))  # random balanced labels
    return MemorizationTask((raw - mean) / std, y, C, mean, std)


def stratified_split(
    y: np.ndarray, n_transfer: int, rng: np.random.Generator, n_classes: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Split indices per class into a transfer set of ``n_transfer`` points and the held-out rest.

    Each class gives floor(n_transfer / C) points, the remainder going one each to randomly chosen classes; every
    class keeps at least one point on each side. Returns ``(idx_transfer, idx_held_out)``.

    Examples
    --------
    >>> S, H = stratified_split(np.repeat(np.arange(3), 4), 7, np.random.default_rng(0))
    >>> len(S), len(H)
    (7, 5)
    """
    y = _labels(y)
    _check_rng(rng)
    check_int("n_transfer", n_transfer)
    if n_classes is not None:
        check_int("n_classes", n_classes, low=int(y.max()) + 1)
    C = int(n_classes if n_classes is not None else y.max() + 1)
    counts = np.bincount(y, minlength=C)
    if not C <= n_transfer <= len(y) - C:
        raise ValueError(
            f"n_transfer must lie in [C, n - C] = [{C}, {len(y) - C}] so every class is on both sides, "
            f"got {n_transfer}"
        )
    per_class = np.full(C, n_transfer // C)
    per_class[rng.choice(C, n_transfer % C, replace=False)] += 1
    if np.any(per_class >= counts):
        raise ValueError(f"n_transfer = {n_transfer} leaves some class with no held-out point")
    take, rest = [], []
    for c in range(C):
        idx = rng.permutation(np.flatnonzero(y == c))
        take.append(idx[: per_class[c]])
        rest.append(idx[per_class[c] :])
    return np.sort(np.concatenate(take)), np.sort(np.concatenate(rest))


def split_by_fraction(
    y: np.ndarray, train_frac: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """The official split: a fraction ``train_frac`` in (0, 1) of each class goes to the transfer set."""
    check_float("train_frac", train_frac, 0.0, 1.0, low_open=True, high_open=True)
    y = _labels(y)
    return stratified_split(y, int(round(train_frac * len(y))), rng)


def check_tau(tau: float, name: str = "tau") -> float:
    """Return ``tau`` as a float, or raise if it is not a finite positive temperature."""
    return check_float(f"{name} (temperature)", tau, low=0.0, low_open=True)


def soft_targets(logits: np.ndarray, tau: float) -> np.ndarray:
    """p_T = softmax(z_T / tau), row-wise and numerically stable; tau -> 0 gives the one-hot argmax.

    Examples
    --------
    >>> soft_targets(np.array([[0.0, np.log(3.0)]]), 1.0).round(3).tolist()
    [[0.25, 0.75]]
    """
    tau = check_tau(tau)
    z = check_array("logits", logits)
    if z.ndim != 2 or z.shape[1] < 1 or not np.all(np.isfinite(z)):
        raise ValueError(f"logits must be a finite (n, C) array, got shape {z.shape}")
    z = z / tau  # z_T / tau
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)  # softmax


def one_hot(y: np.ndarray, C: int) -> np.ndarray:
    """One-hot targets (n, C) of integer labels."""
    check_int("C", C, low=1)
    y = _labels(y)
    if y.size and (y.min() < 0 or y.max() >= C):
        raise ValueError(f"y must hold labels in [0, {C}), got values in [{y.min()}, {y.max()}]")
    out = np.zeros((len(y), C))
    out[np.arange(len(y)), y] = 1.0
    return out


def shuffle_within_class(targets: np.ndarray, y: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Permute the rows of ``targets`` among points of the same class (the official ``shuffle_input_intra_class``).

    The class marginals stay, the link between an input and its own soft label is destroyed.
    """
    y = _labels(y)
    _check_rng(rng)
    if np.shape(targets)[:1] != y.shape:
        raise ValueError(f"targets must have one row per label ({y.shape[0]}), got shape {np.shape(targets)}")
    targets = check_array("targets", targets)
    out = np.array(targets, copy=True)
    for c in np.unique(y):
        idx = np.flatnonzero(y == c)
        out[idx] = targets[rng.permutation(idx)]
    return out
