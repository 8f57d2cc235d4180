"""The dynamic LLM pool shared by every router: add or remove LLMs, predict errors, route, trace a curve.

A router here is a scikit-learn style estimator. ``fit`` learns whatever depends on prompts only (clusters, a
cluster map, the validation prompts' neighbourhoods); the test pool H_te is then built one LLM at a time with
``add_llm(name, val_errors, cost)``, where ``val_errors`` are the LLM's errors on the N validation prompts
S_val. Routing is the plug-in estimate of the Bayes-optimal rule (UniRoute, ICLR 2026, ka82fvJ5f1, eq. for
r*):

    r(x) = argmin_{h in H_te} gamma(x, h) + lambda c(h),      gamma(x, h) ~ P(l(x, y, h) = 1 | x)

Subclasses define ``_llm_feature(val_errors)`` (the LLM's representation, e.g. Psi_K(h)) and
``_predict(X)`` (gamma for the whole pool).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from iclr26.checks import check_float
from iclr26.inference.uniroute.checks import check_cost, check_embeddings, check_errors, is_text
from iclr26.inference.uniroute.curve import (
    DeferralCurve,
    curve_from_routes,
    lambda_grid,
    normalize_costs,
    route_scores,
)

__all__ = ["PoolRouter"]


class PoolRouter(BaseEstimator):
    """Base class: a pool of named LLMs with costs and per-LLM features, and the routing rule over it.

    Fitted attributes (set by a subclass's ``fit`` through ``_reset_pool``): ``llm_names_`` (list),
    ``llm_costs_`` (pool,), ``llm_features_`` (pool, F), ``n_val_`` (N, the number of validation prompts).
    """

    embedder: Any = None

    # --- the pool ---------------------------------------------------------------------------------------------
    def _reset_pool(self, n_val: int, n_feature: int) -> None:
        self.n_val_ = int(n_val)
        self.llm_names_: list[str] = []
        self.llm_costs_ = np.empty(0)
        self.llm_features_ = np.empty((0, n_feature))

    def _llm_feature(self, val_errors: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _predict(self, X: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def add_llm(self, name: str, val_errors: Any, cost: float) -> PoolRouter:
        """Add an LLM to the pool from its errors on the N validation prompts (1 = wrong) and its cost > 0.

        No retraining: the LLM is represented by a feature computed from `val_errors`. Returns self.
        """
        check_is_fitted(self, "n_val_")
        if not isinstance(name, str) or not name:
            raise ValueError(f"name must be a non-empty str, got {name!r}")
        if name in self.llm_names_:
            raise ValueError(f"name {name!r} is already in the pool; remove_llm it first")
        errors = check_errors(val_errors, "val_errors")
        if errors.ndim != 1 or errors.size != self.n_val_:
            raise ValueError(
                f"val_errors of {name!r} must have length N = {self.n_val_} (one error per validation prompt), "
                f"got shape {errors.shape}"
            )
        cost = check_cost(cost, f"cost of {name!r}")
        feature = self._llm_feature(errors)
        self.llm_names_.append(name)
        self.llm_costs_ = np.append(self.llm_costs_, cost)
        self.llm_features_ = np.vstack([self.llm_features_, feature[None, :]])
        return self

    def remove_llm(self, name: str) -> PoolRouter:
        """Remove the LLM `name` from the pool (later LLMs move down one index). Returns self."""
        check_is_fitted(self, "n_val_")
        if name not in self.llm_names_:
            raise ValueError(f"name {name!r} is not in the pool; the pool holds {self.llm_names_}")
        i = self.llm_names_.index(name)
        del self.llm_names_[i]
        self.llm_costs_ = np.delete(self.llm_costs_, i)
        self.llm_features_ = np.delete(self.llm_features_, i, axis=0)
        return self

    @property
    def pool_size(self) -> int:
        """The number of LLMs in the pool."""
        return len(getattr(self, "llm_names_", []))

    def _check_pool(self) -> None:
        check_is_fitted(self, "n_val_")
        if not self.llm_names_:
            raise ValueError("the pool is empty: add_llm at least one LLM before predicting or routing")

    # --- prompts ----------------------------------------------------------------------------------------------
    def _embed(self, X: Any, name: str, n_features: int | None = None) -> np.ndarray:
        """Embeddings of `X`: raw prompts go through ``self.embedder``; numeric arrays are used as they are."""
        if is_text(X):
            if self.embedder is None:
                raise ValueError(f"{name} holds text, but the router has no embedder: pass embedder=callable")
            X = self.embedder(list(X) if not isinstance(X, str) else [X])
        return check_embeddings(X, name, n_features)

    # --- routing ----------------------------------------------------------------------------------------------
    def predict_error(self, prompt_emb: Any) -> np.ndarray:
        """gamma(x, h): the predicted probability that each pool LLM errs on each prompt, shape (n, pool)."""
        self._check_pool()
        return self._predict(self._embed(prompt_emb, "prompt_emb", getattr(self, "n_features_in_", None)))

    def route(self, prompt_emb: Any, lam: float) -> np.ndarray:
        """Pool index per prompt: ``argmin_h gamma(x, h) + lam * cost(h)`` (costs as given to add_llm).

        ``lam = 0`` picks the lowest predicted error, ``lam = inf`` the cheapest LLM; ties go to the lower index.
        """
        lam = check_float("lam", lam, low=0.0, finite=False)
        return route_scores(self.predict_error(prompt_emb), self.llm_costs_, lam)

    def deferral_curve(
        self,
        test_emb: Any,
        test_errors: Any,
        costs: Any = None,
        lams: Any = None,
    ) -> DeferralCurve:
        """Mean accuracy against mean cost over a lambda sweep, on test prompts with known errors.

        test_errors : (n_test, pool) errors of the pool's LLMs (in pool order) on the test prompts.
        costs : (pool,) costs to route and measure with; default the pool's costs. They are min-max normalised
            over the pool, so `lams` are on the normalised scale.
        lams : lambdas; default :func:`~iclr26.inference.uniroute.curve.lambda_grid` (0 plus 200 log-spaced).
        """
        gamma = self.predict_error(test_emb)
        errors = check_errors(test_errors, "test_errors", (gamma.shape[0], self.pool_size))
        costs = self._curve_costs(costs)
        lams = lambda_grid(costs) if lams is None else self._check_lams(lams)
        norm = normalize_costs(costs)
        routes = np.stack([route_scores(gamma, norm, lam) for lam in lams])
        return curve_from_routes(routes, errors, costs, lams)

    def _curve_costs(self, costs: Any) -> np.ndarray:
        if costs is None:
            return self.llm_costs_.copy()
        arr = np.asarray(costs, dtype=float).ravel()
        if arr.size != self.pool_size:
            raise ValueError(f"costs must have one entry per pool LLM ({self.pool_size}), got {arr.size}")
        for name, c in zip(self.llm_names_, arr):
            check_cost(c, f"cost of {name!r}")
        return arr

    @staticmethod
    def _check_lams(lams: Any) -> np.ndarray:
        arr = np.asarray(lams, dtype=float).ravel()
        if arr.size == 0 or np.any(np.isnan(arr)) or np.any(arr < 0):
            raise ValueError(f"lams must be a non-empty array of values >= 0, got {arr.tolist()[:5]}...")
        return arr
