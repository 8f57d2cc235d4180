"""JARF estimators: an EJOP-preconditioned axis-aligned forest, and the supervised EJOP transformer alone.

Fit (both estimators): standardise X; fit a surrogate (a random forest by default) on (X, y); compute the
finite-difference EJOP of its ``predict_proba`` (classification) or ``predict`` (regression) on at most
``n_gradient_samples`` training points; build the preconditioner P (see :mod:`iclr26.science.jarf.ejop`);
fit the final forest on ``standardize(X) @ P`` (or ``[standardize(X), standardize(X) @ P]`` with
``augment=True``). Prediction applies the same map to new points.
"""

from __future__ import annotations

import time
from numbers import Integral
from typing import Any

import numpy as np
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    RegressorMixin,
    TransformerMixin,
    clone,
    is_classifier,
)
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
from sklearn.preprocessing import StandardScaler
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from iclr26.checks import check_array, check_bool, check_choice, check_fit_data, check_float, check_int
from iclr26.science.jarf.ejop import (
    TRANSFORMS,
    ejop_from_callable,
    normalize_ejop,
    preconditioner,
    sorted_eigh,
)

__all__ = ["EJOPTransformer", "JARFClassifier", "JARFRegressor", "surrogate_ejop"]


class _TransformParam:
    """Data descriptor for the ``transform`` hyper-parameter (a string such as ``"sqrt"``).

    scikit-learn treats any object with a ``transform`` attribute as a transformer and calls it, so a string
    parameter of that name breaks its conventions. The value lives in the instance ``__dict__`` (so
    ``get_params``/``set_params``/``clone``/pickle work as usual), while attribute access gives the
    transformer's ``transform`` method (:class:`EJOPTransformer`) or raises AttributeError (the forests, which
    are not transformers). Read the value with ``get_params()["transform"]``.
    """

    def __init__(self, method: str | None = None) -> None:
        self.method = method

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        if self.method is None:
            raise AttributeError(
                f"{type(obj).__name__} is not a transformer; read its 'transform' parameter with "
                "get_params()['transform']"
            )
        return getattr(obj, self.method)

    def __set__(self, obj: Any, value: Any) -> None:
        obj.__dict__["transform"] = value


class _TransformParamMixin:
    """``get_params`` that reads the ``transform`` parameter from the instance dict (see _TransformParam)."""

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """Parameters of this estimator (and of contained estimators when `deep`)."""
        out: dict[str, Any] = {}
        for key in self._get_param_names():  # type: ignore[attr-defined]
            value = self.__dict__.get(key) if key == "transform" else getattr(self, key)
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                out.update((f"{key}__{k}", v) for k, v in value.get_params().items())
            out[key] = value
        return out


def _transform_kind(est: Any) -> str:
    return est.__dict__.get("transform")


def _check_common(est: Any) -> None:
    """Validate the hyper-parameters shared by the transformer and both forests (clear ValueErrors)."""
    check_float("fd_step", est.fd_step, low=0.0, low_open=True)
    check_float("epsilon", est.epsilon, low=0.0)
    if est.n_gradient_samples is not None:
        check_int("n_gradient_samples (None for all points)", est.n_gradient_samples, low=1)
    check_choice("transform", _transform_kind(est), TRANSFORMS)
    check_int("n_estimators", est.n_estimators, low=1)
    check_bool("augment", est.augment)
    check_random_state_param(est.random_state)
    for name in ("surrogate", "estimator"):
        model = getattr(est, name, None)
        if model is not None and not (callable(getattr(model, "fit", None)) and hasattr(model, "get_params")):
            raise TypeError(f"{name} must be None or a scikit-learn estimator, got {type(model).__name__}")


def check_random_state_param(random_state: Any) -> None:
    """None, a numpy RandomState, or an int seed in [0, 2**32 - 1] (what scikit-learn accepts)."""
    if random_state is not None and not isinstance(random_state, np.random.RandomState):
        check_int("random_state (None, a RandomState or a seed)", random_state, 0, 2**32 - 1)


def _int_seed(random_state: Any) -> int:
    """An int seed from `random_state` (kept as is when it is already an int)."""
    if isinstance(random_state, Integral) and not isinstance(random_state, bool):
        return int(random_state)
    return int(check_random_state(random_state).randint(np.iinfo(np.int32).max))


def _seeded(est: BaseEstimator, seed: int) -> BaseEstimator:
    """A clone of `est` with ``random_state=seed`` when it has that parameter and it is unset."""
    out = clone(est)
    params = out.get_params(deep=False)
    if "random_state" in params and params["random_state"] is None:
        out.set_params(random_state=seed)
    return out


def _single_class_error(y: np.ndarray) -> None:
    if np.unique(y).size < 2:
        raise ValueError(
            "y contains only one class; JARF needs at least 2 classes to estimate class-probability gradients"
        )


def surrogate_ejop(surrogate: BaseEstimator, X_std: np.ndarray, h: float, classification: bool) -> np.ndarray:
    """The raw finite-difference EJOP of a fitted surrogate at the (standardised) points `X_std`."""
    check_bool("classification", classification)
    X_std = check_array("X_std", X_std, ndim=2, finite=True)
    if X_std.size == 0:
        raise ValueError(f"X_std must be a non-empty 2-D array (n, d), got shape {X_std.shape}")
    method = "predict_proba" if classification else "predict"
    if not callable(getattr(surrogate, method, None)):
        raise TypeError(f"surrogate must be a fitted estimator with {method}, got {type(surrogate).__name__}")
    f = surrogate.predict_proba if classification else surrogate.predict
    return ejop_from_callable(f, X_std, h)


class EJOPTransformer(_TransformParamMixin, TransformerMixin, BaseEstimator, auto_wrap_output_keys=None):
    """Supervised linear map ``x -> standardize(x) @ P`` with P from the EJOP/EGOP of a fitted surrogate.

    Parameters
    ----------
    surrogate : estimator or None
        Model whose finite-difference Jacobian defines the EJOP (a classifier needs ``predict_proba``). None: a
        random forest with ``n_estimators`` trees, classifier or regressor by the type of ``y``.
    n_estimators : trees of the default surrogate.
    fd_step : central-difference step h in standardised units (> 0).
    n_gradient_samples : training points (subsampled without replacement) at which the Jacobian is taken;
        None or >= n uses all of them.
    epsilon : ridge added to the trace-normalised EJOP (>= 0).
    transform : ``"sqrt"`` (symmetric square root) or ``"eig"`` (eigenvector projection, scaled).
    augment : output ``[standardize(x), standardize(x) @ P]`` instead of ``standardize(x) @ P``.
    random_state : seed of the surrogate and of the gradient subsample.
    task : ``"auto"`` (a given surrogate's type, else the type of ``y``), ``"classification"`` (EJOP of
        ``predict_proba``) or ``"regression"`` (EGOP of ``predict``).

    Attributes
    ----------
    scaler_, surrogate_, ejop_ (trace-normalised, trace = d), ejop_trace_ (trace before normalisation),
    eigenvalues_ (of ``ejop_ + epsilon I``, descending), eigenvectors_, preconditioner_, gradient_indices_,
    ejop_degenerate_ (the surrogate was flat at every probed point and P was built from the identity),
    classification_, timings_ (seconds: surrogate fit, EJOP), n_features_in_.
    """

    transform = _TransformParam("_transform_features")

    def __init__(
        self,
        surrogate: BaseEstimator | None = None,
        n_estimators: int = 200,
        fd_step: float = 0.25,
        n_gradient_samples: int | None = 2000,
        epsilon: float = 1e-3,
        transform: str = "sqrt",
        augment: bool = False,
        random_state: Any = None,
        task: str = "auto",
    ) -> None:
        self.surrogate = surrogate
        self.n_estimators = n_estimators
        self.fd_step = fd_step
        self.n_gradient_samples = n_gradient_samples
        self.epsilon = epsilon
        self.transform = transform
        self.augment = augment
        self.random_state = random_state
        self.task = task

    def _is_classification(self, y: np.ndarray) -> bool:
        if self.task not in ("auto", "classification", "regression"):
            raise ValueError(f"task must be 'auto', 'classification' or 'regression', got {self.task!r}")
        if self.task != "auto":
            return self.task == "classification"
        if self.surrogate is not None:
            return is_classifier(self.surrogate)
        return type_of_target(y) in ("binary", "multiclass")

    def fit(self, X: Any, y: Any) -> EJOPTransformer:
        """Standardise X, fit the surrogate, estimate the EJOP and build the preconditioner."""
        _check_common(self)
        X, y = check_fit_data(self, X, y, dtype=np.float64, y_numeric=False, multi_output=True)
        self.classification_ = self._is_classification(y)
        if self.classification_:
            check_classification_targets(y)
            _single_class_error(y)
        seed = _int_seed(self.random_state)
        if self.surrogate is None:
            forest = RandomForestClassifier if self.classification_ else RandomForestRegressor
            surrogate = forest(n_estimators=self.n_estimators, random_state=seed)
        else:
            surrogate = _seeded(self.surrogate, seed)
        if self.classification_ and not hasattr(surrogate, "predict_proba"):
            raise ValueError(
                f"surrogate {type(surrogate).__name__} has no predict_proba; a classification surrogate must "
                "output class probabilities"
            )
        self.scaler_ = StandardScaler().fit(X)
        Xs = self.scaler_.transform(X)
        t0 = time.perf_counter()
        self.surrogate_ = surrogate.fit(Xs, y)
        t1 = time.perf_counter()
        n = Xs.shape[0]
        m = n if self.n_gradient_samples is None else min(int(self.n_gradient_samples), n)
        if m < n:
            idx = np.sort(check_random_state(seed).choice(n, size=m, replace=False))
        else:
            idx = np.arange(n)
        self.gradient_indices_ = idx
        raw = surrogate_ejop(self.surrogate_, Xs[idx], self.fd_step, self.classification_)
        self.ejop_trace_ = float(np.trace(raw))
        self.ejop_, self.ejop_degenerate_ = normalize_ejop(raw)
        self.preconditioner_, self.eigenvalues_ = preconditioner(
            self.ejop_, self.epsilon, _transform_kind(self)
        )
        self.eigenvectors_ = sorted_eigh(self.ejop_)[1]
        self.timings_ = {"surrogate_s": t1 - t0, "ejop_s": time.perf_counter() - t1}
        return self

    def _apply(self, Xs: np.ndarray) -> np.ndarray:
        Z = Xs @ self.preconditioner_
        return np.hstack([Xs, Z]) if self.augment else Z

    def _transform_features(self, X: Any) -> np.ndarray:
        """Map X to ``standardize(X) @ P`` (or the augmented ``[standardize(X), standardize(X) @ P]``)."""
        check_is_fitted(self, "preconditioner_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self._apply(self.scaler_.transform(X))


class _JARFBase(_TransformParamMixin, BaseEstimator):
    """Shared fit/transform logic of :class:`JARFClassifier` and :class:`JARFRegressor`."""

    _classification = True
    transform = _TransformParam(None)

    def __init__(
        self,
        estimator: BaseEstimator | None = None,
        surrogate: BaseEstimator | None = None,
        n_estimators: int = 200,
        fd_step: float = 0.25,
        n_gradient_samples: int | None = 2000,
        epsilon: float = 1e-3,
        transform: str = "sqrt",
        augment: bool = False,
        random_state: Any = None,
    ) -> None:
        self.estimator = estimator
        self.surrogate = surrogate
        self.n_estimators = n_estimators
        self.fd_step = fd_step
        self.n_gradient_samples = n_gradient_samples
        self.epsilon = epsilon
        self.transform = transform
        self.augment = augment
        self.random_state = random_state

    def _default_forest(self, seed: int) -> BaseEstimator:
        forest = RandomForestClassifier if self._classification else RandomForestRegressor
        return forest(n_estimators=self.n_estimators, random_state=seed)

    def fit(self, X: Any, y: Any) -> _JARFBase:
        """Fit the surrogate, the EJOP preconditioner and the final forest on the preconditioned features."""
        _check_common(self)
        X, y = check_fit_data(
            self, X, y, dtype=np.float64, y_numeric=not self._classification, multi_output=False
        )
        if self._classification:
            check_classification_targets(y)
            _single_class_error(y)
        elif not np.issubdtype(np.asarray(y).dtype, np.number):
            raise ValueError(f"y must hold numeric regression targets, got dtype {np.asarray(y).dtype}")
        seed = _int_seed(self.random_state)
        surrogate = self.surrogate if self.surrogate is not None else self._default_forest(seed)
        if self._classification and not hasattr(surrogate, "predict_proba"):
            raise ValueError(
                f"surrogate {type(surrogate).__name__} has no predict_proba; a classification surrogate must "
                "output class probabilities"
            )
        self.transformer_ = EJOPTransformer(
            surrogate=surrogate,
            n_estimators=self.n_estimators,
            fd_step=self.fd_step,
            n_gradient_samples=self.n_gradient_samples,
            epsilon=self.epsilon,
            transform=_transform_kind(self),
            augment=self.augment,
            random_state=seed,
            task="classification" if self._classification else "regression",
        )
        self.transformer_.fit(X, y)
        for name in ("scaler_", "ejop_", "preconditioner_", "eigenvalues_", "eigenvectors_"):
            setattr(self, name, getattr(self.transformer_, name))
        final = self.estimator if self.estimator is not None else self._default_forest(seed)
        t0 = time.perf_counter()
        Xt = self.transformer_._apply(self.scaler_.transform(X))
        self.estimator_ = _seeded(final, seed).fit(Xt, y)
        self.timings_ = {**self.transformer_.timings_, "final_s": time.perf_counter() - t0}
        if self._classification:
            self.classes_ = self.estimator_.classes_
        return self

    def _features(self, X: Any) -> np.ndarray:
        check_is_fitted(self, "estimator_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self.transformer_._apply(self.scaler_.transform(X))

    def predict(self, X: Any) -> np.ndarray:
        """Predict with the final forest on the preconditioned features."""
        Z = self._features(X)
        return self.estimator_.predict(Z)


class JARFClassifier(ClassifierMixin, _JARFBase):
    """Jacobian-aligned random forest classifier (EJOP of ``predict_proba`` as the preconditioner).

    Parameters
    ----------
    estimator : final classifier fitted on the preconditioned features (None: ``RandomForestClassifier`` with
        ``n_estimators`` trees).
    surrogate : classifier with ``predict_proba`` whose Jacobian defines the EJOP (None: the same forest).
    n_estimators : trees of the default forests.
    fd_step, n_gradient_samples, epsilon, transform, augment, random_state : see :class:`EJOPTransformer`.

    Attributes
    ----------
    ejop_, preconditioner_, eigenvalues_, eigenvectors_, scaler_, transformer_ (the fitted
    :class:`EJOPTransformer`), estimator_ (the final forest), classes_, timings_, n_features_in_.

    >>> from sklearn.datasets import make_classification
    >>> X, y = make_classification(n_samples=120, n_features=4, random_state=0)
    >>> clf = JARFClassifier(n_estimators=10, n_gradient_samples=40, random_state=0).fit(X, y)
    >>> clf.preconditioner_.shape, round(float(np.trace(clf.ejop_)), 6)
    ((4, 4), 4.0)
    """

    _classification = True

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities of the final forest on the preconditioned features."""
        Z = self._features(X)
        return self.estimator_.predict_proba(Z)


class JARFRegressor(RegressorMixin, _JARFBase):
    """Jacobian-aligned random forest regressor (EGOP of ``predict`` as the preconditioner).

    Same parameters and attributes as :class:`JARFClassifier`, with regressors in place of classifiers.
    """

    _classification = False
