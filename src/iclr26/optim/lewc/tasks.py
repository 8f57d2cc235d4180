"""Offline classification tasks of the LEWC reproduction (arXiv 2510.08023): digits and a Gaussian mixture.

- ``digits``: scikit-learn's bundled 8x8 digits (1797 images, 10 classes), standardised with training-split
  statistics, split 1000 train / 300 calibration / 497 test by a seeded permutation.
- ``gmm``: a generated 20-class Gaussian mixture in d = 50: class c draws x ~ N(mu_c, I) with mu_c ~
  N(0, spread^2 I) (one component per class by default; `components` > 1 makes each class a mixture), so the
  classes overlap and no model reaches 100% test accuracy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from sklearn.datasets import load_digits

from iclr26.checks import check_float, check_int, check_tensor

__all__ = ["Splits", "digits_task", "gmm_task", "make_task"]


@dataclass(frozen=True)
class Splits:
    """Train / calibration / test tensors of one task (float32 inputs, int64 labels)."""

    x_train: torch.Tensor
    y_train: torch.Tensor
    x_cal: torch.Tensor
    y_cal: torch.Tensor
    x_test: torch.Tensor
    y_test: torch.Tensor
    n_classes: int

    def __post_init__(self) -> None:
        check_int("n_classes", self.n_classes, low=2)
        check_tensor("x_train", self.x_train, ndim=2, floating=True)
        d = self.x_train.shape[1]
        for part in ("train", "cal", "test"):
            x = check_tensor(f"x_{part}", getattr(self, f"x_{part}"), floating=True, shape=(None, d))
            y = check_tensor(f"y_{part}", getattr(self, f"y_{part}"), floating=False, shape=(x.shape[0],))
            if y.numel() and (int(y.min()) < 0 or int(y.max()) >= self.n_classes):
                raise ValueError(
                    f"y_{part} must hold labels in [0, n_classes={self.n_classes}), got values in "
                    f"[{int(y.min())}, {int(y.max())}]"
                )

    @property
    def dim(self) -> int:
        return int(self.x_train.shape[1])

    def to(self, device: str) -> Splits:
        moved = {
            k: getattr(self, k).to(device)
            for k in ("x_train", "y_train", "x_cal", "y_cal", "x_test", "y_test")
        }
        return Splits(**moved, n_classes=self.n_classes)


def _split(
    x: np.ndarray, y: np.ndarray, sizes: tuple[int, int, int], rng: np.random.Generator, n_classes: int
) -> Splits:
    if not isinstance(sizes, (tuple, list)) or len(sizes) != 3:
        raise ValueError(f"sizes must be (n_train, n_cal, n_test), got {sizes!r}")
    for name, v in zip(("n_train", "n_cal", "n_test"), sizes):
        check_int(f"sizes {name}", v, low=1)
    n_train, n_cal, n_test = sizes
    if n_train + n_cal + n_test > len(x) or min(sizes) < 1:
        raise ValueError(f"split sizes {sizes} must be >= 1 and sum to at most {len(x)}")
    order = rng.permutation(len(x))
    parts = np.split(order, [n_train, n_train + n_cal, n_train + n_cal + n_test])[:3]
    mean, std = x[parts[0]].mean(0), x[parts[0]].std(0)
    std = np.where(std > 1e-8, std, 1.0)  # standardise with training statistics; constant pixels stay put
    xs = [torch.tensor((x[p] - mean) / std, dtype=torch.float32) for p in parts]
    ys = [torch.tensor(y[p], dtype=torch.long) for p in parts]
    return Splits(xs[0], ys[0], xs[1], ys[1], xs[2], ys[2], n_classes)


def digits_task(seed: int, sizes: tuple[int, int, int] = (1000, 300, 497)) -> Splits:
    """The bundled 8x8 digits, split by a seeded permutation (no download)."""
    check_int("seed", seed, low=0)
    data = load_digits()
    return _split(data.data.astype(np.float64), data.target, sizes, np.random.default_rng(seed), 10)


def gmm_task(
    seed: int,
    sizes: tuple[int, int, int] = (3000, 500, 500),
    n_classes: int = 20,
    dim: int = 50,
    components: int = 1,
    spread: float = 0.45,
) -> Splits:
    """A generated Gaussian-mixture classification task: class c draws x ~ N(mu_{c,k}, I), k uniform.

    Examples
    --------
    >>> s = gmm_task(0, sizes=(100, 20, 20))
    >>> tuple(s.x_train.shape), s.n_classes
    ((100, 50), 20)
    """
    check_int("seed", seed, low=0)
    check_int("n_classes", n_classes, low=2)
    check_int("dim", dim, low=1)
    check_int("components", components, low=1)
    check_float("spread", spread, low=0.0)
    if not isinstance(sizes, (tuple, list)) or len(sizes) != 3:
        raise ValueError(f"sizes must be (n_train, n_cal, n_test), got {sizes!r}")
    for name, v in zip(("n_train", "n_cal", "n_test"), sizes):
        check_int(f"sizes {name}", v, low=1)
    rng = np.random.default_rng(seed)
    means = spread * rng.standard_normal((n_classes, components, dim))  # mu_{c,k} ~ N(0, spread^2 I)
    n = sum(sizes)
    y = rng.integers(0, n_classes, n)
    k = rng.integers(0, components, n)
    x = means[y, k] + rng.standard_normal((n, dim))
    return _split(x, y, sizes, rng, n_classes)


def make_task(name: str, seed: int, n_samples: int | None = None) -> Splits:
    """``digits`` or ``gmm`` for a seed; `n_samples` (gmm only) rescales the 3000/500/500 split."""
    if name == "digits":
        return digits_task(seed)
    if name == "gmm":
        if n_samples is None:
            return gmm_task(seed)
        sizes = (n_samples * 3 // 4, n_samples // 8, n_samples // 8)
        return gmm_task(seed, sizes=sizes)
    raise ValueError(f"task must be 'digits' or 'gmm', got {name!r}")
