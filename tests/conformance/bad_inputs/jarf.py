"""Bad input to the JARF estimators, the EJOP helpers and the Rotation Forest baseline (arXiv 2512.08306)."""

import numpy as np
from sklearn.svm import SVC

from iclr26.science.jarf import (
    EJOPTransformer,
    JARFClassifier,
    JARFRegressor,
    RotationForestClassifier,
    RotationForestRegressor,
    ejop_from_callable,
    fd_jacobians,
    normalize_ejop,
    preconditioner,
    sorted_eigh,
    subspace_overlap,
    surrogate_ejop,
)

X = np.random.default_rng(0).normal(size=(30, 3))
Y = (X[:, 0] > 0).astype(int)
X_NAN = X.copy()
X_NAN[0, 0] = np.nan
X_INF = X.copy()
X_INF[1, 2] = np.inf
SMALL = {"n_estimators": 3, "n_gradient_samples": 10}

CASES = [
    (lambda: JARFClassifier(fd_step=0.0, **SMALL).fit(X, Y), ValueError, ["fd_step", "> 0"]),
    (lambda: JARFRegressor(fd_step=-1.0, **SMALL).fit(X, X[:, 0]), ValueError, ["fd_step"]),
    (lambda: JARFClassifier(epsilon=-1e-3, **SMALL).fit(X, Y), ValueError, ["epsilon", ">= 0"]),
    (
        lambda: JARFClassifier(n_estimators=3, n_gradient_samples=0).fit(X, Y),
        ValueError,
        ["n_gradient_samples"],
    ),
    (lambda: JARFClassifier(transform="cholesky", **SMALL).fit(X, Y), ValueError, ["transform", "cholesky"]),
    (lambda: EJOPTransformer(transform="pca", **SMALL).fit(X, Y), ValueError, ["transform"]),
    (lambda: JARFClassifier(surrogate=SVC(), **SMALL).fit(X, Y), ValueError, ["surrogate", "predict_proba"]),
    (lambda: JARFClassifier(**SMALL).fit(X, np.zeros(30, dtype=int)), ValueError, ["one class"]),
    (lambda: JARFClassifier(**SMALL).fit(X_NAN, Y), ValueError, ["NaN"]),
    (lambda: JARFRegressor(**SMALL).fit(X_INF, X[:, 0]), ValueError, ["infinity"]),
    (lambda: ejop_from_callable(lambda Z: Z, X, 0.0), ValueError, ["fd_step", "> 0"]),
    (lambda: preconditioner(np.eye(3), 1e-3, "qr"), ValueError, ["transform"]),
    (
        lambda: RotationForestClassifier(n_features_per_subset=0).fit(X, Y),
        ValueError,
        ["n_features_per_subset"],
    ),
]

CASES += [
    (lambda: JARFClassifier(random_state=-1, **SMALL).fit(X, Y), ValueError, ["random_state", "-1"]),
    (lambda: JARFClassifier(random_state=1.5, **SMALL).fit(X, Y), ValueError, ["random_state", "1.5"]),
    (lambda: JARFClassifier(estimator=3, **SMALL).fit(X, Y), TypeError, ["estimator", "scikit-learn"]),
    (lambda: JARFRegressor(surrogate=3, **SMALL).fit(X, X[:, 0]), TypeError, ["surrogate", "scikit-learn"]),
    (lambda: JARFRegressor(**SMALL).fit(X, np.array(["a"] * 30)), ValueError, ["y", "numeric"]),
    (
        lambda: JARFClassifier(n_estimators=True, n_gradient_samples=10).fit(X, Y),
        ValueError,
        ["n_estimators"],
    ),
    (lambda: ejop_from_callable(3, X, 0.1), TypeError, ["f must", "callable"]),
    (
        lambda: ejop_from_callable(lambda Z: np.full(len(Z), np.nan), X, 0.1),
        ValueError,
        ["f returned", "NaN"],
    ),
    (
        lambda: ejop_from_callable(lambda Z: np.zeros((len(Z), 2, 2)), X, 0.1),
        ValueError,
        ["f must return", "(m, C)"],
    ),
    (
        lambda: ejop_from_callable(lambda Z: np.array(["a"] * len(Z)), X, 0.1),
        ValueError,
        ["f must return numbers"],
    ),
    (lambda: fd_jacobians(lambda Z: Z, "abc", 0.1), TypeError, ["X must", "real numbers"]),
    (lambda: normalize_ejop("abc"), TypeError, ["H must", "real numbers"]),
    (lambda: preconditioner(np.ones((2, 3)), 1e-3), ValueError, ["H must", "square"]),
    (lambda: preconditioner(np.full((3, 3), np.nan), 1e-3), ValueError, ["H must", "NaN"]),
    (lambda: sorted_eigh(np.array([[1.0, 5.0], [0.0, 1.0]])), ValueError, ["H must", "symmetric"]),
    (lambda: sorted_eigh(np.zeros((0, 0))), ValueError, ["H must", "non-empty"]),
    (lambda: subspace_overlap(np.eye(3)[:, :2], np.eye(4)[:, :2]), ValueError, ["U and B", "rows"]),
    (lambda: subspace_overlap(np.ones(3), np.ones(3)), ValueError, ["U must", "2-D"]),
    (lambda: surrogate_ejop(None, X, 0.1, True), TypeError, ["surrogate", "predict_proba"]),
    (lambda: surrogate_ejop(SVC().fit(X, Y), X, 0.1, "yes"), TypeError, ["classification", "bool"]),
    (
        lambda: RotationForestClassifier(n_estimators=2, random_state=-1).fit(X, Y),
        ValueError,
        ["random_state", "-1"],
    ),
    (
        lambda: RotationForestRegressor(n_estimators=2, sample_fraction=True).fit(X, X[:, 0]),
        ValueError,
        ["sample_fraction"],
    ),
]
