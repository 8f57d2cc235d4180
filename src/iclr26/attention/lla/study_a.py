"""Study A of the LLA reproduction: parameter-free test-time regression (arXiv 2510.01450).

A draw: n keys k_j ~ N(0, I_d), values v_j = f(k_j) + 0.1 eps, and m queries with their noise-free targets
f(q). Each draw has its own random f:

* ``"tanh_mlp"``: f(x) = W_2 tanh(W_1 x / sqrt(d)) / sqrt(4 d), a random 2-layer MLP (queries ~ N(0, I));
* ``"piecewise_linear"``: f_t(x) = A_t x / sqrt(d) with A_t redrawn every n / 4 keys; the queries are scored
  against the last segment's map (non-stationary);
* ``"boundary"``: the tanh MLP, with queries from the outer 10% of the key distribution (||q||^2 above the
  0.9 quantile of chi^2_d).

Every estimator's bandwidth / ridge is picked on separate validation draws and then frozen.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np
import torch
from scipy.stats import chi2
from torch import Tensor

from iclr26.attention.lla.estimators import global_ridge, linear_attention, lla, nadaraya_watson
from iclr26.checks import check_int

__all__ = ["BASELINES", "ESTIMATORS", "FAMILIES", "draw", "grid", "mse", "predict", "tune"]

FAMILIES = ("tanh_mlp", "piecewise_linear", "boundary")
ESTIMATORS = ("lla", "nadaraya_watson", "global_ridge", "linear_attention")
BASELINES = ("nadaraya_watson", "global_ridge", "linear_attention")
NOISE = 0.1
H_FACTORS = (0.15, 0.22, 0.33, 0.5, 0.75, 1.1, 1.6, 2.5, 4.0)  # bandwidth h = factor * sqrt(d)
LLA_LAMS = (1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0, 1e8)  # scaled ridge; 1e8 is the Nadaraya-Watson end
RIDGE_LAMS = (1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0, 1000.0)


def _tanh_mlp(gen: torch.Generator, batch: int, d: int) -> Callable[[Tensor], Tensor]:
    h = 4 * d
    w1 = torch.randn(batch, h, d, generator=gen, dtype=torch.float64)
    w2 = torch.randn(batch, 1, h, generator=gen, dtype=torch.float64)
    return lambda x: torch.tanh(x @ w1.transpose(-1, -2) / d**0.5) @ w2.transpose(-1, -2) / h**0.5


def draw(family: str, n: int, d: int, m: int, batch: int, seed: int) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """`batch` independent draws: keys (batch, n, d), values (batch, n, 1), queries (batch, m, d), f(q)."""
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {FAMILIES}, got {family!r}")
    check_int("n", n, low=4)
    for name, value in (("m", m), ("d", d), ("batch", batch)):
        check_int(name, value, low=1)
    gen = torch.Generator().manual_seed(seed)
    k = torch.randn(batch, n, d, generator=gen, dtype=torch.float64)
    if family == "piecewise_linear":
        seg = torch.arange(n) * 4 // n
        a = torch.randn(batch, 4, d, generator=gen, dtype=torch.float64)
        v = (a[:, seg] * k).sum(-1, keepdim=True) / d**0.5
        q = torch.randn(batch, m, d, generator=gen, dtype=torch.float64)
        fq = q @ a[:, 3, :, None] / d**0.5
    else:
        f = _tanh_mlp(gen, batch, d)
        v = f(k)
        q = torch.randn(batch, m, d, generator=gen, dtype=torch.float64)
        if family == "boundary":
            u = torch.rand(batch, m, generator=gen, dtype=torch.float64)
            radius = torch.from_numpy(np.sqrt(chi2.ppf(0.9 + 0.1 * u.numpy(), d)))
            q = q / q.norm(dim=-1, keepdim=True) * radius[..., None]
        fq = f(q)
    v = v + NOISE * torch.randn(v.shape, generator=gen, dtype=torch.float64)
    return k, v, q, fq


def grid(estimator: str, d: int) -> list[dict[str, float]]:
    """The hyper-parameter grid searched for `estimator` at key dimension `d`."""
    hs = [f * d**0.5 for f in H_FACTORS]
    if estimator == "lla":
        return [{"bandwidth": h, "lam": lam} for h, lam in itertools.product(hs, LLA_LAMS)]
    if estimator == "nadaraya_watson":
        return [{"bandwidth": h} for h in hs]
    if estimator == "global_ridge":
        return [{"lam": lam} for lam in RIDGE_LAMS]
    if estimator == "linear_attention":
        return [{}]
    raise ValueError(f"estimator must be one of {ESTIMATORS}, got {estimator!r}")


def predict(estimator: str, params: dict[str, float], k: Tensor, v: Tensor, q: Tensor) -> Tensor:
    """Predictions at `q` of `estimator` with `params` (RBF kernel for the kernel smoothers)."""
    if estimator == "lla":
        return lla(q, k, v, kernel="rbf", ridge="scaled", **params)
    if estimator == "nadaraya_watson":
        return nadaraya_watson(q, k, v, kernel="rbf", **params)
    if estimator == "global_ridge":
        return global_ridge(q, k, v, **params)
    return linear_attention(q, k, v)


def mse(pred: Tensor, target: Tensor) -> Tensor:
    """Per-draw mean squared error over queries and outputs, shape (batch,)."""
    return ((pred - target) ** 2).mean(dim=(-1, -2))


def tune(estimator: str, k: Tensor, v: Tensor, q: Tensor, fq: Tensor) -> dict[str, float]:
    """The grid point of lowest validation MSE (mean over the validation draws)."""
    best, best_err = {}, float("inf")
    for params in grid(estimator, k.shape[-1]):
        err = float(mse(predict(estimator, params, k, v, q), fq).mean())
        if err < best_err:
            best, best_err = params, err
    return best
