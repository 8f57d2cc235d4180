"""UniRoute: "Universal Model Routing for Efficient LLM Inference" (ICLR 2026, OpenReview ka82fvJ5f1, arXiv 2502.08773).

Route each prompt to the LLM minimising predicted error + lambda * cost, over a pool of LLMs that can change at
test time: a new LLM is described by its errors on N representative validation prompts, summarised per prompt
cluster (Psi_K), with no retraining. :class:`UniRouter` (K-means or learned cluster map), the baselines
(:class:`ZeroRouter`, :class:`KNNRouter`, :class:`ClairvoyantRouter`, random routing, the best single LLM), the
deferral curve and its area, offline synthetic LLM pools, and a loader for user-supplied routing tables.

Example
-------
>>> import numpy as np
>>> from iclr26.inference.uniroute import UniRouter, ZeroRouter, make_irt_pool, split_prompts
>>> data = make_irt_pool(n_prompts=1000, n_llms=6, seed=0)
>>> tr, va, te = split_prompts(data.n_prompts, np.random.default_rng(0))
>>> uni = UniRouter(n_clusters=8, random_state=0).fit(data.embeddings[tr], None, data.embeddings[va])
>>> zero = ZeroRouter().fit(data.embeddings[va])
>>> for j, name in enumerate(data.llm_names):
...     _ = uni.add_llm(name, data.errors[va, j], data.costs[j])
...     _ = zero.add_llm(name, data.errors[va, j], data.costs[j])
>>> curves = [r.deferral_curve(data.embeddings[te], data.errors[te]) for r in (uni, zero)]
>>> bool(curves[0].area() > curves[1].area())
True
"""

from iclr26.inference.uniroute.baselines import (
    ClairvoyantRouter,
    KNNRouter,
    ZeroRouter,
    best_single_llm,
    lower_hull,
    random_mixture_curve,
)
from iclr26.inference.uniroute.curve import (
    DeferralCurve,
    audc,
    curve_from_routes,
    lambda_grid,
    normalize_costs,
    quality_neutral_cost,
    route_scores,
)
from iclr26.inference.uniroute.embedders import HFMeanPoolEmbedder, TfidfSvdEmbedder
from iclr26.inference.uniroute.learned_map import cluster_map_loss, fit_cluster_map, soft_assign
from iclr26.inference.uniroute.pool_router import PoolRouter
from iclr26.inference.uniroute.router import MODES, UniRouter, cluster_errors
from iclr26.inference.uniroute.synthetic import (
    RoutingData,
    make_irt_pool,
    make_multidomain_pool,
    split_llms,
    split_prompts,
)
from iclr26.inference.uniroute.table import REQUIRED_COLUMNS, load_routing_table, save_routing_table

__all__ = [
    "MODES",
    "REQUIRED_COLUMNS",
    "ClairvoyantRouter",
    "DeferralCurve",
    "HFMeanPoolEmbedder",
    "KNNRouter",
    "PoolRouter",
    "RoutingData",
    "TfidfSvdEmbedder",
    "UniRouter",
    "ZeroRouter",
    "audc",
    "best_single_llm",
    "cluster_errors",
    "cluster_map_loss",
    "curve_from_routes",
    "fit_cluster_map",
    "lambda_grid",
    "load_routing_table",
    "lower_hull",
    "make_irt_pool",
    "make_multidomain_pool",
    "normalize_costs",
    "quality_neutral_cost",
    "random_mixture_curve",
    "route_scores",
    "save_routing_table",
    "soft_assign",
    "split_llms",
    "split_prompts",
]
