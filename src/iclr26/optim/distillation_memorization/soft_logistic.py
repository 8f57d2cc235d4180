"""Multinomial logistic regression fitted to soft labels by L-BFGS (a scikit-learn classifier).

Paper: "Dataset Distillation for Memorized Data: Soft Labels can Leak Held-Out Teacher Knowledge" (arXiv
2506.14457). The student minimises the convex soft cross-entropy

    L(W, b) = -(1/n) sum_i sum_c T_ic log softmax(W x_i + b)_c + (alpha/2) ||W||_F^2,

with gradient dL/dW = (1/n) (P - T)^T X + alpha W and dL/db = (1/n) sum_i (P_i - T_i), P = softmax(X W^T + b).
Since every row of P - T sums to zero, the iterates started at zero stay row-centred (the softmax gauge is fixed
to sum_c W_c = 0). With targets T = softmax(z_T / tau) of a logistic teacher and |D_S| >= d + 1 generic points,
the unique centred minimiser (alpha = 0) is the teacher's centred (W_T, b_T) / tau: the teacher is recovered.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.optimize import minimize
from scipy.special import log_softmax, softmax
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning, DataConversionWarning
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from iclr26.checks import check_array, check_bool, check_fit_data, check_float, check_int

__all__ = ["SoftLabelLogisticRegression", "soft_cross_entropy_and_grad"]


def soft_cross_entropy_and_grad(
    W: np.ndarray, b: np.ndarray, X: np.ndarray, T: np.ndarray, alpha: float = 0.0
) -> tuple[float, np.ndarray, np.ndarray]:
    """The soft cross-entropy L(W, b) above and its closed-form gradients ``(L, dW, db)``.

    ``W`` is (C, d), ``b`` (C,), ``X`` (n, d), ``T`` (n, C) with rows summing to one.

    Examples
    --------
    >>> loss, dW, db = soft_cross_entropy_and_grad(np.zeros((2, 3)), np.zeros(2), np.ones((4, 3)), np.full((4, 2), .5))
    >>> round(loss, 4), dW.shape
    (0.6931, (2, 3))
    """
    W, b, X, T = (check_array(n, a) for n, a in (("W", W), ("b", b), ("X", X), ("T", T)))
    if W.ndim != 2 or X.ndim != 2 or T.ndim != 2 or X.shape[0] == 0:
        raise ValueError(
            f"W (C, d), X (n, d) and T (n, C) must be 2-D and n >= 1, got {W.shape}, {X.shape}, {T.shape}"
        )
    C, d = W.shape
    if b.shape != (C,) or X.shape[1] != d or T.shape != (X.shape[0], C):
        raise ValueError(f"shapes do not match: W {W.shape}, b {b.shape}, X {X.shape}, T {T.shape}")
    check_float("alpha", alpha, low=0.0)
    return _soft_ce(W, b, X, T, alpha)


def _soft_ce(
    W: np.ndarray, b: np.ndarray, X: np.ndarray, T: np.ndarray, alpha: float
) -> tuple[float, np.ndarray, np.ndarray]:
    n = X.shape[0]
    Z = X @ W.T + b  # z = W x + b
    logP = log_softmax(Z, axis=1)
    loss = -np.sum(T * logP) / n + 0.5 * alpha * np.sum(W * W)  # H(T, softmax(z)) + (alpha/2)||W||^2
    R = (np.exp(logP) - T) / n  # (P - T) / n
    return float(loss), R.T @ X + alpha * W, R.sum(axis=0)


class SoftLabelLogisticRegression(ClassifierMixin, BaseEstimator):
    """Multinomial logistic regression trained on soft targets (or hard labels) by L-BFGS.

    ``fit(X, y)`` accepts either class labels ``y`` (n,) or a probability matrix ``y`` (n, C) of soft targets
    (rows >= 0 summing to one; then ``classes_ = arange(C)``). Hard labels are the one-hot special case.

    Parameters
    ----------
    alpha : L2 penalty on the weights (not the intercept), per sample; 0 is the paper's setting (no weight decay).
        Hard labels on separable data need alpha > 0 for a finite minimiser.
    fit_intercept : fit the bias b.
    max_iter : L-BFGS iterations.
    tol : L-BFGS gradient tolerance (max-norm of the projected gradient).

    Attributes
    ----------
    coef_ : (C, d) row-centred weights. intercept_ : (C,). classes_ : class labels. n_iter_ : L-BFGS iterations.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((50, 3))
    >>> T = softmax(X @ rng.standard_normal((3, 4)), axis=1)
    >>> clf = SoftLabelLogisticRegression().fit(X, T)
    >>> clf.predict_proba(X).shape
    (50, 4)
    """

    def __init__(
        self, alpha: float = 0.0, fit_intercept: bool = True, max_iter: int = 2000, tol: float = 1e-10
    ) -> None:
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol

    def _check_params(self) -> None:
        check_float("alpha", self.alpha, low=0.0)
        check_int("max_iter", self.max_iter, low=1)
        check_float("tol", self.tol, low=0.0, low_open=True)
        check_bool("fit_intercept", self.fit_intercept)

    def _targets(self, y: np.ndarray) -> np.ndarray:
        """Set ``classes_`` and return the (n, C) target matrix for labels or soft targets."""
        y = np.asarray(y)
        if y.ndim == 2 and y.shape[1] == 1:
            warnings.warn(
                "A column-vector y was passed when a 1d array was expected; it is raveled",
                DataConversionWarning,
                stacklevel=3,
            )
            y = y.ravel()
        if y.ndim == 2:
            T = np.asarray(y, dtype=np.float64)
            if not np.all(np.isfinite(T)) or T.min() < 0 or not np.allclose(T.sum(axis=1), 1.0, atol=1e-6):
                raise ValueError("soft targets y (n, C) must be finite, >= 0 and have rows summing to 1")
            self.classes_ = np.arange(T.shape[1])
            return T
        check_classification_targets(y)
        self.classes_, codes = np.unique(y, return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError(f"y needs at least 2 classes (C >= 2), got {len(self.classes_)} class")
        T = np.zeros((len(codes), len(self.classes_)))
        T[np.arange(len(codes)), codes] = 1.0
        return T

    def fit(self, X: np.ndarray, y: np.ndarray) -> SoftLabelLogisticRegression:
        """Minimise the soft cross-entropy of ``softmax(X W^T + b)`` against ``y`` from W = 0, b = 0."""
        self._check_params()
        X, y = check_fit_data(self, X, y, multi_output=True, dtype=np.float64, y_numeric=False)
        T = self._targets(y)
        if T.shape[1] < 2:
            raise ValueError(f"soft targets need C >= 2 columns, got {T.shape[1]}")
        C, d = T.shape[1], X.shape[1]

        def objective(theta: np.ndarray) -> tuple[float, np.ndarray]:
            W = theta[: C * d].reshape(C, d)
            b = theta[C * d :] if self.fit_intercept else np.zeros(C)
            loss, dW, db = _soft_ce(W, b, X, T, float(self.alpha))
            grad = np.concatenate([dW.ravel(), db]) if self.fit_intercept else dW.ravel()
            return loss, grad

        theta0 = np.zeros(C * d + (C if self.fit_intercept else 0))
        res = minimize(
            objective,
            theta0,
            jac=True,
            method="L-BFGS-B",
            options={"maxiter": self.max_iter, "gtol": self.tol, "ftol": 1e-15, "maxcor": 30},
        )
        W = res.x[: C * d].reshape(C, d)
        b = res.x[C * d :] if self.fit_intercept else np.zeros(C)
        self.coef_ = W - W.mean(axis=0)  # fix the softmax gauge: sum_c W_c = 0
        self.intercept_ = b - b.mean()
        self.n_iter_ = int(res.nit)
        if res.nit >= self.max_iter:
            warnings.warn(
                f"L-BFGS did not converge in max_iter={self.max_iter} iterations",
                ConvergenceWarning,
                stacklevel=2,
            )
        return self

    def logits(self, X: np.ndarray) -> np.ndarray:
        """The logits z = W x + b, (n, C), for every class (also when C = 2)."""
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return X @ self.coef_.T + self.intercept_

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        """The logits (n, C); with two classes scikit-learn's convention, z_1 - z_0 of shape (n,)."""
        z = self.logits(X)
        return z[:, 1] - z[:, 0] if z.shape[1] == 2 else z

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """softmax(W x + b), (n, C)."""
        return softmax(self.logits(X), axis=1)

    def predict_log_proba(self, X: np.ndarray) -> np.ndarray:
        """log softmax(W x + b), (n, C)."""
        return log_softmax(self.logits(X), axis=1)

    def predict(self, X: np.ndarray) -> np.ndarray:
        """The class of the largest logit."""
        scores = self.logits(X)
        return self.classes_[np.argmax(scores, axis=1)]
