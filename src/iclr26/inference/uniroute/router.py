"""UniRouter: routing among LLMs never seen in training, from their errors on a few validation prompts.

"Universal Model Routing for Efficient LLM Inference" (Jitkrittum et al., ICLR 2026, OpenReview ka82fvJ5f1,
arXiv 2502.08773). Each LLM h is represented by its per-cluster validation error

    Psi_K(h)_k = mean_{x in S_val, k(x) = k} l(x, y, h)                    (K clusters of prompt embeddings)

and the probability that h errs on prompt x is estimated without retraining as

    K-means:            gamma(x, h) = Psi_K(h)_{k(x)},      k(x) = argmin_k ||phi(x) - c_k||
    learned map:        gamma(x, h) = z_theta(x)^T Psi_K(h), z_theta(x) = softmax(Theta [phi(x); 1])

then routed with r(x) = argmin_h gamma(x, h) + lambda c(h) over the current pool.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from sklearn.cluster import KMeans
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from iclr26.checks import check_choice, check_float, check_int
from iclr26.inference.uniroute.checks import check_embeddings, check_errors, is_text
from iclr26.inference.uniroute.distances import nearest
from iclr26.inference.uniroute.learned_map import fit_cluster_map, init_theta_from_centroids, soft_assign
from iclr26.inference.uniroute.pool_router import PoolRouter

__all__ = ["MODES", "UniRouter", "cluster_errors"]

MODES = ("kmeans", "learned_map")


def cluster_errors(val_errors: np.ndarray, assign: np.ndarray, n_clusters: int) -> np.ndarray:
    """Psi_K: the mean of `val_errors` over the validation prompts of each cluster.

    val_errors : (N,) or (N, m) errors; assign : (N,) cluster of each validation prompt. A cluster with no
    validation prompt gets the LLM's mean error over all N prompts. Returns (K,) or (m, K).

    Examples
    --------
    >>> cluster_errors(np.array([1.0, 0.0, 1.0, 1.0]), np.array([0, 0, 1, 1]), 3).tolist()
    [0.5, 1.0, 0.75]
    """
    check_int("n_clusters", n_clusters, low=1)
    E = check_errors(val_errors, "val_errors")
    if E.ndim not in (1, 2):
        raise ValueError(f"val_errors must be (N,) or (N, m), got shape {E.shape}")
    a = np.asarray(assign)
    if a.shape != (E.shape[0],) or a.dtype.kind not in "iu":
        raise ValueError(
            f"assign must be an integer array of shape ({E.shape[0]},) (one cluster per row of val_errors), "
            f"got {a.dtype} of shape {a.shape}"
        )
    if a.min() < 0 or a.max() >= n_clusters:
        raise ValueError(
            f"assign must hold cluster ids in [0, {n_clusters}), got values in [{a.min()}, {a.max()}]"
        )
    single = E.ndim == 1
    E = E[:, None] if single else E
    counts = np.bincount(assign, minlength=n_clusters).astype(float)
    sums = np.zeros((n_clusters, E.shape[1]))
    np.add.at(sums, assign, E)
    overall = E.mean(axis=0)
    psi = np.where(counts[:, None] > 0, sums / np.maximum(counts, 1.0)[:, None], overall[None, :])
    return psi[:, 0] if single else psi.T


class UniRouter(PoolRouter):
    """UniRoute: a universal router over a pool of LLMs that can change at test time.

    Parameters
    ----------
    n_clusters : K, the number of prompt clusters (the paper's range: 10-100; ignored when `centroids` is given).
    mode : ``"kmeans"`` (hard nearest-centroid assignment; unsupervised) or ``"learned_map"`` (a softmax map
        trained on the training LLMs' labels, initialised from the K-means centroids).
    embedder : optional callable ``list[str] -> (n, D) array``; when given, ``fit``, ``predict_error``,
        ``route`` and ``deferral_curve`` also accept raw prompts. An embedder with an unfitted ``fit`` method
        (``TfidfSvdEmbedder``) is fitted on the training prompts.
    centroids : optional (K, D) array used instead of K-means (e.g. the validation prompts themselves, which
        makes the K-means mode equal to 1-NN routing over S_val).
    weight_decay : L2 weight on Theta (without its bias) in the learned map's objective.
    max_iter : L-BFGS iterations of the learned map.
    n_init : K-means restarts.
    random_state : seed of K-means.

    Attributes
    ----------
    centroids_ : (K, D) cluster centres; n_clusters_ : K; val_assign_ : (N,) cluster of each validation prompt;
    theta_ : (K, D + 1) the learned map (``learned_map`` mode); map_loss_ : (initial, final) training loss;
    llm_names_, llm_costs_ : the pool; psi_ : (pool, K) the pool's Psi_K.

    Example
    -------
    >>> from iclr26.inference.uniroute import UniRouter, make_irt_pool
    >>> data = make_irt_pool(n_prompts=600, n_llms=4, seed=0)
    >>> train, val, test = np.arange(0, 360), np.arange(360, 420), np.arange(420, 600)
    >>> router = UniRouter(n_clusters=4, random_state=0).fit(data.embeddings[train], None, data.embeddings[val])
    >>> for j, name in enumerate(data.llm_names):
    ...     _ = router.add_llm(name, data.errors[val, j], data.costs[j])
    >>> router.predict_error(data.embeddings[test]).shape
    (180, 4)
    >>> bool(np.all(router.route(data.embeddings[test], lam=np.inf) == np.argmin(data.costs)))
    True
    """

    def __init__(
        self,
        n_clusters: int = 30,
        mode: str = "kmeans",
        embedder: Any = None,
        centroids: Any = None,
        weight_decay: float = 1e-4,
        max_iter: int = 200,
        n_init: int = 3,
        random_state: int | None = None,
    ) -> None:
        self.n_clusters = n_clusters
        self.mode = mode
        self.embedder = embedder
        self.centroids = centroids
        self.weight_decay = weight_decay
        self.max_iter = max_iter
        self.n_init = n_init
        self.random_state = random_state

    # --- fitting ----------------------------------------------------------------------------------------------
    def _check_params(self) -> None:
        check_choice("mode", self.mode, MODES)
        if self.centroids is None:
            check_int("n_clusters", self.n_clusters, low=1)
        check_float("weight_decay", self.weight_decay, low=0.0)
        check_int("max_iter", self.max_iter, low=0)
        check_int("n_init", self.n_init, low=1)
        if self.random_state is not None:
            check_int("random_state", self.random_state, low=0)

    def fit(
        self,
        train_prompt_emb: Any,
        train_llm_errors: Any = None,
        val_prompt_emb: Any = None,
        val_llm_errors: Any = None,
    ) -> UniRouter:
        """Cluster the training prompts and, in ``learned_map`` mode, train the cluster map.

        train_prompt_emb : (n_train, D) embeddings (or raw prompts with an embedder).
        train_llm_errors : (n_train, m) errors of the m training LLMs on the training prompts; needed only by
            ``learned_map`` (the K-means mode never looks at training LLMs).
        val_prompt_emb : (N, D) the representative validation prompts S_val; every LLM added later is described
            by its errors on these, in this order.
        val_llm_errors : optional (N, m) training LLMs' errors on S_val, from which their Psi_K is computed for
            the map's objective (the paper's choice); without it, Psi_K of the training LLMs comes from their
            errors on the training prompts.
        """
        self._check_params()
        if val_prompt_emb is None:
            raise ValueError(
                "val_prompt_emb is required: the validation prompts S_val that describe every LLM"
            )
        if (
            is_text(train_prompt_emb)
            and hasattr(self.embedder, "fit")
            and not getattr(self.embedder, "fitted", True)
        ):
            self.embedder.fit(list(train_prompt_emb))
        X = self._embed(train_prompt_emb, "train_prompt_emb")
        V = self._embed(val_prompt_emb, "val_prompt_emb", X.shape[1])
        self.n_features_in_ = X.shape[1]
        self.centroids_ = self._fit_centroids(X)
        self.n_clusters_ = self.centroids_.shape[0]
        self.val_assign_ = nearest(V, self.centroids_)[:, 0]
        self.val_cluster_sizes_ = np.bincount(self.val_assign_, minlength=self.n_clusters_)
        self.theta_ = None
        self.map_loss_ = None
        if self.mode == "learned_map":
            self._fit_map(X, train_llm_errors, val_llm_errors)
        self._reset_pool(V.shape[0], self.n_clusters_)
        return self

    def _fit_centroids(self, X: np.ndarray) -> np.ndarray:
        if self.centroids is not None:
            return check_embeddings(self.centroids, "centroids", X.shape[1]).copy()
        if self.n_clusters > X.shape[0]:
            raise ValueError(
                f"n_clusters = {self.n_clusters} exceeds the number of training prompts ({X.shape[0]})"
            )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)  # duplicate points: fewer distinct clusters
            km = KMeans(self.n_clusters, n_init=self.n_init, random_state=self.random_state).fit(X)
        return km.cluster_centers_

    def _fit_map(self, X: np.ndarray, train_llm_errors: Any, val_llm_errors: Any) -> None:
        if train_llm_errors is None:
            raise ValueError("train_llm_errors is required in mode='learned_map' (the training LLMs' labels)")
        E = check_errors(train_llm_errors, "train_llm_errors", (X.shape[0], None))
        if val_llm_errors is not None:
            Ev = check_errors(val_llm_errors, "val_llm_errors", (self.val_assign_.size, E.shape[1]))
            psi = cluster_errors(Ev, self.val_assign_, self.n_clusters_)
        else:
            psi = cluster_errors(E, nearest(X, self.centroids_)[:, 0], self.n_clusters_)
        theta0 = init_theta_from_centroids(self.centroids_, X)
        self.theta_, start, end = fit_cluster_map(
            X, E, psi, theta0, float(self.weight_decay), int(self.max_iter)
        )
        self.map_loss_ = (start, end)

    # --- the pool's features and predictions ------------------------------------------------------------------
    def _llm_feature(self, val_errors: np.ndarray) -> np.ndarray:
        return cluster_errors(val_errors, self.val_assign_, self.n_clusters_)

    @property
    def psi_(self) -> np.ndarray:
        """Psi_K of every pool LLM, shape (pool, K)."""
        check_is_fitted(self, "n_val_")
        return self.llm_features_

    def cluster_weights(self, prompt_emb: Any) -> np.ndarray:
        """z(x) in the simplex over clusters, shape (n, K): one-hot nearest centroid, or the learned softmax."""
        check_is_fitted(self, "n_val_")
        X = self._embed(prompt_emb, "prompt_emb", self.n_features_in_)
        return self._weights(X)

    def _weights(self, X: np.ndarray) -> np.ndarray:
        if self.mode == "learned_map":
            return soft_assign(self.theta_, X)
        z = np.zeros((X.shape[0], self.n_clusters_))
        z[np.arange(X.shape[0]), nearest(X, self.centroids_)[:, 0]] = 1.0
        return z

    def _predict(self, X: np.ndarray) -> np.ndarray:
        if self.mode == "kmeans":
            return self.llm_features_[:, nearest(X, self.centroids_)[:, 0]].T
        return self._weights(X) @ self.llm_features_.T
