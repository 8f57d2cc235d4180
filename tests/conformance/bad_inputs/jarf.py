"""Bad input to the JARF estimators, the EJOP helpers and the Rotation Forest baseline (arXiv 2512.08306)."""

import numpy as np
from sklearn.svm import SVC

from iclr26.science.jarf import (
    EJOPTransformer,
    JARFClassifier,
    JARFRegressor,
    RotationForestClassifier,
    ejop_from_callable,
    preconditioner,
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
