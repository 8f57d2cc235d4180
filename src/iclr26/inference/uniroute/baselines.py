"""The baselines UniRoute is compared with (ICLR 2026, ka82fvJ5f1).

* :class:`ZeroRouter`: prompt-independent; routes everything to one LLM on the lower convex hull of
  (cost, mean validation error), randomising between two adjacent hull vertices to hit a cost budget.
* :class:`KNNRouter`: per new LLM, gamma(x, h) = mean of h's validation errors over the k validation prompts
  nearest to x (same S_val labels as UniRoute; no training).
* :class:`ClairvoyantRouter`: a fixed-pool MLP trained with full labels of the *test* LLMs on the training
  prompts, an oracle-ish upper bound that cannot take new LLMs.
* :func:`random_mixture_curve`: random routing at matched cost, and :func:`best_single_llm`.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.neural_network import MLPClassifier
from sklearn.utils.validation import check_is_fitted

from iclr26.checks import check_float, check_int
from iclr26.inference.uniroute.checks import check_cost, check_costs, check_errors, check_rng
from iclr26.inference.uniroute.curve import DeferralCurve, lambda_grid, normalize_costs
from iclr26.inference.uniroute.distances import nearest
from iclr26.inference.uniroute.pool_router import PoolRouter

__all__ = [
    "ClairvoyantRouter",
    "KNNRouter",
    "ZeroRouter",
    "best_single_llm",
    "lower_hull",
    "random_mixture_curve",
]


def lower_hull(costs: np.ndarray, errors: np.ndarray) -> np.ndarray:
    """Indices of the LLMs that minimise ``errors + lam * costs`` for some lam >= 0, cheapest first.

    These are the vertices of the lower-left convex hull of the points (cost, error), from the cheapest LLM
    (lowest error among equally cheap ones) to the most accurate one (cheapest among equally accurate ones).

    Examples
    --------
    >>> lower_hull(np.array([1.0, 2.0, 3.0, 4.0]), np.array([0.5, 0.45, 0.2, 0.3])).tolist()
    [0, 2]
    """
    costs = check_costs(costs, positive=False)
    errors = check_costs(errors, "errors", size=costs.size, positive=False)
    order = np.lexsort((errors, costs))
    hull: list[int] = []
    for i in order:
        if hull and costs[hull[-1]] == costs[i]:
            continue  # an equally cheap LLM with a higher (or equal) error
        if hull and errors[i] >= errors[hull[-1]]:
            continue  # costlier and no more accurate than the last vertex: never an argmin
        while len(hull) >= 2:
            a, b = hull[-2], hull[-1]
            # drop b when it lies on or above the segment a -> i (not strictly convex)
            cross = (costs[b] - costs[a]) * (errors[i] - errors[a]) - (errors[b] - errors[a]) * (
                costs[i] - costs[a]
            )
            if cross <= 0:
                hull.pop()
            else:
                break
        hull.append(int(i))
    return np.array(hull, dtype=int)


class ZeroRouter(PoolRouter):
    """Prompt-independent routing on the cost-quality convex hull of the pool's mean validation errors.

    ``route(X, lam)`` sends every prompt to ``argmin_h mean_val_error(h) + lam c(h)``, always a hull vertex;
    ``route_budget`` randomises between two adjacent vertices so that the expected cost matches a budget, which
    traces the straight segments of the hull. Its deferral curve is evaluated at one lambda per vertex, so
    every vertex appears and the linear interpolation of :func:`~iclr26.inference.uniroute.curve.audc` is
    exactly the randomised router's curve.

    Example
    -------
    >>> router = ZeroRouter().fit(np.zeros((4, 2)))
    >>> _ = router.add_llm("small", [1, 1, 0, 1], 1.0).add_llm("large", [0, 0, 0, 1], 10.0)
    >>> router.route(np.zeros((2, 2)), lam=0.0).tolist(), router.hull_vertices().tolist()
    ([1, 1], [0, 1])
    """

    def __init__(self, embedder: Any = None) -> None:
        self.embedder = embedder

    def fit(self, val_prompt_emb: Any) -> ZeroRouter:
        """Record N (and D) from the validation prompts; nothing is learned."""
        V = self._embed(val_prompt_emb, "val_prompt_emb")
        self.n_features_in_ = V.shape[1]
        self._reset_pool(V.shape[0], 1)
        return self

    def _llm_feature(self, val_errors: np.ndarray) -> np.ndarray:
        return np.array([val_errors.mean()])

    def _predict(self, X: np.ndarray) -> np.ndarray:
        return np.repeat(self.llm_features_[:, 0][None, :], X.shape[0], axis=0)

    def hull_vertices(self) -> np.ndarray:
        """Pool indices of the hull vertices, cheapest first (see :func:`lower_hull`)."""
        self._check_pool()
        return lower_hull(self.llm_costs_, self.llm_features_[:, 0])

    def vertex_lambdas(self, costs: Any = None) -> np.ndarray:
        """One lambda (normalised cost scale) inside the interval where each hull vertex is the argmin."""
        self._check_pool()
        c = normalize_costs(self._curve_costs(costs))
        err = self.llm_features_[:, 0]
        hull = lower_hull(c, err)
        # breakpoints between consecutive vertices: lam_i = (err_i - err_{i+1}) / (c_{i+1} - c_i)
        breaks = (err[hull[:-1]] - err[hull[1:]]) / (c[hull[1:]] - c[hull[:-1]])
        inner = np.sqrt(breaks[:-1] * breaks[1:]) if breaks.size > 1 else np.empty(0)
        ends = [breaks[-1] / 2.0, breaks[0] * 2.0] if breaks.size else [0.0]
        return np.concatenate([[ends[0]], inner[::-1], ends[1:]])

    def deferral_curve(
        self, test_emb: Any, test_errors: Any, costs: Any = None, lams: Any = None
    ) -> DeferralCurve:
        """As :meth:`PoolRouter.deferral_curve`, with the default grid extended by :meth:`vertex_lambdas`."""
        if lams is None:
            self._check_pool()
            all_costs = self._curve_costs(costs)
            lams = np.unique(np.concatenate([lambda_grid(all_costs), self.vertex_lambdas(all_costs)]))
        return super().deferral_curve(test_emb, test_errors, costs, lams)

    def route_budget(self, prompt_emb: Any, budget: float, rng: np.random.Generator) -> np.ndarray:
        """Randomised routing between adjacent hull vertices with expected mean cost `budget` (pool units).

        A budget below the cheapest vertex's cost routes to it; above the most accurate vertex's, to that one.
        """
        budget = check_float("budget", budget)
        check_rng(rng)
        n = self.predict_error(prompt_emb).shape[0]
        hull = self.hull_vertices()
        c = self.llm_costs_[hull]
        if budget <= c[0] or hull.size == 1:
            return np.full(n, hull[0])
        if budget >= c[-1]:
            return np.full(n, hull[-1])
        i = int(np.searchsorted(c, budget, side="right")) - 1
        p = (budget - c[i]) / (c[i + 1] - c[i])
        return np.where(rng.random(n) < p, hull[i + 1], hull[i])


class KNNRouter(PoolRouter):
    """K-NN routing: gamma(x, h) = mean of h's validation errors on the k validation prompts nearest to x.

    Example
    -------
    >>> V = np.array([[0.0], [1.0], [10.0]])
    >>> router = KNNRouter(n_neighbors=2).fit(V).add_llm("a", [0, 1, 1], 1.0)
    >>> router.predict_error(np.array([[0.2], [9.0]])).ravel().tolist()
    [0.5, 1.0]
    """

    def __init__(self, n_neighbors: int = 10, embedder: Any = None) -> None:
        self.n_neighbors = n_neighbors
        self.embedder = embedder

    def fit(self, val_prompt_emb: Any) -> KNNRouter:
        """Store the validation prompts S_val (every LLM is described by its errors on them, in this order)."""
        V = self._embed(val_prompt_emb, "val_prompt_emb")
        check_int(
            f"n_neighbors (at most N = {V.shape[0]}, the number of validation prompts)",
            self.n_neighbors,
            1,
            V.shape[0],
        )
        self.n_features_in_ = V.shape[1]
        self.val_emb_ = V
        self._reset_pool(V.shape[0], V.shape[0])
        return self

    def _llm_feature(self, val_errors: np.ndarray) -> np.ndarray:
        return val_errors.copy()

    def _predict(self, X: np.ndarray) -> np.ndarray:
        idx = nearest(X, self.val_emb_, int(self.n_neighbors))  # (n, k)
        return self.llm_features_[:, idx].mean(axis=2).T


class ClairvoyantRouter(PoolRouter):
    """A fixed-pool router: an MLP trained with full labels of the pool's LLMs on the training prompts.

    The "clairvoyant" upper bound of the brief: it sees the test LLMs' labels on every training prompt, which
    UniRoute never does. It cannot take a new LLM without retraining (``add_llm`` raises).

    Parameters
    ----------
    hidden_layer_sizes, alpha, max_iter, batch_size, random_state : passed to scikit-learn's ``MLPClassifier`` (multi-label,
        one sigmoid output per LLM).
    """

    def __init__(
        self,
        hidden_layer_sizes: tuple[int, ...] = (128,),
        alpha: float = 1e-4,
        max_iter: int = 200,
        batch_size: int = 200,
        random_state: int | None = None,
        embedder: Any = None,
    ) -> None:
        self.hidden_layer_sizes = hidden_layer_sizes
        self.alpha = alpha
        self.max_iter = max_iter
        self.batch_size = batch_size
        self.random_state = random_state
        self.embedder = embedder

    def fit(
        self, train_prompt_emb: Any, train_errors: Any, costs: Any, names: Any = None
    ) -> ClairvoyantRouter:
        """Train on (n, D) prompts with the (n, pool) 0/1 errors of the pool's LLMs and their (pool,) costs."""
        sizes = self.hidden_layer_sizes
        if not isinstance(sizes, (tuple, list)) or not sizes:
            raise ValueError(f"hidden_layer_sizes must be a non-empty tuple of ints >= 1, got {sizes!r}")
        for i, h in enumerate(sizes):
            check_int(f"hidden_layer_sizes[{i}]", h, low=1)
        check_float("alpha", self.alpha, low=0.0)
        check_int("max_iter", self.max_iter, low=1)
        check_int("batch_size", self.batch_size, low=1)
        if self.random_state is not None:
            check_int("random_state", self.random_state, low=0)
        X = self._embed(train_prompt_emb, "train_prompt_emb")
        E = check_errors(train_errors, "train_errors", (X.shape[0], None))
        if not np.all((E == 0) | (E == 1)):
            raise ValueError(
                "train_errors must be 0/1 for the clairvoyant MLP (soft errors are not supported)"
            )
        costs = np.asarray(costs, dtype=float).ravel()
        if costs.size != E.shape[1]:
            raise ValueError(f"costs must have one entry per LLM ({E.shape[1]}), got {costs.size}")
        names = [f"llm{j}" for j in range(E.shape[1])] if names is None else [str(n) for n in names]
        self.n_features_in_ = X.shape[1]
        self.mlp_ = MLPClassifier(
            hidden_layer_sizes=self.hidden_layer_sizes,
            alpha=self.alpha,
            max_iter=self.max_iter,
            batch_size=min(self.batch_size, X.shape[0]),
            random_state=self.random_state,
        )
        # a constant column (an LLM always right or always wrong) is predicted as that constant
        self.constant_ = np.where(E.min(axis=0) == E.max(axis=0), E[0], np.nan)
        varying = np.isnan(self.constant_)
        if varying.any():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                self.mlp_.fit(X, E[:, varying].astype(int))
        self._reset_pool(0, 1)
        self.llm_names_ = names
        self.llm_costs_ = np.array([check_cost(c, f"cost of {n!r}") for n, c in zip(names, costs)])
        self.llm_features_ = np.zeros((len(names), 1))
        return self

    def add_llm(self, name: str, val_errors: Any, cost: float) -> ClairvoyantRouter:
        raise ValueError("ClairvoyantRouter has a fixed pool: refit it with the new LLM's training labels")

    def _predict(self, X: np.ndarray) -> np.ndarray:
        check_is_fitted(self, "mlp_")
        out = np.tile(np.nan_to_num(self.constant_), (X.shape[0], 1))
        varying = np.isnan(self.constant_)
        if varying.any():
            proba = self.mlp_.predict_proba(X)
            out[:, varying] = proba.reshape(X.shape[0], -1)
        return out


def best_single_llm(val_errors: np.ndarray) -> int:
    """The pool index of the LLM with the lowest mean validation error (chosen without test labels)."""
    return int(np.argmin(check_errors(val_errors, "val_errors", (None, None)).mean(axis=0)))


def random_mixture_curve(
    test_errors: np.ndarray, costs: np.ndarray, val_errors: np.ndarray, n_points: int = 21
) -> DeferralCurve:
    """Random routing at matched cost: each prompt goes to the best-on-validation LLM with probability p, else
    to the cheapest LLM, for p in linspace(0, 1, n_points). The curve is the exact expectation over the coin
    flips (a straight segment). ``lams`` holds p.
    """
    check_int("n_points", n_points, low=2)
    test_errors = check_errors(test_errors, "test_errors", (None, None))
    costs = check_costs(costs, size=test_errors.shape[1])
    check_errors(val_errors, "val_errors", (None, test_errors.shape[1]))
    best, cheap = best_single_llm(val_errors), int(np.argmin(costs))
    p = np.linspace(0.0, 1.0, n_points)
    norm = normalize_costs(costs)
    acc = 1.0 - test_errors.mean(axis=0)
    share = np.zeros((n_points, costs.size))
    share[:, cheap] += 1.0 - p
    share[:, best] += p
    return DeferralCurve(
        lams=p,
        cost=share @ norm,
        accuracy=share @ acc,
        raw_cost=share @ costs,
        share=share,
    )
