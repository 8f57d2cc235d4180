"""Imbalanced data and class-balanced metrics for the SpecGD reproduction.

The Gaussian-mixture model is *reconstructed* from the paper's abstract and notes (the theorem constants were
not available): K classes with long-tailed priors ``pi_c ∝ rho^{-(c-1)/(K-1)}``, mutually orthogonal class means
of equal norm ``a``, ``x = mu_c + sigma * z`` with ``z ~ N(0, I_d)`` (or a fixed anisotropic diagonal
covariance), one-hot targets. Training sets follow the priors; test sets are class-balanced.

Example
-------
>>> data = make_imbalanced_gmm(K=3, d=8, rho=4.0, a=2.0, sigma=1.0, n=60, seed=0)
>>> data.x_train.shape, data.train_counts().tolist()
(torch.Size([60, 8]), [34, 17, 9])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from iclr26.checks import check_choice, check_float, check_int, check_tensor

__all__ = [
    "ImbalancedData",
    "balanced_metrics",
    "long_tailed_digits",
    "long_tailed_priors",
    "make_imbalanced_gmm",
]


@dataclass(frozen=True)
class ImbalancedData:
    """A long-tailed training set and a class-balanced test set (labels in ``0..K-1``, class 0 the largest)."""

    x_train: torch.Tensor
    y_train: torch.Tensor
    x_test: torch.Tensor
    y_test: torch.Tensor
    priors: torch.Tensor
    means: torch.Tensor | None = None

    def __post_init__(self) -> None:
        check_tensor("priors", self.priors, ndim=1, floating=True)
        k = self.priors.shape[0]
        check_tensor("x_train", self.x_train, ndim=2, floating=True)
        n, d = self.x_train.shape
        check_tensor("x_test", self.x_test, floating=True, shape=(None, d))
        for name, rows in (("y_train", n), ("y_test", self.x_test.shape[0])):
            y = check_tensor(name, getattr(self, name), floating=False, shape=(rows,))
            if y.numel() and (int(y.min()) < 0 or int(y.max()) >= k):
                raise ValueError(
                    f"{name} must hold labels in [0, K={k}) (one prior per class), got values in "
                    f"[{int(y.min())}, {int(y.max())}]"
                )
        if self.means is not None:
            check_tensor("means", self.means, floating=True, shape=(k, d))

    @property
    def num_classes(self) -> int:
        return int(self.priors.numel())

    def train_counts(self) -> torch.Tensor:
        """Number of training examples per class."""
        return torch.bincount(self.y_train, minlength=self.num_classes)


def long_tailed_priors(K: int, rho: float) -> torch.Tensor:
    """Priors ``pi_c ∝ rho^{-c/(K-1)}`` for ``c = 0..K-1`` (float64): the largest is `rho` times the smallest."""
    check_int("K (number of classes)", K, low=2)
    check_float("rho (imbalance ratio)", rho, low=1.0, finite=False)
    w = torch.tensor(float(rho), dtype=torch.float64) ** (-torch.arange(K, dtype=torch.float64) / (K - 1))
    return w / w.sum()


def _counts(priors: torch.Tensor, n: int) -> torch.Tensor:
    """Deterministic per-class counts summing to `n`, at least 1 each (largest-remainder rounding)."""
    raw = priors * n
    counts = torch.clamp(raw.floor().long(), min=1)
    order = torch.argsort(raw - raw.floor(), descending=True)
    i = 0
    while int(counts.sum()) < n:
        counts[order[i % len(order)]] += 1
        i += 1
    while int(counts.sum()) > n:
        counts[int(torch.argmax(counts))] -= 1
    return counts


def make_imbalanced_gmm(
    K: int,
    d: int,
    rho: float,
    a: float = 3.0,
    sigma: float = 1.0,
    n: int = 5000,
    seed: int = 0,
    *,
    n_test: int | None = None,
    anisotropy: float = 0.0,
    dtype: torch.dtype = torch.float32,
) -> ImbalancedData:
    """Long-tailed Gaussian mixture with orthogonal class means (see the module docstring).

    Parameters
    ----------
    K, d : classes and dimension (``K <= d`` so that the means can be orthogonal).
    rho : imbalance ratio ``pi_0 / pi_{K-1} >= 1``.
    a : norm of every class mean; sigma : noise scale (>= 0).
    n : training-set size (per-class counts follow the priors, at least 1 each).
    seed : seeds the means, the noise and the sample order.
    n_test : balanced test-set size (default `n`; rounded down to a multiple of K).
    anisotropy : noise standard deviations ``sigma * s_j`` with ``s_j ∝ (j + 1)^{-anisotropy / 2}`` along a
        random orthonormal basis, normalised to mean ``s_j^2 = 1`` (0: isotropic).
    """
    for name, value in (("K", K), ("d", d), ("n", n)):
        check_int(name, value, low=1)
    if K > d:
        raise ValueError(f"K ({K}) must be <= d ({d}): K mutually orthogonal means need K <= d dimensions")
    if n < K:
        raise ValueError(f"n ({n}) must be >= K ({K}) so that every class has a training example")
    check_float("a (mean norm)", a, low=0.0, low_open=True, finite=False)
    check_float("sigma (noise scale)", sigma, low=0.0, finite=False)
    check_float("anisotropy", anisotropy, low=0.0, finite=False)
    n_test = n if n_test is None else n_test
    check_int(f"n_test (at least K = {K})", n_test, low=K)
    priors = long_tailed_priors(K, rho)
    gen = torch.Generator().manual_seed(int(seed))
    basis, _ = torch.linalg.qr(torch.randn(d, d, generator=gen, dtype=torch.float64))
    means = a * basis[:, :K].T  # (K, d), orthogonal rows of norm a
    noise_basis, _ = torch.linalg.qr(torch.randn(d, d, generator=gen, dtype=torch.float64))
    scales = (torch.arange(d, dtype=torch.float64) + 1.0) ** (-anisotropy / 2)
    scales = scales / scales.pow(2).mean().sqrt()

    def sample(counts: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        y = torch.repeat_interleave(torch.arange(K), counts)
        z = torch.randn(len(y), d, generator=gen, dtype=torch.float64)
        x = means[y] + sigma * (z * scales) @ noise_basis.T
        perm = torch.randperm(len(y), generator=gen)
        return x[perm].to(dtype), y[perm]

    x_tr, y_tr = sample(_counts(priors, n))
    x_te, y_te = sample(torch.full((K,), n_test // K, dtype=torch.long))
    return ImbalancedData(x_tr, y_tr, x_te, y_te, priors.to(dtype), means.to(dtype))


def long_tailed_digits(rho: float = 20.0, test_per_class: int = 50, seed: int = 0) -> ImbalancedData:
    """A long-tailed subsample of scikit-learn's bundled 8x8 digits with a balanced held-out test split.

    Per class, `test_per_class` images go to the test set; from the rest, class rank ``r`` (a seeded random
    order of the digits) keeps ``m * rho^{-r/9}`` images, ``m`` the smallest remaining class size. Pixels are
    scaled to [0, 1]. ``priors`` are the training frequencies in rank order; labels are remapped to ranks so that
    class 0 is the largest.
    """
    from sklearn.datasets import load_digits

    check_float("rho (imbalance ratio)", rho, low=1.0)
    check_int("test_per_class", test_per_class, 1, 150)
    check_int("seed", seed, low=0)
    x, y = load_digits(return_X_y=True)
    rng = np.random.default_rng(seed)
    rank_of_digit = rng.permutation(10)  # digit -> class rank (0 = head)
    pools = [rng.permutation(np.flatnonzero(y == digit)) for digit in range(10)]
    m = min(len(p) for p in pools) - test_per_class
    tr_idx, tr_lab, te_idx, te_lab = [], [], [], []
    for digit, pool in enumerate(pools):
        r = int(rank_of_digit[digit])
        keep = max(1, int(round(m * rho ** (-r / 9))))
        te_idx += list(pool[:test_per_class])
        te_lab += [r] * test_per_class
        tr_idx += list(pool[test_per_class : test_per_class + keep])
        tr_lab += [r] * keep
    order = rng.permutation(len(tr_idx))
    xs = torch.tensor(x / 16.0, dtype=torch.float32)
    x_tr, y_tr = xs[np.array(tr_idx)[order]], torch.tensor(np.array(tr_lab)[order])
    x_te, y_te = xs[np.array(te_idx)], torch.tensor(te_lab)
    counts = torch.bincount(y_tr, minlength=10).double()
    return ImbalancedData(x_tr, y_tr, x_te, y_te, (counts / counts.sum()).float())


def balanced_metrics(
    outputs: torch.Tensor, y: torch.Tensor, loss: str | None = "squared"
) -> dict[str, float]:
    """Class-balanced accuracy, worst-class accuracy and (optionally) class-balanced loss.

    Parameters
    ----------
    outputs : (n, K) logits or regression outputs; the prediction is the argmax.
    y : (n,) integer labels in ``0..K-1``.
    loss : ``"squared"`` (``0.5 * ||f(x) - e_y||^2``), ``"cross_entropy"`` or ``None`` (no loss).

    Returns
    -------
    dict with ``balanced_accuracy`` (mean over the classes present in `y` of their accuracy, as
    ``sklearn.metrics.balanced_accuracy_score``), ``worst_class_accuracy``, ``accuracy`` and, with a loss,
    ``balanced_loss`` (mean over present classes of the per-class mean loss).
    """
    if not isinstance(outputs, torch.Tensor) or outputs.ndim != 2:
        raise ValueError(f"outputs must be a (n, K) tensor, got {getattr(outputs, 'shape', type(outputs))}")
    check_tensor("outputs", outputs, floating=True)
    if not isinstance(y, torch.Tensor) or y.ndim != 1 or y.shape[0] != outputs.shape[0]:
        raise ValueError(
            f"y must be a ({outputs.shape[0]},) label tensor, got {getattr(y, 'shape', type(y))}"
        )
    if y.numel() == 0:
        raise ValueError("y must hold at least one label")
    K = outputs.shape[1]
    if y.dtype.is_floating_point or int(y.min()) < 0 or int(y.max()) >= K:
        raise ValueError(f"y must hold integer labels in [0, {K - 1}]")
    check_choice("loss", loss, ("squared", "cross_entropy", None))
    out = outputs.detach().double()
    correct = (out.argmax(dim=1) == y).double()
    counts = torch.bincount(y, minlength=K).double()
    present = counts > 0
    per_class = torch.bincount(y, weights=correct, minlength=K) / counts.clamp(min=1)
    result = {
        "balanced_accuracy": float(per_class[present].mean()),
        "worst_class_accuracy": float(per_class[present].min()),
        "accuracy": float(correct.mean()),
    }
    if loss is not None:
        if loss == "squared":
            per_sample = 0.5 * (out - F.one_hot(y, K).double()).pow(2).sum(dim=1)
        else:
            per_sample = F.cross_entropy(out, y, reduction="none")
        class_loss = torch.bincount(y, weights=per_sample, minlength=K) / counts.clamp(min=1)
        result["balanced_loss"] = float(class_loss[present].mean())
    return result
