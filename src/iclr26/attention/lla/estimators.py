"""Parameter-free test-time regression estimators (the regression view of attention, arXiv 2510.01450).

Each estimator reads n (key, value) pairs and predicts the value at new queries; shapes are (..., n, d) keys,
(..., n, d_v) values and (..., m, d) queries, any leading axes.

* :func:`nadaraya_watson`: local-constant fit, o(q) = sum_j s_j(q) v_j (softmax attention when the kernel is
  ``"exp_dot"``);
* :func:`global_ridge`: one ridge-regularised linear fit of all pairs (MesaNet-like), with an unpenalised
  intercept by default, evaluated at q;
* :func:`linear_attention`: o(q) = (1/n) sum_j v_j k_j^T q (unnormalised linear attention);
* :func:`lla`: the local linear fit of :func:`~iclr26.attention.lla.local_linear.local_linear_attention`.
"""

from __future__ import annotations

import torch
from torch import Tensor

from iclr26.attention.lla.local_linear import KERNELS, local_linear_attention, resolve_bandwidth
from iclr26.checks import check_choice, check_float, check_tensor
from iclr26.lab.flex import attention

__all__ = ["global_ridge", "linear_attention", "lla", "nadaraya_watson"]


def _check(q: Tensor, k: Tensor, v: Tensor) -> None:
    for name, x in (("q", q), ("k", k), ("v", v)):
        if not isinstance(x, Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(x).__name__}")
        if x.ndim < 2:
            raise ValueError(f"{name} must be at least 2-D (..., points, dim), got shape {tuple(x.shape)}")
        check_tensor(name, x, floating=True, finite=True)
    if not (q.dtype == k.dtype == v.dtype):
        raise ValueError(f"q, k, v must share a dtype, got {q.dtype}, {k.dtype}, {v.dtype}")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q and k must share the last dimension, got {q.shape[-1]} and {k.shape[-1]}")
    if k.shape[-2] != v.shape[-2] or k.shape[:-2] != v.shape[:-2] or q.shape[:-2] != k.shape[:-2]:
        raise ValueError(
            f"k and v must pair up (and share leading axes with q), got {tuple(k.shape)}, {tuple(v.shape)}"
        )
    if k.shape[-2] < 1:
        raise ValueError(f"k must hold at least one (key, value) pair, got shape {tuple(k.shape)}")


def _as4d(x: Tensor) -> Tensor:
    return x.reshape(-1, 1, *x.shape[-2:])


def nadaraya_watson(
    q: Tensor, k: Tensor, v: Tensor, *, kernel: str = "rbf", bandwidth: float | None = None
) -> Tensor:
    """Local-constant (Nadaraya-Watson) prediction at `q`: the kernel-weighted mean of `v`."""
    _check(q, k, v)
    check_choice("kernel", kernel, KERNELS)
    h2 = resolve_bandwidth(bandwidth, q.shape[-1]) ** 2
    q4, k4, v4 = _as4d(q), _as4d(k), _as4d(v)
    # softmax(q.k / h^2 - ||k||^2 / (2 h^2)) is the Gaussian kernel's normalised weights (the q term cancels)
    bias = None if kernel != "rbf" else -(k4 * k4).sum(-1)[:, :, None, :] / (2 * h2)
    scale = 0.0 if kernel == "uniform" else 1.0 / h2
    out = attention(q4, k4, v4, bias=bias, scale=scale, backend="dense")
    return out.reshape(*q.shape[:-1], v.shape[-1])


def global_ridge(q: Tensor, k: Tensor, v: Tensor, *, lam: float, intercept: bool = True) -> Tensor:
    """Ridge regression of `v` on `k` over all pairs, predicted at `q` (penalty lam ||W||_F^2, free intercept)."""
    _check(q, k, v)
    check_float("lam", lam, low=0.0)
    if intercept:
        kmean, vmean = k.mean(-2, keepdim=True), v.mean(-2, keepdim=True)
        k, v, q = k - kmean, v - vmean, q - kmean
    eye = torch.eye(k.shape[-1], dtype=k.dtype, device=k.device)
    gram = k.transpose(-1, -2) @ k + lam * eye
    # W^T = (K^T K + lam I)^{-1} K^T V
    try:
        wt = torch.linalg.solve(gram, k.transpose(-1, -2) @ v)
    except torch.linalg.LinAlgError:
        raise ValueError(
            f"lam={lam!r} leaves the ridge system K^T K + lam I singular (fewer pairs than dimensions); use lam > 0"
        ) from None
    out = q @ wt
    return out + vmean if intercept else out


def linear_attention(q: Tensor, k: Tensor, v: Tensor, *, scale: float | None = None) -> Tensor:
    """Unnormalised linear attention o(q) = scale * sum_j v_j k_j^T q, with scale = 1/n by default."""
    _check(q, k, v)
    c = 1.0 / k.shape[-2] if scale is None else check_float("scale", scale)
    return c * (q @ k.transpose(-1, -2)) @ v


def lla(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    *,
    lam: float,
    kernel: str = "rbf",
    bandwidth: float | None = None,
    ridge: str = "scaled",
) -> Tensor:
    """Local linear (LLA) prediction at `q` from all pairs (non-causal), any leading axes."""
    _check(q, k, v)
    out = local_linear_attention(
        _as4d(q), _as4d(k), _as4d(v), lam=lam, kernel=kernel, bandwidth=bandwidth, ridge=ridge, causal=False
    )
    return out.reshape(*q.shape[:-1], v.shape[-1])
