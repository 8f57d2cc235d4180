"""Recursive Feature Machines as scikit-learn estimators: FACT-RFM and NFA-RFM, regressors and classifiers.

Paper: "FACT: a first-principles alternative to the Neural Feature Ansatz ..." (OpenReview j4964wtJMz, arXiv
2507.05644). :class:`FactRFM` defaults to the FACT update ``M <- (F F^T)^{1/2}``; :class:`RFM` to the NFA
update ``M <- AGOP^s``; both take ``update`` in {"fact", "fact_geomean", "nfa"}, ``kernel`` in {"laplace",
"gaussian"}, ``center_grads`` and ``normalize`` (see :mod:`.kernel_features`). Classifiers fit one-vs-all 0/1
targets and predict the arg-max class. The official RFM grokking setting (nmallinar/rfm-grokking) is
``kernel="gaussian", bandwidth=2.5, ridge=0.0, center_grads=True, normalize=False``.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.preprocessing import LabelBinarizer
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from iclr26.checks import check_bool, check_choice, check_fit_data, check_float, check_int
from iclr26.optim.fact_nfa.kernel_features import KERNELS, UPDATES, kernel_matrix, rfm_iterates

__all__ = ["RFM", "FactRFM", "FactRFMClassifier", "RFMClassifier"]


class _RFMBase(BaseEstimator):
    def __init__(
        self,
        iters: int = 5,
        bandwidth: float = 10.0,
        ridge: float = 1e-3,
        update: str = "fact",
        nfa_power: float = 0.5,
        kernel: str = "laplace",
        center_grads: bool = False,
        normalize: bool = True,
    ) -> None:
        self.iters = iters
        self.bandwidth = bandwidth
        self.ridge = ridge
        self.update = update
        self.nfa_power = nfa_power
        self.kernel = kernel
        self.center_grads = center_grads
        self.normalize = normalize

    def _check_params(self) -> str:
        check_int("iters", self.iters, low=0)
        check_float("bandwidth", self.bandwidth, low=0.0, low_open=True)
        check_float("ridge", self.ridge, low=0.0)
        check_float("nfa_power", self.nfa_power, 0.0, 1.0, low_open=True)
        check_choice("update", self.update, UPDATES)
        check_choice("kernel", self.kernel, KERNELS)
        for name in ("center_grads", "normalize"):
            try:
                check_bool(name, getattr(self, name))
            except TypeError as err:  # an estimator parameter: a ValueError, as it always was
                raise ValueError(str(err)) from None
        return self.update

    def _fit_targets(self, X: np.ndarray, Y: np.ndarray) -> None:
        update = self._check_params()
        self.X_fit_ = X
        iterates = rfm_iterates(
            X,
            Y,
            int(self.iters),
            float(self.bandwidth),
            float(self.ridge),
            update,
            float(self.nfa_power),
            kernel=self.kernel,
            center_grads=self.center_grads,
            normalize=self.normalize,
        )
        for M, alpha in iterates:
            self.M_, self.alpha_ = M, alpha

    def _decision(self, X: np.ndarray) -> np.ndarray:
        check_is_fitted(self, "alpha_")
        X = validate_data(self, X, reset=False)
        return kernel_matrix(X, self.X_fit_, self.M_, float(self.bandwidth), self.kernel) @ self.alpha_


class FactRFM(RegressorMixin, _RFMBase):
    """FACT-RFM regressor: Mahalanobis kernel ridge with the FACT feature update.

    Parameters
    ----------
    iters : number of feature updates (0 gives plain kernel ridge, M = I).
    bandwidth : L in ``exp(-||x - z||_M / L)`` (Laplace) or ``exp(-||x - z||_M^2 / (2 L^2))`` (Gaussian).
    ridge : ridge of the kernel solve (>= 0; 0 interpolates, as the official RFM grokking code).
    update : "fact" (default here), "fact_geomean" or "nfa".
    nfa_power : s of the NFA update ``M <- AGOP^s``, in (0, 1].
    kernel : "laplace" (default) or "gaussian".
    center_grads : centre the input gradients over the training points (per output) before the update.
    normalize : divide each new M by its largest eigenvalue (default True).

    Attributes
    ----------
    M_ : the learned feature matrix (largest eigenvalue 1 when `normalize`); alpha_ : the kernel coefficients.

    Example
    -------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((60, 4)); y = np.tanh(X[:, 0])
    >>> model = FactRFM(iters=3).fit(X, y)
    >>> model.predict(X[:2]).shape, model.M_.shape
    ((2,), (4, 4))
    """

    def fit(self, X: np.ndarray, y: np.ndarray) -> FactRFM:
        X, y = check_fit_data(self, X, y, multi_output=True, y_numeric=True, dtype=np.float64)
        self._single_ = y.ndim == 1
        self._fit_targets(X, y.reshape(len(y), -1).astype(np.float64))
        return self

    def predict(self, X: np.ndarray) -> np.ndarray:
        out = self._decision(X)
        return out[:, 0] if self._single_ else out

    def __sklearn_tags__(self):  # noqa: D105
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags


class RFM(FactRFM):
    """NFA-RFM regressor: as :class:`FactRFM` with the default ``update="nfa"`` (``M <- AGOP^s``).

    Example
    -------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).standard_normal((40, 3))
    >>> RFM(iters=2, nfa_power=1.0).fit(X, X[:, 0] ** 2).predict(X[:1]).shape
    (1,)
    """

    def __init__(
        self,
        iters: int = 5,
        bandwidth: float = 10.0,
        ridge: float = 1e-3,
        update: str = "nfa",
        nfa_power: float = 0.5,
        kernel: str = "laplace",
        center_grads: bool = False,
        normalize: bool = True,
    ) -> None:
        super().__init__(iters, bandwidth, ridge, update, nfa_power, kernel, center_grads, normalize)


class FactRFMClassifier(ClassifierMixin, _RFMBase):
    """FACT-RFM classifier: one-vs-all 0/1 targets, arg-max prediction; parameters as :class:`FactRFM`.

    Example
    -------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).standard_normal((40, 3)); y = np.where(X[:, 0] > 0, "a", "b")
    >>> model = FactRFMClassifier(iters=2).fit(X, y)
    >>> model.classes_.tolist(), bool((model.predict(X) == y).mean() > 0.9)
    (['a', 'b'], True)
    """

    def fit(self, X: np.ndarray, y: np.ndarray) -> FactRFMClassifier:
        X, y = check_fit_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        self._binarizer_ = LabelBinarizer().fit(y)
        self.classes_ = self._binarizer_.classes_
        Y = self._binarizer_.transform(y).astype(np.float64)
        if Y.shape[1] == 1:  # two classes: one column per class for the arg-max rule
            Y = np.hstack([1.0 - Y, Y])
        self._fit_targets(X, Y)
        return self

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        """One-vs-all scores (n, n_classes); for two classes, score(classes_[1]) - score(classes_[0]), (n,)."""
        scores = self._decision(X)
        return scores[:, 1] - scores[:, 0] if scores.shape[1] == 2 else scores

    def predict(self, X: np.ndarray) -> np.ndarray:
        winners = np.argmax(self._decision(X), axis=1)
        return self.classes_[winners]


class RFMClassifier(FactRFMClassifier):
    """NFA-RFM classifier: as :class:`FactRFMClassifier` with the default ``update="nfa"``.

    Example
    -------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).standard_normal((40, 3))
    >>> RFMClassifier(iters=1).fit(X, X[:, 1] > 0).classes_.tolist()
    [False, True]
    """

    def __init__(
        self,
        iters: int = 5,
        bandwidth: float = 10.0,
        ridge: float = 1e-3,
        update: str = "nfa",
        nfa_power: float = 0.5,
        kernel: str = "laplace",
        center_grads: bool = False,
        normalize: bool = True,
    ) -> None:
        super().__init__(iters, bandwidth, ridge, update, nfa_power, kernel, center_grads, normalize)
