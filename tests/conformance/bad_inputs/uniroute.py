"""Bad input to UniRoute's routers, its deferral curve, its synthetic pools and the routing-table loader."""

import tempfile
from pathlib import Path

import numpy as np

from iclr26.inference.uniroute import (
    ClairvoyantRouter,
    KNNRouter,
    RoutingData,
    TfidfSvdEmbedder,
    UniRouter,
    ZeroRouter,
    audc,
    best_single_llm,
    cluster_errors,
    cluster_map_loss,
    curve_from_routes,
    fit_cluster_map,
    lambda_grid,
    load_routing_table,
    lower_hull,
    make_irt_pool,
    make_multidomain_pool,
    normalize_costs,
    quality_neutral_cost,
    random_mixture_curve,
    route_scores,
    save_routing_table,
    soft_assign,
    split_llms,
    split_prompts,
)
from iclr26.inference.uniroute.experiment import UniRouteConfig

RNG = np.random.default_rng(0)
TRAIN, VAL = RNG.normal(size=(40, 3)), RNG.normal(size=(10, 3))
ERRORS = (RNG.random((10, 2)) < 0.4).astype(float)
HEADER = "prompt_id,embedding,llm,correct,cost,split"


def fitted(mode="kmeans"):
    train_errors = (RNG.random((40, 2)) < 0.4).astype(float)
    return UniRouter(n_clusters=3, mode=mode, random_state=0).fit(TRAIN, train_errors, VAL)


def pooled():
    return fitted().add_llm("a", ERRORS[:, 0], 1.0)


NAN, INF = float("nan"), float("inf")
A4 = np.array([0, 0, 1, 1])


def zero_pool():
    return ZeroRouter().fit(VAL).add_llm("a", ERRORS[:, 0], 1.0).add_llm("b", ERRORS[:, 1], 2.0)


def table(*lines, header=HEADER):
    path = Path(tempfile.mkdtemp()) / "routing.csv"
    path.write_text("\n".join([header, *lines]) + "\n")
    return load_routing_table(path)


CASES = [
    (lambda: fitted().add_llm("a", ERRORS[:7, 0], 1.0), ValueError, ["val_errors", "length N = 10"]),
    (lambda: fitted().add_llm("a", 2 * ERRORS[:, 0], 1.0), ValueError, ["val_errors", "0/1", "[0, 1]"]),
    (lambda: fitted().add_llm("a", ERRORS[:, 0], 0.0), ValueError, ["cost", "> 0"]),
    (lambda: fitted().add_llm("a", ERRORS[:, 0], -3.0), ValueError, ["cost", "> 0"]),
    (lambda: fitted().route(VAL, 0.1), ValueError, ["pool is empty"]),
    (lambda: fitted().predict_error(VAL), ValueError, ["pool is empty"]),
    (lambda: pooled().route(VAL, -1.0), ValueError, ["lam", ">= 0"]),
    (lambda: pooled().predict_error(np.zeros((2, 5))), ValueError, ["prompt_emb", "features"]),
    (lambda: pooled().deferral_curve(VAL, ERRORS), ValueError, ["test_errors", "shape"]),
    (lambda: UniRouter(mode="spectral").fit(TRAIN, None, VAL), ValueError, ["mode"]),
    (lambda: UniRouter(n_clusters=0).fit(TRAIN, None, VAL), ValueError, ["n_clusters", ">= 1"]),
    (lambda: UniRouter(n_clusters=50).fit(TRAIN, None, VAL), ValueError, ["n_clusters", "exceeds"]),
    (
        lambda: UniRouter(mode="learned_map").fit(TRAIN, None, VAL),
        ValueError,
        ["train_llm_errors", "required"],
    ),
    (lambda: UniRouter(n_clusters=3).fit(TRAIN, None, None), ValueError, ["val_prompt_emb", "required"]),
    (
        lambda: UniRouter(n_clusters=3).fit(TRAIN, None, VAL[:, :2]),
        ValueError,
        ["val_prompt_emb", "features"],
    ),
    (lambda: UniRouter(n_clusters=3).fit(["some text"], None, VAL), ValueError, ["embedder"]),
    (lambda: KNNRouter(n_neighbors=11).fit(VAL), ValueError, ["n_neighbors", "N = 10"]),
    (lambda: ZeroRouter().fit(np.full((3, 2), np.nan)), ValueError, ["val_prompt_emb", "non-finite"]),
    (lambda: audc(np.array([0.0, 1.5]), np.array([0.5, 0.6])), ValueError, ["cost", "normalised"]),
    (lambda: make_irt_pool(n_llms=0), ValueError, ["n_llms", ">= 1"]),
    (lambda: UniRouteConfig(pool="embedllm"), ValueError, ["pool"]),
    (lambda: UniRouteConfig(pool="table"), ValueError, ["data_path"]),
    (
        lambda: table("p1,0 1,a,1,val", header="prompt_id,embedding,llm,correct,split"),
        ValueError,
        ["lacks column", "cost"],
    ),
    (lambda: table("p1,0 1,a,right,1.0,val"), ValueError, ["'correct'", "numeric", "row 2", "'a'"]),
    (lambda: table("p1,0 1,a,1,free,val"), ValueError, ["'cost'", "numeric", "row 2"]),
    (lambda: table("p1,0 1,a,1,1.0,val", "p1,0 1,b,1,-2.0,val"), ValueError, ["'cost'", "> 0", "'b'"]),
    (
        lambda: table("p1,0 1,a,1,1.0,val", "p2,1 0,a,0,1.0,test", "p2,1 0,b,0,2.0,test"),
        ValueError,
        ["llm 'b'", "no validation rows"],
    ),
    (
        lambda: UniRouter(n_clusters=3, weight_decay=INF).fit(TRAIN, None, VAL),
        ValueError,
        ["weight_decay", "finite"],
    ),
    (lambda: UniRouter(n_clusters=True).fit(TRAIN, None, VAL), ValueError, ["n_clusters", "int"]),
    (lambda: UniRouter(n_clusters=3, n_init=0).fit(TRAIN, None, VAL), ValueError, ["n_init", ">= 1"]),
    (
        lambda: UniRouter(n_clusters=3, random_state=-1).fit(TRAIN, None, VAL),
        ValueError,
        ["random_state", ">= 0"],
    ),
    (lambda: UniRouter(n_clusters=3, max_iter=True).fit(TRAIN, None, VAL), ValueError, ["max_iter", "int"]),
    (lambda: fitted().add_llm("a", ERRORS[:, 0], True), ValueError, ["cost", "float"]),
    (lambda: fitted().add_llm("a", ERRORS[:, 0], "1.0"), ValueError, ["cost", "float"]),
    (lambda: pooled().route(VAL, NAN), ValueError, ["lam", ">= 0"]),
    (lambda: pooled().route(VAL, True), ValueError, ["lam", "float"]),
    (lambda: cluster_errors(np.ones(4), np.array([0, 0, 5, 1]), 3), ValueError, ["assign", "[0, 3)"]),
    (lambda: cluster_errors(np.ones(4), np.array([0, 0, 1]), 3), ValueError, ["assign", "shape (4,)"]),
    (lambda: cluster_errors(np.ones(4), A4, 0), ValueError, ["n_clusters", ">= 1"]),
    (lambda: cluster_errors(np.full(4, NAN), A4, 2), ValueError, ["val_errors", "non-finite"]),
    (lambda: cluster_errors(np.full(4, 2.0), A4, 2), ValueError, ["val_errors", "[0, 1]"]),
    (lambda: KNNRouter(n_neighbors=True).fit(VAL), ValueError, ["n_neighbors", "int"]),
    (
        lambda: ClairvoyantRouter(alpha=NAN).fit(TRAIN, np.zeros((40, 2)), [1.0, 2.0]),
        ValueError,
        ["alpha", "finite"],
    ),
    (
        lambda: ClairvoyantRouter(batch_size=0).fit(TRAIN, np.zeros((40, 2)), [1.0, 2.0]),
        ValueError,
        ["batch_size", ">= 1"],
    ),
    (
        lambda: ClairvoyantRouter(hidden_layer_sizes=(0,)).fit(TRAIN, np.zeros((40, 2)), [1.0, 2.0]),
        ValueError,
        ["hidden_layer_sizes[0]", ">= 1"],
    ),
    (lambda: zero_pool().route_budget(VAL, NAN, np.random.default_rng(0)), ValueError, ["budget", "finite"]),
    (lambda: zero_pool().route_budget(VAL, 1.5, None), TypeError, ["rng", "Generator"]),
    (lambda: audc(np.array([0.0, 1.0]), np.array([NAN, 0.5])), ValueError, ["accuracy", "finite"]),
    (lambda: audc(np.array([0.0, 1.0]), np.array([2.0, 0.5])), ValueError, ["accuracy", "[0, 1]"]),
    (lambda: best_single_llm(np.zeros((0, 2))), ValueError, ["val_errors", "empty"]),
    (lambda: best_single_llm(np.zeros(3)), ValueError, ["val_errors", "shape"]),
    (lambda: best_single_llm(np.full((3, 2), NAN)), ValueError, ["val_errors", "non-finite"]),
    (
        lambda: cluster_map_loss(np.zeros((3, 4)), TRAIN, np.zeros((40, 2)), np.zeros((2, 3)), NAN),
        ValueError,
        ["weight_decay", "finite"],
    ),
    (
        lambda: cluster_map_loss(np.zeros((3, 2)), TRAIN, np.zeros((40, 2)), np.zeros((2, 3))),
        ValueError,
        ["theta", "(K, D + 1)"],
    ),
    (
        lambda: fit_cluster_map(TRAIN, np.zeros((40, 2)), np.zeros((2, 3)), np.zeros((3, 4)), max_iter=-1),
        ValueError,
        ["max_iter", ">= 0"],
    ),
    (
        lambda: fit_cluster_map(np.full((40, 3), NAN), np.zeros((40, 2)), np.zeros((2, 3)), np.zeros((3, 4))),
        ValueError,
        ["X", "non-finite"],
    ),
    (
        lambda: curve_from_routes(np.array([[0, 5]]), np.zeros((2, 2)), np.ones(2), np.zeros(1)),
        ValueError,
        ["routes", "[0, 2)"],
    ),
    (
        lambda: curve_from_routes(np.array([[0, 1]]), np.zeros((2, 2)), np.ones(3), np.zeros(1)),
        ValueError,
        ["costs", "one entry per LLM"],
    ),
    (
        lambda: curve_from_routes(np.array([[0, 1.5]]), np.zeros((2, 2)), np.ones(2), np.zeros(1)),
        ValueError,
        ["routes", "integer"],
    ),
    (lambda: lambda_grid(np.ones(2), n=2.5), ValueError, ["n", "int"]),
    (lambda: lambda_grid(np.array([1.0, 2.0]), lo=0.0), ValueError, ["lo", "> 0"]),
    (lambda: lambda_grid(np.array([NAN, 2.0])), ValueError, ["costs", "non-finite"]),
    (lambda: lower_hull(np.array([1.0, NAN]), np.array([0.1, 0.2])), ValueError, ["costs", "non-finite"]),
    (lambda: lower_hull(np.array([1.0, 2.0]), np.array([0.1])), ValueError, ["errors", "one entry per LLM"]),
    (lambda: make_irt_pool(n_prompts=50, embed_noise=NAN), ValueError, ["embed_noise", "finite"]),
    (lambda: make_irt_pool(n_prompts=50, embed_noise=-1.0), ValueError, ["embed_noise", ">= 0"]),
    (lambda: make_irt_pool(n_prompts=50, seed=-1), ValueError, ["seed", ">= 0"]),
    (lambda: make_multidomain_pool(n_prompts=200, embed_noise=NAN), ValueError, ["embed_noise", "finite"]),
    (lambda: normalize_costs(np.array([NAN, 1.0])), ValueError, ["costs", "non-finite"]),
    (lambda: normalize_costs(np.array([])), ValueError, ["costs", "non-empty"]),
    (
        lambda: quality_neutral_cost(np.array([0.0, 1.0]), np.array([0.5, 0.9]), NAN),
        ValueError,
        ["target", "finite"],
    ),
    (lambda: quality_neutral_cost(np.array([]), np.array([]), 0.5), ValueError, ["non-empty"]),
    (
        lambda: random_mixture_curve(ERRORS, np.array([1.0, 2.0]), ERRORS, n_points=1),
        ValueError,
        ["n_points", ">= 2"],
    ),
    (lambda: route_scores(np.zeros((2, 2)), np.ones(2), NAN), ValueError, ["lam", ">= 0"]),
    (lambda: route_scores(np.zeros((2, 2)), np.ones(2), -1.0), ValueError, ["lam", ">= 0"]),
    (lambda: route_scores(np.zeros(2), np.ones(2), 1.0), ValueError, ["gamma", "(n, pool)"]),
    (lambda: soft_assign(np.full((3, 4), NAN), TRAIN), ValueError, ["theta", "non-finite"]),
    (lambda: split_llms(3, 1, None), TypeError, ["rng", "Generator"]),
    (lambda: split_llms(3.5, 1, np.random.default_rng(0)), ValueError, ["n_llms", "int"]),
    (lambda: split_prompts(10, None), TypeError, ["rng", "Generator"]),
    (lambda: split_prompts(10, np.random.default_rng(0), (NAN, 0.5, 0.5)), ValueError, ["fractions"]),
    (lambda: TfidfSvdEmbedder(random_state=-1), ValueError, ["random_state", ">= 0"]),
    (
        lambda: RoutingData(np.zeros((3, 2)), np.zeros((3, 2)), -np.ones(2), ["a", "b"]),
        ValueError,
        ["costs", "> 0"],
    ),
    (
        lambda: RoutingData(np.full((3, 2), NAN), np.zeros((3, 2)), np.ones(2), ["a", "b"]),
        ValueError,
        ["embeddings", "non-finite"],
    ),
    (
        lambda: RoutingData(np.zeros((3, 2)), np.full((3, 2), 2.0), np.ones(2), ["a", "b"]),
        ValueError,
        ["errors", "[0, 1]"],
    ),
    (lambda: save_routing_table(None, "/nonexistent/x.csv"), TypeError, ["data", "RoutingData"]),
]
