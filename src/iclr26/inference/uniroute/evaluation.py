"""One (split, seed) of the UniRoute protocol: tune on the training LLMs, route among the unseen test LLMs.

Protocol of the brief (UniRoute, ICLR 2026, ka82fvJ5f1): LLMs split into training / unseen test LLMs; prompts
split 60/10/30 into train / S_val / test. Hyper-parameters are chosen on the *training* LLMs only (K of each
UniRoute mode on a held-out quarter of the training prompts; k of the K-NN router on the training prompts), then
every router routes among the test LLMs, described only by their errors on S_val (the clairvoyant router
excepted, which is trained with the test LLMs' labels on the training prompts). Every curve is scored with the
same AUDC (:mod:`~iclr26.inference.uniroute.curve`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from iclr26.inference.uniroute.baselines import (
    ClairvoyantRouter,
    KNNRouter,
    ZeroRouter,
    best_single_llm,
    random_mixture_curve,
)
from iclr26.inference.uniroute.curve import DeferralCurve, normalize_costs
from iclr26.inference.uniroute.pool_router import PoolRouter
from iclr26.inference.uniroute.router import UniRouter
from iclr26.inference.uniroute.synthetic import RoutingData, split_llms, split_prompts

__all__ = ["ROUTERS", "SplitResult", "Splits", "best_llm_point", "evaluate_split", "make_splits"]

ROUTERS = ("uniroute_map", "uniroute_kmeans", "knn", "zero", "oracle", "random")


@dataclass(frozen=True)
class Splits:
    """Indices of the training / unseen LLMs and of the train / S_val / test prompts."""

    train_llms: np.ndarray
    test_llms: np.ndarray
    train: np.ndarray
    val: np.ndarray
    test: np.ndarray


@dataclass
class SplitResult:
    """Per-router deferral curves on the unseen pool, the chosen hyper-parameters and the sweeps."""

    curves: dict[str, DeferralCurve]
    chosen: dict[str, int]
    best_val_llm: int
    k_sweep: dict[str, list[float]] = field(default_factory=dict)
    n_sweep: dict[str, list[float]] = field(default_factory=dict)


def make_splits(data: RoutingData, n_train_llms: int, rng: np.random.Generator) -> Splits:
    """Random LLM and prompt splits; a table's own ``split`` column, when present, fixes the prompt split."""
    train_llms, test_llms = split_llms(data.n_llms, n_train_llms, rng)
    if data.split is not None:
        labels = np.asarray(data.split)
        train, val, test = (np.flatnonzero(labels == s) for s in ("train", "val", "test"))
        if not (train.size and val.size and test.size):
            raise ValueError(
                "the table's split column must name at least one train, one val and one test prompt"
            )
    else:
        train, val, test = split_prompts(data.n_prompts, rng)
    return Splits(train_llms, test_llms, train, val, test)


def _pool(router: PoolRouter, data: RoutingData, llms: np.ndarray, val: np.ndarray) -> PoolRouter:
    for j in llms:
        router.add_llm(data.llm_names[j], data.errors[val, j], data.costs[j])
    return router


def _uniroute(
    mode: str, K: int, X: np.ndarray, E: np.ndarray, V: np.ndarray, Ev: np.ndarray, cfg, seed: int
) -> UniRouter:
    router = UniRouter(
        n_clusters=K,
        mode=mode,
        weight_decay=cfg.weight_decay,
        max_iter=cfg.map_max_iter,
        random_state=seed,
    )
    return router.fit(X, E if mode == "learned_map" else None, V, Ev if mode == "learned_map" else None)


def _tune_k(mode: str, data: RoutingData, s: Splits, cfg, rng: np.random.Generator, seed: int) -> int:
    """K with the best AUDC among the training LLMs on a held-out quarter of the training prompts."""
    perm = rng.permutation(s.train)
    n_tune = max(1, int(round(cfg.tune_fraction * perm.size)))
    tune, fit = np.sort(perm[:n_tune]), np.sort(perm[n_tune:])
    E = data.errors[:, s.train_llms]
    scores = []
    for K in cfg.k_grid:
        router = _uniroute(mode, K, data.embeddings[fit], E[fit], data.embeddings[s.val], E[s.val], cfg, seed)
        _pool(router, data, s.train_llms, s.val)
        scores.append(router.deferral_curve(data.embeddings[tune], E[tune]).area())
    return int(cfg.k_grid[int(np.argmax(scores))])


def _tune_knn(data: RoutingData, s: Splits, cfg) -> int:
    """k of the K-NN router with the best AUDC among the training LLMs on the training prompts."""
    E = data.errors[:, s.train_llms]
    scores = []
    grid = [k for k in cfg.knn_grid if k <= s.val.size]
    for k in grid:
        router = _pool(KNNRouter(n_neighbors=k).fit(data.embeddings[s.val]), data, s.train_llms, s.val)
        scores.append(router.deferral_curve(data.embeddings[s.train], E[s.train]).area())
    return int(grid[int(np.argmax(scores))])


def evaluate_split(data: RoutingData, s: Splits, cfg, seed: int) -> SplitResult:
    """Tune on the training LLMs, then trace every router's deferral curve on the unseen test LLMs.

    `cfg` needs: k_grid, knn_grid, tune_fraction, weight_decay, map_max_iter, oracle_hidden, oracle_max_iter,
    oracle_batch_size, k_sweep, n_sweep (fractions of S_val); see
    :class:`~iclr26.inference.uniroute.experiment.UniRouteConfig`.
    """
    rng = np.random.default_rng([seed, 1])
    X, V, T = data.embeddings[s.train], data.embeddings[s.val], data.embeddings[s.test]
    E_all = data.errors
    E_tr, Ev_tr = E_all[np.ix_(s.train, s.train_llms)], E_all[np.ix_(s.val, s.train_llms)]
    test_errors = E_all[np.ix_(s.test, s.test_llms)]
    chosen = {
        "K_map": _tune_k("learned_map", data, s, cfg, rng, seed),
        "K_kmeans": _tune_k("kmeans", data, s, cfg, rng, seed),
        "knn_k": _tune_knn(data, s, cfg),
    }
    routers: dict[str, PoolRouter] = {
        "uniroute_map": _uniroute("learned_map", chosen["K_map"], X, E_tr, V, Ev_tr, cfg, seed),
        "uniroute_kmeans": _uniroute("kmeans", chosen["K_kmeans"], X, E_tr, V, Ev_tr, cfg, seed),
        "knn": KNNRouter(n_neighbors=chosen["knn_k"]).fit(V),
        "zero": ZeroRouter().fit(V),
    }
    curves = {
        name: _pool(r, data, s.test_llms, s.val).deferral_curve(T, test_errors) for name, r in routers.items()
    }
    oracle = ClairvoyantRouter(
        hidden_layer_sizes=(cfg.oracle_hidden,),
        max_iter=cfg.oracle_max_iter,
        batch_size=cfg.oracle_batch_size,
        random_state=seed,
    ).fit(X, E_all[np.ix_(s.train, s.test_llms)], data.costs[s.test_llms])
    curves["oracle"] = oracle.deferral_curve(T, test_errors)
    val_errors = E_all[np.ix_(s.val, s.test_llms)]
    curves["random"] = random_mixture_curve(test_errors, data.costs[s.test_llms], val_errors)
    result = SplitResult(curves=curves, chosen=chosen, best_val_llm=best_single_llm(val_errors))
    for K in cfg.k_sweep:
        for mode, key in (("learned_map", "uniroute_map"), ("kmeans", "uniroute_kmeans")):
            if K == chosen["K_map" if mode == "learned_map" else "K_kmeans"]:
                result.k_sweep.setdefault(key, []).append(curves[key].area())  # the final router itself
                continue
            router = _pool(_uniroute(mode, K, X, E_tr, V, Ev_tr, cfg, seed), data, s.test_llms, s.val)
            result.k_sweep.setdefault(key, []).append(router.deferral_curve(T, test_errors).area())
    for frac in cfg.n_sweep:
        n_val = max(1, int(round(frac * s.val.size)))
        result.n_sweep.setdefault("N", []).append(float(n_val))
        if n_val == s.val.size:  # the final routers themselves
            for key in ("uniroute_map", "uniroute_kmeans", "knn", "zero"):
                result.n_sweep.setdefault(key, []).append(curves[key].area())
            continue
        sub = np.sort(rng.permutation(s.val)[:n_val])
        Vs, Evs = data.embeddings[sub], E_all[np.ix_(sub, s.train_llms)]
        subs: dict[str, PoolRouter] = {
            "uniroute_map": _uniroute("learned_map", chosen["K_map"], X, E_tr, Vs, Evs, cfg, seed),
            "uniroute_kmeans": _uniroute("kmeans", chosen["K_kmeans"], X, E_tr, Vs, Evs, cfg, seed),
            "knn": KNNRouter(n_neighbors=min(chosen["knn_k"], n_val)).fit(Vs),
            "zero": ZeroRouter().fit(Vs),
        }
        for key, router in subs.items():
            area = _pool(router, data, s.test_llms, sub).deferral_curve(T, test_errors).area()
            result.n_sweep.setdefault(key, []).append(area)
    return result


def best_llm_point(data: RoutingData, s: Splits, best: int) -> tuple[float, float]:
    """(normalised cost, test accuracy) of the best-on-validation test LLM."""
    costs = data.costs[s.test_llms]
    acc = 1.0 - data.errors[np.ix_(s.test, s.test_llms)].mean(axis=0)
    return float(normalize_costs(costs)[best]), float(acc[best])
