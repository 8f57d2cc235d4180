"""Reproduction of UniRoute's headline claim ("Universal Model Routing for Efficient LLM Inference", ICLR 2026,
OpenReview ka82fvJ5f1, arXiv 2502.08773): a router trained on one pool of LLMs routes among unseen LLMs, given
only their errors on a small validation set, better than prompt-independent routing and K-NN routing.

Harness seed s is one (pool seed, split) pair: pool seed = s // n_splits regenerates the LLM pool, split =
s % n_splits draws the LLM split (training / unseen) and the 60/10/30 prompt split. Per seed
(:func:`~iclr26.inference.uniroute.evaluation.evaluate_split`): K of each UniRoute mode and k of the K-NN
router are tuned on the training LLMs; then UniRoute (learned map, K-means), K-NN, ZeroRouter, the clairvoyant
MLP (trained with the unseen LLMs' labels) and random routing trace deferral curves over the unseen LLMs on
the test prompts; AUDC against min-max normalised cost. Sweeps over K and over N = |S_val| feed the figures.

Budgets: ``smoke`` the IRT simulator (option C, 10 LLMs); ``quick`` the 16-domain pool of 60 real scikit-learn
models (option A), 3 pools x 5 splits; ``full`` the same generator at 20,000 prompts and 100 models, 5 pools x 5
splits. ``UniRouteConfig(pool="table", data_path=...)`` runs the same protocol on a user's routing table.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_limits

from iclr26.checks import check_choice, check_float, check_int
from iclr26.harness import Claim, Curve, Experiment, Metrics
from iclr26.inference.uniroute.claim_check import ROUTING_CAN_HELP, uniroute_claim
from iclr26.inference.uniroute.evaluation import ROUTERS, best_llm_point, evaluate_split, make_splits
from iclr26.inference.uniroute.figures import audc_by_router, audc_vs_k_and_n, deferral_curves, traffic_share
from iclr26.inference.uniroute.synthetic import RoutingData, make_irt_pool, make_multidomain_pool
from iclr26.inference.uniroute.table import load_routing_table

__all__ = ["EXPERIMENT", "POOLS", "UniRouteConfig", "make_data", "run"]

POOLS = ("irt", "multidomain", "table")


@dataclass(frozen=True)
class UniRouteConfig:
    """One budget of the UniRoute reproduction (see the module docstring)."""

    pool: str = "multidomain"
    data_path: str | None = None  # pool="table": a CSV / Parquet routing table (schema in table.py)
    n_prompts: int = 8000
    n_llms: int = 60
    n_train_llms: int = 30
    n_domains: int = 16  # multidomain: domains; irt: topics
    mlp_max_iter: int = 200  # the pool's MLP "LLMs"
    n_splits: int = 5  # splits per pool seed
    k_grid: tuple[int, ...] = (20, 30, 40)
    knn_grid: tuple[int, ...] = (1, 3, 5, 10, 20, 40, 80)
    tune_fraction: float = 0.25
    weight_decay: float = 1e-4
    map_max_iter: int = 100
    oracle_hidden: int = 128
    oracle_max_iter: int = 100
    oracle_batch_size: int = 256
    k_sweep: tuple[int, ...] = (5, 10, 20, 40, 80)
    n_sweep: tuple[float, ...] = (0.25, 0.5, 1.0)
    share_points: int = 40  # lambdas kept for the traffic-share figure

    def __post_init__(self) -> None:
        check_choice("pool", self.pool, POOLS)
        if self.pool == "table" and not self.data_path:
            raise ValueError("pool='table' needs data_path (a routing table file)")
        check_int("n_splits", self.n_splits, low=1)
        if not self.k_grid or not self.knn_grid or not self.k_sweep or not self.n_sweep:
            raise ValueError("k_grid, knn_grid, k_sweep and n_sweep must be non-empty")
        if any(not 0 < f <= 1 for f in self.n_sweep):
            raise ValueError(f"n_sweep holds fractions of S_val in (0, 1], got {self.n_sweep}")
        check_float("tune_fraction", self.tune_fraction, 0.0, 1.0, low_open=True, high_open=True)


def make_data(cfg: UniRouteConfig, pool_seed: int) -> RoutingData:
    """The correctness matrix of pool seed `pool_seed` (a table ignores the seed)."""
    if cfg.pool == "irt":
        return make_irt_pool(cfg.n_prompts, cfg.n_llms, n_topics=cfg.n_domains, seed=pool_seed)
    if cfg.pool == "multidomain":
        return make_multidomain_pool(
            cfg.n_prompts, cfg.n_llms, n_domains=cfg.n_domains, mlp_max_iter=cfg.mlp_max_iter, seed=pool_seed
        )
    return load_routing_table(str(cfg.data_path))


def _thin(n: int, k: int) -> np.ndarray:
    return np.unique(np.linspace(0, n - 1, min(n, k)).round().astype(int))


def run(cfg: UniRouteConfig, seed: int, device: str) -> Metrics:
    """One (pool seed, split) pair of the protocol (CPU only; `device` is unused)."""
    pool_seed, split = divmod(int(seed), cfg.n_splits)
    with threadpool_limits(1):  # small matrices: one BLAS thread is fastest and avoids oversubscription
        data = make_data(cfg, pool_seed)
        splits = make_splits(data, cfg.n_train_llms, np.random.default_rng([pool_seed, split, 7]))
        result = evaluate_split(data, splits, cfg, seed)
    best_cost, best_acc = best_llm_point(data, splits, result.best_val_llm)
    values: dict[str, float] = {
        "pool_seed": float(pool_seed),
        "split": float(split),
        "n_val": float(splits.val.size),
        "n_test_llms": float(splits.test_llms.size),
        "acc_best_llm": best_acc,
        "cost_best_llm": best_cost,
        **{k: float(v) for k, v in result.chosen.items()},
    }
    curves: dict[str, Curve] = {}
    for name in ROUTERS:
        curve = result.curves[name]
        values[f"audc_{name}"] = curve.area()
        values[f"qnc_{name}"] = curve.quality_neutral_cost(best_acc)
        values[f"acc_max_{name}"] = float(curve.accuracy.max())
        order = np.lexsort((curve.accuracy, curve.cost))
        curves[f"deferral_{name}"] = Curve(
            curve.cost[order], curve.accuracy[order], "mean normalised cost", "mean accuracy"
        )
    values["gain_map_vs_zero"] = values["audc_uniroute_map"] - values["audc_zero"]
    values["gain_map_vs_knn"] = values["audc_uniroute_map"] - values["audc_knn"]
    values["gain_map_vs_kmeans"] = values["audc_uniroute_map"] - values["audc_uniroute_kmeans"]
    values["gain_oracle_vs_zero"] = values["audc_oracle"] - values["audc_zero"]
    for i, K in enumerate(cfg.k_sweep):
        values[f"sweepK_{i}_K"] = float(K)
        for key, areas in result.k_sweep.items():
            values[f"sweepK_{i}_{key}"] = areas[i]
    for i in range(len(cfg.n_sweep)):
        for key, areas in result.n_sweep.items():
            values[f"sweepN_{i}_{key}"] = areas[i]
    share_curve = result.curves["uniroute_map"]
    keep = _thin(share_curve.lams.size, cfg.share_points)
    test_costs = data.costs[splits.test_llms]
    artifacts = {
        "share_map": {
            "lams": share_curve.lams[keep],
            "cost": share_curve.cost[keep],
            "share": share_curve.share[keep],
        },
        "test_llms": [data.llm_names[j] for j in splits.test_llms],
        "test_costs": test_costs,
        "best_val_llm": data.llm_names[splits.test_llms[result.best_val_llm]],
        "n_sweep": list(cfg.n_sweep),
        "k_sweep": list(cfg.k_sweep),
        "pool": data.info.get("generator", cfg.pool),
    }
    return Metrics(values=values, curves=curves, artifacts=artifacts)


EXPERIMENT = Experiment(
    slug="uniroute",
    configs={
        "smoke": UniRouteConfig(
            pool="irt",
            n_prompts=1500,
            n_llms=10,
            n_train_llms=5,
            n_domains=4,
            n_splits=1,
            k_grid=(4, 8),
            knn_grid=(1, 5, 20),
            map_max_iter=30,
            oracle_hidden=32,
            oracle_max_iter=30,
            k_sweep=(2, 4, 8),
            n_sweep=(0.5, 1.0),
        ),
        "quick": UniRouteConfig(),
        "full": UniRouteConfig(n_prompts=20_000, n_llms=100, n_train_llms=50, k_grid=(20, 30, 40, 60)),
    },
    seeds={"smoke": 1, "quick": 15, "full": 25},
    run=run,
    claims=[
        Claim(
            id="unseen-llm-routing",
            statement=(
                "Routing among 30 unseen LLMs known only by their errors on S_val (10% of prompts), UniRoute "
                "with the learned cluster map has a larger AUDC than ZeroRouter and than the K-NN router, and "
                "closes >= 50% of the AUDC gap between ZeroRouter and a clairvoyant router trained with the "
                "unseen LLMs' labels"
            ),
            paper_value=(
                "better deferral curves than ZeroRouter and K-NN routing among 30+ unseen LLMs on EmbedLLM, "
                "RouterBench, Math+Code and SPROUT (table numbers not retrieved)"
            ),
            decide=uniroute_claim(),
            preconditions=(ROUTING_CAN_HELP,),
            scale_gap=(
                "synthetic 16-domain pool of 60 scikit-learn models standing in for LLMs; 15 (split, seed) pairs "
                "from 3 pools, intervals clustered by pool (t over the 3 pool means, 2 df)"
            ),
        )
    ],
    figures=[deferral_curves, audc_by_router, audc_vs_k_and_n, traffic_share],
    scale_gap=(
        "No real LLM correctness matrix can be fetched offline: the 'LLMs' are 60 scikit-learn classifiers "
        "(logistic regression, MLPs, trees, k-NN) trained on subsets of a synthetic 16-domain task, cost = "
        "parameter count, embedding = a random projection of the inputs plus a domain code. The paper routes "
        "real LLMs on EmbedLLM, RouterBench, SPROUT and Math+Code with sentence-encoder embeddings."
    ),
)
