"""Recursive Feature Machine steps: Laplace-Mahalanobis kernel ridge and the FACT / NFA feature updates.

Paper: "FACT: a first-principles alternative to the Neural Feature Ansatz ..." (OpenReview j4964wtJMz, arXiv
2507.05644). An RFM alternates

(a) kernel ridge regression ``alpha = (K_M + ridge I)^{-1} Y`` with
    ``k_M(x, z) = exp(-sqrt((x - z)^T M (x - z)) / L)``;
(b) a feature update of M from the fitted predictor ``f(x) = sum_j alpha_j k_M(x, x_j)``:

* NFA-RFM:  ``M <- AGOP^s``, ``AGOP = (1/n) sum_i sum_c grad f_c(x_i) grad f_c(x_i)^T``;
* FACT-RFM: ``M <- (F F^T)^{1/2}`` with ``F = (1/n) sum_i sum_c alpha_ic grad f_c(x_i) x_i^T`` (the FACT matrix
  of the square loss with ridge > 0: the residual is ``y_i - f(x_i) = ridge alpha_i``, so lambda cancels);
* FACT-RFM, geometric-mean variant (averages with the previous iterate):
  ``M_{t+1} = (F_t M_t^2 F_t^T)^{1/4}``.

Library choices: the self term (zero distance, where the Laplace kernel is not differentiable) is dropped
from ``grad f``; matrix powers use a symmetric eigendecomposition with eigenvalues clipped at 0; every new M is
divided by its largest eigenvalue.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import scipy.linalg

from iclr26.checks import check_choice, check_float, check_int
from iclr26.optim.fact_nfa.features import _check_square, _psd_power

__all__ = [
    "UPDATES",
    "kernel_fact_and_agop",
    "laplace_kernel",
    "rfm_iterates",
    "solve_kernel_ridge",
    "update_features",
]

UPDATES = ("fact", "fact_geomean", "nfa")
_SELF_DISTANCE = 1e-10


def _array(name: str, value: object, ndim: int) -> np.ndarray:
    a = np.asarray(value, dtype=float)
    if a.ndim != ndim or a.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty {ndim}-D array, got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name} must be finite (no NaN or infinity)")
    return a


def _check_kernel_args(X: object, Z: object, M: object, bandwidth: float) -> None:
    X, Z = _array("X", X, 2), _array("Z", Z, 2)
    if X.shape[1] != Z.shape[1]:
        raise ValueError(f"X and Z must have the same number of features, got {X.shape[1]} and {Z.shape[1]}")
    _check_square("M", M)
    if np.shape(M) != (X.shape[1], X.shape[1]):
        raise ValueError(
            f"M must be ({X.shape[1]}, {X.shape[1]}) for {X.shape[1]} features, got {np.shape(M)}"
        )
    check_float("bandwidth", bandwidth, low=0.0, low_open=True)


def _distances(X: np.ndarray, Z: np.ndarray, M: np.ndarray) -> np.ndarray:
    # ||x - z||_M^2 = x^T M x + z^T M z - 2 x^T M z
    XM = X @ M
    sq = np.einsum("id,id->i", XM, X)[:, None] + np.einsum("jd,jd->j", Z @ M, Z)[None, :] - 2 * XM @ Z.T
    return np.sqrt(np.clip(sq, 0.0, None))


def laplace_kernel(X: np.ndarray, Z: np.ndarray, M: np.ndarray, bandwidth: float) -> np.ndarray:
    """``k_M(x, z) = exp(-||x - z||_M / L)`` between the rows of X and Z.

    Example
    -------
    >>> import numpy as np
    >>> laplace_kernel(np.zeros((1, 2)), np.ones((1, 2)), np.eye(2), 2.0).round(4).tolist()
    [[0.4931]]
    """
    _check_kernel_args(X, Z, M, bandwidth)
    return _laplace(X, Z, M, bandwidth)


def _laplace(X: np.ndarray, Z: np.ndarray, M: np.ndarray, bandwidth: float) -> np.ndarray:
    return np.exp(-_distances(X, Z, M) / bandwidth)


def solve_kernel_ridge(K: np.ndarray, Y: np.ndarray, ridge: float) -> np.ndarray:
    """``alpha = (K + ridge I)^{-1} Y`` by a Cholesky solve (K symmetric PSD, ridge > 0)."""
    _check_square("K", K)
    Y_arr = np.asarray(Y, dtype=float)
    if Y_arr.ndim not in (1, 2) or Y_arr.shape[0] != len(K) or not np.all(np.isfinite(Y_arr)):
        raise ValueError(f"Y must be finite with {len(K)} rows (one per row of K), got shape {Y_arr.shape}")
    check_float("ridge", ridge, low=0.0, low_open=True)
    return _solve(K, Y, ridge)


def _solve(K: np.ndarray, Y: np.ndarray, ridge: float) -> np.ndarray:
    return scipy.linalg.solve(K + ridge * np.eye(len(K)), Y, assume_a="pos")


def kernel_fact_and_agop(
    X: np.ndarray, alpha: np.ndarray, M: np.ndarray, bandwidth: float
) -> tuple[np.ndarray, np.ndarray]:
    """The FACT matrix F and the AGOP of ``f(x) = sum_j alpha_j k_M(x, x_j)`` at the training points X.

    ``grad f_c(x_i) = -(1/L) sum_{j != i} alpha_jc k_ij / d_ij M (x_i - x_j)`` (self term dropped);
    ``F = (1/n) sum_{i,c} alpha_ic grad f_c(x_i) x_i^T`` and ``AGOP = (1/n) sum_{i,c} grad f_c grad f_c^T``.
    """
    _check_kernel_args(X, X, M, bandwidth)
    alpha_arr = _array("alpha", alpha, 2)
    if alpha_arr.shape[0] != len(X):
        raise ValueError(
            f"alpha must be (n, C) with n = {len(X)} rows (one per training point), got {alpha_arr.shape}"
        )
    return _fact_agop(X, alpha, M, bandwidth)


def _fact_agop(
    X: np.ndarray, alpha: np.ndarray, M: np.ndarray, bandwidth: float
) -> tuple[np.ndarray, np.ndarray]:
    n = len(X)
    D = _distances(X, X, M)
    far = D > _SELF_DISTANCE
    Wt = np.where(far, np.exp(-D / bandwidth) / np.where(far, D, 1.0), 0.0)  # k_ij / d_ij, self term 0
    A = Wt @ alpha  # (n, C): sum_j w_ij alpha_jc
    S = (Wt @ (alpha[:, :, None] * X[:, None, :]).reshape(n, -1)).reshape(n, alpha.shape[1], -1)
    grads = -(X[:, None, :] * A[:, :, None] - S) @ M / bandwidth  # (n, C, d)
    R = np.einsum("ic,icd->id", alpha, grads)  # sum_c alpha_ic grad f_c(x_i)
    F = R.T @ X / n  # FACT: (1/n) sum_i sum_c alpha_ic grad f_c(x_i) x_i^T
    flat = grads.reshape(-1, X.shape[1])
    agop = flat.T @ flat / n  # AGOP: (1/n) sum grad grad^T
    return F, agop


def update_features(
    F: np.ndarray, agop: np.ndarray, M: np.ndarray, update: str, nfa_power: float
) -> np.ndarray:
    """One feature update, normalised by the largest eigenvalue."""
    check_choice("update", update, UPDATES)
    _check_square("M", M)
    _check_square("agop", agop)
    d = np.shape(M)[0]
    if np.shape(agop) != (d, d) or np.ndim(F) != 2 or np.shape(F)[0] != d:
        raise ValueError(
            f"F, agop and M must act on {d} features, got shapes {np.shape(F)}, {np.shape(agop)}, {np.shape(M)}"
        )
    check_float("nfa_power", nfa_power, 0.0, 1.0, low_open=True)
    return _update(F, agop, M, update, nfa_power)


def _update(F: np.ndarray, agop: np.ndarray, M: np.ndarray, update: str, nfa_power: float) -> np.ndarray:
    if update == "fact":
        new = _psd_power(F @ F.T, 0.5)  # M <- (F F^T)^{1/2}
    elif update == "fact_geomean":
        new = _psd_power(F @ M @ M @ F.T, 0.25)  # M <- (F M^2 F^T)^{1/4}
    elif update == "nfa":
        new = _psd_power(agop, nfa_power)  # M <- AGOP^s
    else:
        raise ValueError(f"update must be one of {UPDATES}, got {update!r}")
    top = float(np.linalg.eigvalsh(new)[-1])
    if not np.isfinite(top) or top <= 0:
        return M  # a zero update (e.g. constant targets) keeps the current features
    return new / top


def rfm_iterates(
    X: np.ndarray,
    Y: np.ndarray,
    iters: int,
    bandwidth: float,
    ridge: float,
    update: str,
    nfa_power: float = 0.5,
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Yield ``(M_t, alpha_t)`` for t = 0 .. iters: M_0 = I, alpha_t the ridge fit with M_t.

    Example
    -------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).standard_normal((20, 3)); Y = X[:, :1] ** 2
    >>> M, alpha = list(rfm_iterates(X, Y, 2, 5.0, 1e-3, "fact"))[-1]
    >>> M.shape, alpha.shape
    ((3, 3), (20, 1))
    """
    if update not in UPDATES:
        raise ValueError(f"update must be one of {UPDATES}, got {update!r}")
    check_int("iters", iters, low=0)
    check_float("bandwidth", bandwidth, low=0.0, low_open=True)
    check_float("ridge", ridge, low=0.0, low_open=True)
    check_float("nfa_power", nfa_power, 0.0, 1.0, low_open=True)
    X_arr, Y_arr = _array("X", X, 2), np.asarray(Y, dtype=float)
    if Y_arr.ndim not in (1, 2) or Y_arr.shape[0] != X_arr.shape[0] or not np.all(np.isfinite(Y_arr)):
        raise ValueError(
            f"Y must be finite with {X_arr.shape[0]} rows (one per row of X), got shape {Y_arr.shape}"
        )
    return _iterates(X, Y, iters, bandwidth, ridge, update, nfa_power)


def _iterates(
    X: np.ndarray, Y: np.ndarray, iters: int, bandwidth: float, ridge: float, update: str, nfa_power: float
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    M = np.eye(X.shape[1])
    for t in range(iters + 1):
        alpha = _solve(_laplace(X, X, M, bandwidth), Y, ridge)
        yield M, alpha
        if t < iters:
            F, agop = _fact_agop(X, alpha, M, bandwidth)
            M = _update(F, agop, M, update, nfa_power)
