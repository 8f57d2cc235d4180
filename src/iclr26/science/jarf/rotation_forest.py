"""Rotation Forest (Rodriguez, Kuncheva & Alonso, 2006), written here as the oblique-forest baseline.

Per tree: split the features at random into groups of ``n_features_per_subset``; for every group, draw a random
non-empty subset of classes (classification only) and a ``sample_fraction`` bootstrap of their points, and fit a
PCA on that group's columns; the loadings form a block-diagonal rotation R (d x d). The tree is trained on the
whole centred training set rotated by R. Class probabilities (or predictions) are averaged over trees.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from iclr26.checks import check_fit_data, check_float, check_int
from iclr26.science.jarf.estimators import check_random_state_param

__all__ = ["RotationForestClassifier", "RotationForestRegressor"]


def _rotation(
    X: np.ndarray, y: np.ndarray | None, m: int, frac: float, rng: np.random.RandomState
) -> np.ndarray:
    """One block rotation matrix (d x d) from PCAs on random feature groups of size `m`."""
    n, d = X.shape
    perm = rng.permutation(d)
    R = np.zeros((d, d))
    for start in range(0, d, m):
        cols = perm[start : start + m]
        rows = np.arange(n)
        if y is not None:
            classes = np.unique(y)
            keep = classes[rng.rand(classes.size) < 0.5]
            if keep.size == 0:
                keep = classes[[rng.randint(classes.size)]]
            rows = rows[np.isin(y, keep)]
        take = rows[rng.randint(rows.size, size=max(2, int(round(frac * rows.size))))]
        sub = X[np.ix_(take, cols)]
        sub = sub - sub.mean(axis=0)
        _, _, vt = np.linalg.svd(sub, full_matrices=True)
        R[np.ix_(cols, cols)] = vt.T  # columns: principal axes (full basis even when rank-deficient)
    return R


class _RotationForestBase(BaseEstimator):
    _classification = True

    def __init__(
        self,
        n_estimators: int = 100,
        n_features_per_subset: int = 3,
        sample_fraction: float = 0.75,
        max_features: Any = 1.0,
        random_state: Any = None,
    ) -> None:
        self.n_estimators = n_estimators
        self.n_features_per_subset = n_features_per_subset
        self.sample_fraction = sample_fraction
        self.max_features = max_features
        self.random_state = random_state

    def fit(self, X: Any, y: Any) -> _RotationForestBase:
        """Fit `n_estimators` trees, each on the centred data rotated by its own block-PCA rotation."""
        for name in ("n_estimators", "n_features_per_subset"):
            check_int(name, getattr(self, name), low=1)
        check_float("sample_fraction", self.sample_fraction, 0.0, 1.0, low_open=True)
        mf = self.max_features
        if isinstance(mf, bool) or not (mf is None or mf in ("sqrt", "log2") or isinstance(mf, (int, float))):
            raise TypeError(f"max_features must be None, 'sqrt', 'log2', an int or a float, got {mf!r}")
        if isinstance(mf, float):
            check_float("max_features", mf, 0.0, 1.0, low_open=True)
        elif isinstance(mf, int):
            check_int("max_features", mf, low=1)
        check_random_state_param(self.random_state)
        f = self.sample_fraction
        X, y = check_fit_data(self, X, y, dtype=np.float64, y_numeric=not self._classification)
        if self._classification:
            check_classification_targets(y)
            self.classes_, y_enc = np.unique(y, return_inverse=True)
            if self.classes_.size < 2:
                raise ValueError("y contains only one class; a classifier needs at least 2 classes")
        rng = check_random_state(self.random_state)
        self.mean_ = X.mean(axis=0)
        Xc = X - self.mean_
        tree_cls = DecisionTreeClassifier if self._classification else DecisionTreeRegressor
        self.rotations_, self.estimators_ = [], []
        for _ in range(self.n_estimators):
            R = _rotation(Xc, y_enc if self._classification else None, self.n_features_per_subset, f, rng)
            tree = tree_cls(max_features=self.max_features, random_state=rng.randint(np.iinfo(np.int32).max))
            tree.fit(Xc @ R, y_enc if self._classification else y)
            self.rotations_.append(R)
            self.estimators_.append(tree)
        return self

    def _centred(self, X: Any) -> np.ndarray:
        check_is_fitted(self, "estimators_")
        return validate_data(self, X, dtype=np.float64, reset=False) - self.mean_


class RotationForestClassifier(ClassifierMixin, _RotationForestBase):
    """Rotation Forest classifier: averaged class probabilities of trees on block-PCA-rotated features."""

    _classification = True

    def predict_proba(self, X: Any) -> np.ndarray:
        """Mean class probabilities over the trees."""
        Xc = self._centred(X)
        proba = np.zeros((Xc.shape[0], self.classes_.size))
        for R, tree in zip(self.rotations_, self.estimators_):
            proba[:, tree.classes_.astype(int)] += tree.predict_proba(Xc @ R)
        return proba / len(self.estimators_)

    def predict(self, X: Any) -> np.ndarray:
        """The class of largest mean probability."""
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]


class RotationForestRegressor(RegressorMixin, _RotationForestBase):
    """Rotation Forest regressor (no class subsets): mean prediction of trees on block-PCA-rotated features."""

    _classification = False

    def predict(self, X: Any) -> np.ndarray:
        """Mean prediction over the trees."""
        Xc = self._centred(X)
        return np.mean([tree.predict(Xc @ R) for R, tree in zip(self.rotations_, self.estimators_)], axis=0)
