"""UniRoute's learned cluster map: a soft assignment z_theta(x) = softmax(Theta [phi(x); 1]) in the simplex.

The map is trained on the training prompts with the *training* LLMs' labels (UniRoute, ICLR 2026, ka82fvJ5f1):

    min_Theta  1/(n m) sum_{x in S_tr} sum_{h in H_tr} BCE( l(x, y, h), z_theta(x)^T Psi_K(h) )  +  wd/2 ||W||^2

where Psi_K(h) in [0, 1]^K is h's per-cluster validation error (fixed during training) and W is Theta without
its bias column. At test time gamma(x, h) = z_theta(x)^T Psi_K(h) for any LLM h, seen or not.

The loss and its analytic gradient are NumPy; the optimiser is SciPy's L-BFGS-B (deterministic, CPU).
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize

from iclr26.checks import check_float, check_int
from iclr26.inference.uniroute.checks import check_embeddings, check_errors
from iclr26.inference.uniroute.distances import nearest

__all__ = ["cluster_map_loss", "fit_cluster_map", "init_theta_from_centroids", "soft_assign"]

_EPS = 1e-6  # probabilities are clipped to [eps, 1 - eps] inside the BCE


def _with_bias(X: np.ndarray) -> np.ndarray:
    return np.hstack([X, np.ones((X.shape[0], 1))])


def _check_theta(theta: object, X: object, name: str = "theta") -> tuple[np.ndarray, np.ndarray]:
    X = check_embeddings(X, "X")
    theta = check_embeddings(theta, name)
    if theta.shape[1] != X.shape[1] + 1:
        raise ValueError(
            f"{name} must have shape (K, D + 1) = (K, {X.shape[1] + 1}) for X of shape {X.shape}, got {theta.shape}"
        )
    return theta, X


def soft_assign(theta: np.ndarray, X: np.ndarray) -> np.ndarray:
    """z_theta(x) = softmax(Theta [x; 1]) for every row of X (n, D); theta is (K, D + 1). Returns (n, K)."""
    theta, X = _check_theta(theta, X)
    return _soft_assign(theta, X)


def _soft_assign(theta: np.ndarray, X: np.ndarray) -> np.ndarray:
    logits = _with_bias(X) @ theta.T
    logits -= logits.max(axis=1, keepdims=True)
    z = np.exp(logits)
    return z / z.sum(axis=1, keepdims=True)


def init_theta_from_centroids(centroids: np.ndarray, X: np.ndarray) -> np.ndarray:
    """Theta whose softmax is a tempered nearest-centroid rule: logits_k = -||x - c_k||^2 / tau.

    Expanding the square and dropping ||x||^2 (the same for every k): W_k = 2 c_k / tau, b_k = -||c_k||^2 / tau,
    with tau the mean squared distance of the rows of X to their nearest centroid.
    """
    nearest_d2 = ((X - centroids[nearest(X, centroids)[:, 0]]) ** 2).sum(axis=1)
    tau = max(float(nearest_d2.mean()), 1e-12)
    return np.hstack([2.0 * centroids / tau, -(centroids**2).sum(1, keepdims=True) / tau])


def cluster_map_loss(
    theta: np.ndarray, X: np.ndarray, errors: np.ndarray, psi: np.ndarray, weight_decay: float = 1e-4
) -> tuple[float, np.ndarray]:
    """The learned map's objective and its gradient with respect to theta.

    theta : (K, D + 1); X : (n, D) training prompt embeddings; errors : (n, m) training LLMs' errors;
    psi : (m, K) the training LLMs' per-cluster validation errors. Returns (loss, grad of shape (K, D + 1)).
    """
    theta, X = _check_theta(theta, X)
    errors = check_errors(errors, "errors", (X.shape[0], None))
    psi = check_errors(psi, "psi", (errors.shape[1], theta.shape[0]))
    check_float("weight_decay", weight_decay, low=0.0)
    return _loss(theta, X, errors, psi, weight_decay)


def _loss(
    theta: np.ndarray, X: np.ndarray, errors: np.ndarray, psi: np.ndarray, weight_decay: float
) -> tuple[float, np.ndarray]:
    Xb = _with_bias(X)
    n, m = errors.shape
    z = _soft_assign(theta, X)  # (n, K)
    p_raw = z @ psi.T  # (n, m): gamma(x, h) = z(x)^T Psi(h)
    p = np.clip(p_raw, _EPS, 1.0 - _EPS)
    bce = -(errors * np.log(p) + (1.0 - errors) * np.log1p(-p))
    W = theta[:, :-1]
    loss = float(bce.sum() / (n * m) + 0.5 * weight_decay * np.sum(W**2))
    # dL/dp, zero where the clip is active
    g = (p - errors) / (p * (1.0 - p)) / (n * m)
    g[(p_raw <= _EPS) | (p_raw >= 1.0 - _EPS)] = 0.0
    dz = g @ psi  # (n, K)
    da = z * (dz - (z * dz).sum(axis=1, keepdims=True))  # softmax backward
    grad = da.T @ Xb
    grad[:, :-1] += weight_decay * W
    return loss, grad


def fit_cluster_map(
    X: np.ndarray,
    errors: np.ndarray,
    psi: np.ndarray,
    theta0: np.ndarray,
    weight_decay: float = 1e-4,
    max_iter: int = 200,
) -> tuple[np.ndarray, float, float]:
    """Minimise :func:`cluster_map_loss` from `theta0` with L-BFGS-B. Returns (theta, initial loss, final loss)."""
    theta0, X = _check_theta(theta0, X, "theta0")
    errors = check_errors(errors, "errors", (X.shape[0], None))
    psi = check_errors(psi, "psi", (errors.shape[1], theta0.shape[0]))
    check_float("weight_decay", weight_decay, low=0.0)
    check_int("max_iter", max_iter, low=0)
    shape = theta0.shape

    def fun(flat: np.ndarray) -> tuple[float, np.ndarray]:
        loss, grad = _loss(flat.reshape(shape), X, errors, psi, weight_decay)
        return loss, grad.ravel()

    start, _ = fun(theta0.ravel())
    result = minimize(fun, theta0.ravel(), jac=True, method="L-BFGS-B", options={"maxiter": int(max_iter)})
    return result.x.reshape(shape), float(start), float(result.fun)
