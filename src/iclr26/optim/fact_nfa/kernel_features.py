"""Recursive Feature Machine steps: Mahalanobis kernel ridge and the FACT / NFA feature updates.

Paper: "FACT: a first-principles alternative to the Neural Feature Ansatz ..." (OpenReview j4964wtJMz, arXiv
2507.05644). An RFM alternates

(a) kernel ridge regression ``alpha = (K_M + ridge I)^{-1} Y`` (ridge 0: interpolation) with the Laplace kernel
    ``k_M(x, z) = exp(-||x - z||_M / L)`` or the Gaussian kernel ``k_M(x, z) = exp(-||x - z||_M^2 / (2 L^2))``,
    ``||v||_M^2 = v^T M v``;
(b) a feature update of M from the fitted predictor ``f(x) = sum_j alpha_j k_M(x, x_j)`` and its input gradients
    ``G_ic = grad f_c(x_i)`` at the training points:

* NFA-RFM:  ``M <- AGOP^s``, ``AGOP = (1/n) sum_i sum_c G_ic G_ic^T``;
* FACT-RFM: ``M <- (F F^T)^{1/2}`` with ``F = (1/n) sum_i sum_c alpha_ic G_ic x_i^T`` (the FACT matrix of the
  square loss: the residual is ``y_i - f(x_i) = ridge alpha_i``, so the ridge cancels; at ridge 0, F is the
  ridge -> 0 limit);
* FACT-RFM, geometric-mean variant (averages with the previous iterate):
  ``M_{t+1} = (F_t M_t^2 F_t^T)^{1/4}``.

Options: ``center_grads`` replaces G by ``G_ic - (1/n) sum_j G_jc`` before both updates (the official RFM
grokking code, nmallinar/rfm-grokking, centres the gradients before its AGOP); ``normalize`` divides every new M
by its largest eigenvalue (the official code does not rescale M). Fixed library choices: the Laplace self term
(zero distance, not differentiable there; also repeated points) is dropped from G (the Gaussian one is zero);
matrix powers use a symmetric eigendecomposition with eigenvalues clipped at 0. F and the AGOP are formed
without the (n, C, d) gradient array (:func:`kernel_input_gradients` is the point-by-point form).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import scipy.linalg

from iclr26.checks import check_array, check_bool, check_choice, check_float, check_int
from iclr26.optim.fact_nfa.features import check_square, psd_power_unchecked

__all__ = [
    "KERNELS",
    "UPDATES",
    "gaussian_kernel",
    "kernel_fact_and_agop",
    "kernel_input_gradients",
    "kernel_matrix",
    "laplace_kernel",
    "rfm_iterates",
    "solve_kernel_ridge",
    "update_features",
]

UPDATES = ("fact", "fact_geomean", "nfa")
KERNELS = ("laplace", "gaussian")
_SELF_DISTANCE = 1e-10
_ROUND_OFF = 64 * np.finfo(float).eps


def _array(name: str, value: object, ndim: int) -> np.ndarray:
    a = check_array(name, value)
    if a.ndim != ndim or a.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty {ndim}-D array, got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name} must be finite (no NaN or infinity)")
    return a


def _check_kernel_args(X: object, Z: object, M: object, bandwidth: float) -> None:
    X, Z = _array("X", X, 2), _array("Z", Z, 2)
    if X.shape[1] != Z.shape[1]:
        raise ValueError(f"X and Z must have the same number of features, got {X.shape[1]} and {Z.shape[1]}")
    check_square("M", M)
    if np.shape(M) != (X.shape[1], X.shape[1]):
        raise ValueError(
            f"M must be ({X.shape[1]}, {X.shape[1]}) for {X.shape[1]} features, got {np.shape(M)}"
        )
    check_float("bandwidth", bandwidth, low=0.0, low_open=True)


def _squared_distances(X: np.ndarray, Z: np.ndarray, M: np.ndarray) -> np.ndarray:
    # ||x - z||_M^2 = x^T M x + z^T M z - 2 x^T M z, clipped at 0 against round-off
    XM = X @ M
    sq = np.einsum("id,id->i", XM, X)[:, None] + np.einsum("jd,jd->j", Z @ M, Z)[None, :] - 2 * XM @ Z.T
    return np.clip(sq, 0.0, None)


def laplace_kernel(X: np.ndarray, Z: np.ndarray, M: np.ndarray, bandwidth: float) -> np.ndarray:
    """``k_M(x, z) = exp(-||x - z||_M / L)`` between the rows of X and Z.

    Example
    -------
    >>> import numpy as np
    >>> laplace_kernel(np.zeros((1, 2)), np.ones((1, 2)), np.eye(2), 2.0).round(4).tolist()
    [[0.4931]]
    """
    _check_kernel_args(X, Z, M, bandwidth)
    return _kernel(X, Z, M, bandwidth, "laplace")


def gaussian_kernel(X: np.ndarray, Z: np.ndarray, M: np.ndarray, bandwidth: float) -> np.ndarray:
    """``k_M(x, z) = exp(-||x - z||_M^2 / (2 L^2))`` between the rows of X and Z.

    Example
    -------
    >>> import numpy as np
    >>> gaussian_kernel(np.zeros((1, 2)), np.ones((1, 2)), np.eye(2), 2.0).round(4).tolist()
    [[0.7788]]
    """
    _check_kernel_args(X, Z, M, bandwidth)
    return _kernel(X, Z, M, bandwidth, "gaussian")


def kernel_matrix(X: np.ndarray, Z: np.ndarray, M: np.ndarray, bandwidth: float, kernel: str) -> np.ndarray:
    """The `kernel` ("laplace" or "gaussian") Mahalanobis kernel matrix between the rows of X and Z."""
    check_choice("kernel", kernel, KERNELS)
    _check_kernel_args(X, Z, M, bandwidth)
    return _kernel(X, Z, M, bandwidth, kernel)


def _kernel(X: np.ndarray, Z: np.ndarray, M: np.ndarray, bandwidth: float, kernel: str) -> np.ndarray:
    return _kernel_of(_squared_distances(X, Z, M), bandwidth, kernel)


def _kernel_of(sq: np.ndarray, bandwidth: float, kernel: str) -> np.ndarray:
    """The kernel from squared Mahalanobis distances."""
    if kernel == "gaussian":
        return np.exp(-sq / (2 * bandwidth**2))
    return np.exp(-np.sqrt(sq) / bandwidth)


def solve_kernel_ridge(K: np.ndarray, Y: np.ndarray, ridge: float) -> np.ndarray:
    """``alpha = (K + ridge I)^{-1} Y`` (K symmetric PSD, ridge >= 0; ridge 0 interpolates and needs K invertible).

    Cholesky first; where it fails at ridge 0 (K numerically not positive definite) an LU solve, as
    ``np.linalg.solve`` in the official RFM grokking code.
    """
    check_square("K", K)
    Y_arr = check_array("Y", Y)
    if Y_arr.ndim not in (1, 2) or Y_arr.shape[0] != len(K) or not np.all(np.isfinite(Y_arr)):
        raise ValueError(f"Y must be finite with {len(K)} rows (one per row of K), got shape {Y_arr.shape}")
    check_float("ridge", ridge, low=0.0)
    return _solve(K, Y, ridge)


def _solve(K: np.ndarray, Y: np.ndarray, ridge: float) -> np.ndarray:
    A = K + ridge * np.eye(len(K))
    try:
        return scipy.linalg.solve(A, Y, assume_a="pos")
    except np.linalg.LinAlgError:
        if ridge > 0:
            raise
    try:
        return scipy.linalg.solve(A, Y)
    except np.linalg.LinAlgError as err:
        raise ValueError(
            "the kernel matrix is singular at ridge 0 (repeated points?); use ridge > 0"
        ) from err


def kernel_fact_and_agop(
    X: np.ndarray,
    alpha: np.ndarray,
    M: np.ndarray,
    bandwidth: float,
    *,
    kernel: str = "laplace",
    center_grads: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """The FACT matrix F and the AGOP of ``f(x) = sum_j alpha_j k_M(x, x_j)`` at the training points X.

    ``grad f_c(x_i) = sum_j w_ij alpha_jc M (x_j - x_i)`` with ``w_ij = k_ij / (L d_ij)`` (Laplace, self term
    dropped) or ``w_ij = k_ij / L^2`` (Gaussian); with `center_grads` the gradients are centred over i per output
    c first; ``F = (1/n) sum_{i,c} alpha_ic grad f_c(x_i) x_i^T`` and ``AGOP = (1/n) sum_{i,c} grad f_c grad f_c^T``
    (computed without forming the gradients; :func:`kernel_input_gradients` gives them).
    """
    check_choice("kernel", kernel, KERNELS)
    _check_kernel_args(X, X, M, bandwidth)
    alpha_arr = _array("alpha", alpha, 2)
    if alpha_arr.shape[0] != len(X):
        raise ValueError(
            f"alpha must be (n, C) with n = {len(X)} rows (one per training point), got {alpha_arr.shape}"
        )
    check_bool("center_grads", center_grads)
    return _fact_agop(X, alpha, M, bandwidth, kernel, center_grads)


def kernel_input_gradients(
    X: np.ndarray, alpha: np.ndarray, M: np.ndarray, bandwidth: float, *, kernel: str = "laplace"
) -> np.ndarray:
    """``G[i, c] = grad f_c(x_i)`` of ``f(x) = sum_j alpha_j k_M(x, x_j)``, shape (n, C, d), point by point.

    The readable form of the gradients inside :func:`kernel_fact_and_agop` (which never builds G) and its
    test oracle.
    """
    check_choice("kernel", kernel, KERNELS)
    _check_kernel_args(X, X, M, bandwidth)
    if _array("alpha", alpha, 2).shape[0] != len(X):
        raise ValueError(f"alpha must have n = {len(X)} rows (one per training point), got {np.shape(alpha)}")
    n = len(X)
    Wt = _gradient_weights(X, M, bandwidth, kernel)
    A = Wt @ alpha  # (n, C): sum_j w_ij alpha_jc
    S = (Wt @ (alpha[:, :, None] * X[:, None, :]).reshape(n, -1)).reshape(n, alpha.shape[1], -1)
    return (S - X[:, None, :] * A[:, :, None]) @ M  # sum_j w_ij alpha_jc M (x_j - x_i)


def _gradient_weights(
    X: np.ndarray, M: np.ndarray, bandwidth: float, kernel: str, sq: np.ndarray | None = None
) -> np.ndarray:
    """``w_ij`` with ``grad f_c(x_i) = sum_j w_ij alpha_jc M (x_j - x_i)`` (`sq`: the squared distances)."""
    sq = _squared_distances(X, X, M) if sq is None else sq
    if kernel == "gaussian":
        W = np.exp(-sq / (2 * bandwidth**2)) / bandwidth**2  # d k_ij / d x_i = -k_ij / L^2 M (x_i - x_j)
    else:
        # pairs at zero distance (the self term, repeated points) are dropped: below 1e-10 (as the original RFM
        # code) or below the round-off of the squared-distance formula
        norms = np.einsum("id,id->i", X @ M, X)
        far = (sq > _SELF_DISTANCE**2) & (sq > _ROUND_OFF * (norms[:, None] + norms[None, :]))
        D = np.sqrt(np.where(far, sq, 1.0))
        W = np.where(far, np.exp(-D / bandwidth) / (bandwidth * D), 0.0)
    np.fill_diagonal(W, 0.0)  # the self term contributes M (x_i - x_i) = 0
    return W


def _fact_agop(
    X: np.ndarray,
    alpha: np.ndarray,
    M: np.ndarray,
    bandwidth: float,
    kernel: str,
    center_grads: bool,
    sq: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """F and AGOP without the (n, C, d) gradient array (O(n^3) instead of O(n^2 C d)).

    With P = X M (rows p_i = M x_i), B_c = W diag(alpha_c) P and a_c = W alpha_c, the gradients of output c
    are the rows of ``G_c = B_c - diag(a_c) P``; sums over c of products of G_c reduce to n x n matrices.
    """
    n = len(X)
    W = _gradient_weights(X, M, bandwidth, kernel, sq)
    P = X @ M
    A = W @ alpha  # a_c as columns
    # sum_c G_c^T G_c = P^T [ (W^T W) o (alpha alpha^T) - W^T o (alpha A^T) - W o (A alpha^T) + diag |A_i|^2 ] P
    inner = (W.T @ W) * (alpha @ alpha.T)
    cross = W.T * (alpha @ A.T)
    agop = P.T @ (inner - cross - cross.T + np.diag(np.einsum("ic,ic->i", A, A))) @ P / n
    # sum_c G_c^T diag(alpha_c) X = P^T [ W^T o (alpha alpha^T) - diag(sum_c A_ic alpha_ic) ] X
    F = P.T @ (W.T * (alpha @ alpha.T) - np.diag(np.einsum("ic,ic->i", A, alpha))) @ X / n
    if center_grads:
        # mean gradient of output c: (1/n) sum_i G_c[i] = (1/n) (alpha_c^T diag(W^T 1) - a_c^T) P, shape (C, d)
        mean = (alpha * W.sum(axis=0)[:, None] - A).T @ P / n
        agop = agop - mean.T @ mean  # (1/n) sum (g - mean)(g - mean)^T
        F = F - mean.T @ (alpha.T @ X) / n  # (1/n) sum_{i,c} alpha_ic (g_ic - mean_c) x_i^T
    return F, agop


def update_features(
    F: np.ndarray,
    agop: np.ndarray,
    M: np.ndarray,
    update: str,
    nfa_power: float,
    *,
    normalize: bool = True,
) -> np.ndarray:
    """One feature update; with `normalize`, divided by its largest eigenvalue."""
    check_choice("update", update, UPDATES)
    check_square("M", M)
    check_square("agop", agop)
    check_array("F", F, ndim=2, finite=True)
    d = np.shape(M)[0]
    if np.shape(agop) != (d, d) or np.ndim(F) != 2 or np.shape(F)[0] != d:
        raise ValueError(
            f"F, agop and M must act on {d} features, got shapes {np.shape(F)}, {np.shape(agop)}, {np.shape(M)}"
        )
    check_float("nfa_power", nfa_power, 0.0, 1.0, low_open=True)
    check_bool("normalize", normalize)
    return _update(F, agop, M, update, nfa_power, normalize)


def _update(
    F: np.ndarray, agop: np.ndarray, M: np.ndarray, update: str, nfa_power: float, normalize: bool
) -> np.ndarray:
    if update == "fact":
        new = psd_power_unchecked(F @ F.T, 0.5)  # M <- (F F^T)^{1/2}
    elif update == "fact_geomean":
        new = psd_power_unchecked(F @ M @ M @ F.T, 0.25)  # M <- (F M^2 F^T)^{1/4}
    elif update == "nfa":
        new = psd_power_unchecked(agop, nfa_power)  # M <- AGOP^s
    else:
        raise ValueError(f"update must be one of {UPDATES}, got {update!r}")
    top = float(np.linalg.eigvalsh(new)[-1])
    if not np.isfinite(top) or top <= 0:
        return M  # a zero update (e.g. constant targets) keeps the current features
    return new / top if normalize else new


def rfm_iterates(
    X: np.ndarray,
    Y: np.ndarray,
    iters: int,
    bandwidth: float,
    ridge: float,
    update: str,
    nfa_power: float = 0.5,
    *,
    kernel: str = "laplace",
    center_grads: bool = False,
    normalize: bool = True,
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
    check_choice("update", update, UPDATES)
    check_choice("kernel", kernel, KERNELS)
    check_int("iters", iters, low=0)
    check_float("bandwidth", bandwidth, low=0.0, low_open=True)
    check_float("ridge", ridge, low=0.0)
    check_float("nfa_power", nfa_power, 0.0, 1.0, low_open=True)
    for name, flag in (("center_grads", center_grads), ("normalize", normalize)):
        check_bool(name, flag)
    X_arr, Y_arr = _array("X", X, 2), check_array("Y", Y)
    if Y_arr.ndim not in (1, 2) or Y_arr.shape[0] != X_arr.shape[0] or not np.all(np.isfinite(Y_arr)):
        raise ValueError(
            f"Y must be finite with {X_arr.shape[0]} rows (one per row of X), got shape {Y_arr.shape}"
        )
    return _iterates(X, Y, iters, bandwidth, ridge, update, nfa_power, kernel, center_grads, normalize)


def _iterates(
    X: np.ndarray,
    Y: np.ndarray,
    iters: int,
    bandwidth: float,
    ridge: float,
    update: str,
    nfa_power: float,
    kernel: str,
    center_grads: bool,
    normalize: bool,
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    M = np.eye(X.shape[1])
    for t in range(iters + 1):
        sq = _squared_distances(X, X, M)
        alpha = _solve(_kernel_of(sq, bandwidth, kernel), Y, ridge)
        yield M, alpha
        if t < iters:
            F, agop = _fact_agop(X, alpha, M, bandwidth, kernel, center_grads, sq)
            M = _update(F, agop, M, update, nfa_power, normalize)
