"""UniRoute ("Universal Model Routing for Efficient LLM Inference"): oracle and correctness tests."""

import itertools

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from iclr26.harness.claims import Outcome
from iclr26.harness.stats import t_interval
from iclr26.inference.uniroute import (
    ClairvoyantRouter,
    HFMeanPoolEmbedder,
    KNNRouter,
    TfidfSvdEmbedder,
    UniRouter,
    ZeroRouter,
    audc,
    cluster_errors,
    cluster_map_loss,
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
    split_prompts,
)
from iclr26.inference.uniroute.claim_check import gap_closed, pool_interval, uniroute_claim
from iclr26.inference.uniroute.experiment import EXPERIMENT, UniRouteConfig, run

MODES = ["kmeans", "learned_map"]


@pytest.fixture(scope="module")
def data():
    return make_irt_pool(n_prompts=900, n_llms=6, n_topics=4, seed=3)


@pytest.fixture(scope="module")
def split(data):
    return split_prompts(data.n_prompts, np.random.default_rng(0))


def build(router, data, split, llms=None, mode_fit=True):
    """Fit `router` (UniRouter: train LLMs = all) and add `llms` (default all) from their S_val errors."""
    tr, va, _ = split
    if isinstance(router, UniRouter):
        router.fit(data.embeddings[tr], data.errors[tr], data.embeddings[va], data.errors[va])
    else:
        router.fit(data.embeddings[va])
    for j in range(data.n_llms) if llms is None else llms:
        router.add_llm(data.llm_names[j], data.errors[va, j], data.costs[j])
    return router


# --- curves and the routing rule ---------------------------------------------------------------------------------
def test_audc_by_hand():
    assert audc(np.array([0.0, 1.0]), np.array([0.5, 0.9])) == pytest.approx(0.7)
    assert audc(np.array([0.0, 0.5]), np.array([0.5, 0.9])) == pytest.approx(0.5 * 0.7 + 0.5 * 0.9)
    # unsorted input and a constant curve
    assert audc(np.array([0.5, 0.0, 1.0]), np.array([0.8, 0.6, 0.9])) == pytest.approx(
        0.25 * 1.4 + 0.25 * 1.7
    )
    assert audc(np.array([0.0, 0.3, 1.0]), np.full(3, 0.42)) == pytest.approx(0.42)
    with pytest.raises(ValueError, match="normalised"):
        audc(np.array([0.0, 2.0]), np.array([0.5, 0.5]))


def test_quality_neutral_cost():
    cost, acc = np.array([0.0, 0.2, 0.6, 1.0]), np.array([0.5, 0.7, 0.9, 0.9])
    assert quality_neutral_cost(cost, acc, 0.8) == pytest.approx(0.4)
    assert quality_neutral_cost(cost, acc, 0.5) == 0.0
    assert np.isnan(quality_neutral_cost(cost, acc, 0.95))


def test_route_scores_limits():
    rng = np.random.default_rng(0)
    gamma, costs = rng.uniform(size=(50, 5)), np.array([3.0, 1.0, 2.0, 1.0, 5.0])
    assert np.array_equal(route_scores(gamma, costs, 0.0), gamma.argmin(axis=1))
    cheapest = route_scores(gamma, costs, np.inf)
    assert set(cheapest.tolist()) <= {1, 3}  # both are the cheapest; the lower predicted error wins
    assert np.array_equal(cheapest, np.where(gamma[:, 1] <= gamma[:, 3], 1, 3))
    assert np.array_equal(route_scores(gamma, costs, 1e9), cheapest)


def test_lambda_grid_reaches_cheapest():
    rng = np.random.default_rng(1)
    costs = rng.uniform(1, 100, 8)
    grid = lambda_grid(costs)
    assert grid[0] == 0.0 and np.all(np.diff(grid) > 0) and grid.size == 201
    gamma = rng.uniform(size=(100, 8))
    assert np.all(route_scores(gamma, normalize_costs(costs), grid[-1]) == np.argmin(costs))


def test_cluster_errors_matches_loop():
    rng = np.random.default_rng(2)
    E, assign, K = rng.integers(0, 2, (40, 3)).astype(float), rng.integers(0, 6, 40), 7
    psi = cluster_errors(E, assign, K)
    for h, k in itertools.product(range(3), range(K)):
        rows = [E[i, h] for i in range(40) if assign[i] == k]
        expected = sum(rows) / len(rows) if rows else E[:, h].mean()
        assert psi[h, k] == pytest.approx(expected)
    assert np.allclose(cluster_errors(E[:, 0], assign, K), psi[0])


# --- the brief's limit cases ------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
def test_k1_is_zero_router(data, split, mode):
    """K = 1: routes are prompt-independent and every choice is a hull vertex; the curve lies on ZeroRouter's."""
    _, _, te = split
    uni = build(UniRouter(n_clusters=1, mode=mode, random_state=0), data, split)
    zero = build(ZeroRouter(), data, split)
    hull = set(zero.hull_vertices().tolist())
    X = data.embeddings[te]
    for lam in lambda_grid(data.costs):
        routes = uni.route(X, lam * (data.costs.max() - data.costs.min()))
        assert np.unique(routes).size == 1 and int(routes[0]) in hull
    zero_curve = zero.deferral_curve(X, data.errors[te])
    vertices = set(zip(zero_curve.cost.round(12), zero_curve.accuracy.round(12)))
    uni_curve = uni.deferral_curve(X, data.errors[te])
    assert set(zip(uni_curve.cost.round(12), uni_curve.accuracy.round(12))) <= vertices


def test_centroids_at_validation_prompts_is_1nn(data, split):
    _, va, te = split
    uni = build(UniRouter(mode="kmeans", centroids=data.embeddings[va]), data, split)
    knn = build(KNNRouter(n_neighbors=1), data, split)
    X = data.embeddings[te]
    assert uni.n_clusters_ == va.size
    assert np.array_equal(uni.predict_error(X), knn.predict_error(X))
    for lam in [0.0, 0.01, 0.1, 1.0, np.inf]:
        assert np.array_equal(uni.route(X, lam), knn.route(X, lam))


@pytest.mark.parametrize("mode", MODES)
def test_lambda_limits(data, split, mode):
    _, _, te = split
    uni = build(UniRouter(n_clusters=6, mode=mode, random_state=0), data, split)
    X = data.embeddings[te]
    cheapest = int(np.argmin(data.costs))
    assert np.all(uni.route(X, np.inf) == cheapest)
    assert np.all(uni.route(X, 1e6) == cheapest)
    assert np.array_equal(uni.route(X, 0.0), uni.predict_error(X).argmin(axis=1))


@pytest.mark.parametrize("mode", MODES)
def test_dominated_llm_never_changes_a_route(data, split, mode):
    _, va, te = split
    uni = build(UniRouter(n_clusters=6, mode=mode, random_state=0), data, split)
    X = data.embeddings[te]
    lams = [0.0, *np.geomspace(1e-4, 10.0, 25), np.inf]
    before = [uni.route(X, lam) for lam in lams]
    for j in range(data.n_llms):
        worse = data.errors[va, j] + 0.5 * (1.0 - data.errors[va, j])  # higher error in every cluster
        uni.add_llm(f"dominated-{j}", worse, data.costs[j] * 1.5)
        assert np.all(uni.psi_[-1] >= uni.psi_[j])
        for lam, routes in zip(lams, before):
            assert np.array_equal(uni.route(X, lam), routes)
        uni.remove_llm(f"dominated-{j}")


@pytest.mark.parametrize(
    "router", [UniRouter(6, "kmeans", random_state=0), UniRouter(6, "learned_map"), KNNRouter(7)]
)
def test_deferral_cost_monotone_in_lambda(data, split, router):
    _, _, te = split
    curve = build(clone(router), data, split).deferral_curve(data.embeddings[te], data.errors[te])
    assert np.all(np.diff(curve.lams) > 0)
    assert np.all(np.diff(curve.cost) <= 1e-12)
    assert curve.cost[-1] == 0.0  # the grid reaches the cheapest LLM
    assert np.allclose(curve.share.sum(axis=1), 1.0)


def test_learned_map_theta_zero_is_uniform(data, split):
    _, _, te = split
    uni = build(UniRouter(n_clusters=5, mode="learned_map", random_state=0), data, split)
    uni.theta_ = np.zeros_like(uni.theta_)
    z = uni.cluster_weights(data.embeddings[te])
    assert np.allclose(z, 1.0 / 5)
    gamma = uni.predict_error(data.embeddings[te])
    assert np.allclose(gamma, gamma[0])  # prompt-independent: the mean over clusters of Psi_K
    assert np.allclose(gamma[0], uni.psi_.mean(axis=1))


# --- the learned map --------------------------------------------------------------------------------------------
def test_cluster_map_gradient_matches_finite_differences():
    rng = np.random.default_rng(4)
    X, E = rng.normal(size=(25, 3)), rng.integers(0, 2, (25, 4)).astype(float)
    psi, theta = rng.uniform(0.05, 0.95, (4, 5)), rng.normal(size=(5, 4))
    loss, grad = cluster_map_loss(theta, X, E, psi, weight_decay=0.01)
    num = np.zeros_like(theta)
    for idx in np.ndindex(theta.shape):
        d = np.zeros_like(theta)
        d[idx] = 1e-6
        num[idx] = (
            cluster_map_loss(theta + d, X, E, psi, 0.01)[0] - cluster_map_loss(theta - d, X, E, psi, 0.01)[0]
        ) / 2e-6
    assert np.allclose(grad, num, atol=1e-7)
    # the loss is the plain BCE of z^T Psi plus the L2 term
    p = soft_assign(theta, X) @ psi.T
    bce = -(E * np.log(p) + (1 - E) * np.log(1 - p)).mean()
    assert loss == pytest.approx(bce + 0.005 * np.sum(theta[:, :-1] ** 2))


def test_learned_map_training_lowers_its_loss(data, split):
    uni = build(UniRouter(n_clusters=6, mode="learned_map", random_state=0), data, split)
    start, end = uni.map_loss_
    assert end < start
    z = uni.cluster_weights(data.embeddings[:10])
    assert np.allclose(z.sum(axis=1), 1.0) and np.all(z > 0)


# --- the pool and the estimator API ----------------------------------------------------------------------------
def test_add_remove_llm_roundtrip(data, split):
    _, va, te = split
    uni = build(UniRouter(n_clusters=6, random_state=0), data, split)
    X = data.embeddings[te]
    gamma = uni.predict_error(X)
    uni.remove_llm(data.llm_names[2])
    assert uni.pool_size == data.n_llms - 1 and data.llm_names[2] not in uni.llm_names_
    assert np.array_equal(uni.predict_error(X), np.delete(gamma, 2, axis=1))
    uni.add_llm(data.llm_names[2], data.errors[va, 2], data.costs[2])
    assert np.array_equal(uni.predict_error(X)[:, -1], gamma[:, 2])
    with pytest.raises(ValueError, match="already in the pool"):
        uni.add_llm(data.llm_names[0], data.errors[va, 0], 1.0)
    with pytest.raises(ValueError, match="not in the pool"):
        uni.remove_llm("nobody")


def test_soft_errors_allowed(data, split):
    _, va, te = split
    uni = build(UniRouter(n_clusters=4, random_state=0), data, split, llms=[])
    uni.add_llm("soft", np.full(va.size, 0.25), 1.0)
    assert np.allclose(uni.predict_error(data.embeddings[te]), 0.25)


def test_sklearn_conventions(data, split):
    router = UniRouter(n_clusters=7, mode="learned_map", weight_decay=1e-3, random_state=1)
    assert router.get_params()["n_clusters"] == 7
    copy = clone(router).set_params(n_clusters=3)
    assert copy.n_clusters == 3 and router.n_clusters == 7
    with pytest.raises(NotFittedError):
        router.predict_error(data.embeddings[:3])
    with pytest.raises(NotFittedError):
        router.add_llm("a", [0, 1], 1.0)
    tr, va, _ = split
    router.fit(data.embeddings[tr], data.errors[tr], data.embeddings[va])
    assert router.centroids_.shape == (7, data.embeddings.shape[1]) and router.theta_.shape == (7, 17)


def test_deterministic_given_random_state(data, split):
    _, _, te = split
    a = build(UniRouter(n_clusters=6, mode="learned_map", random_state=5), data, split)
    b = build(UniRouter(n_clusters=6, mode="learned_map", random_state=5), data, split)
    assert np.array_equal(a.predict_error(data.embeddings[te]), b.predict_error(data.embeddings[te]))


# --- baselines --------------------------------------------------------------------------------------------------
def test_lower_hull_is_the_set_of_argmins():
    rng = np.random.default_rng(6)
    for _ in range(20):
        costs, errors = rng.uniform(1, 10, 9), rng.uniform(0, 1, 9)
        hull = lower_hull(costs, errors)
        argmins = {int(np.argmin(errors + lam * costs)) for lam in [0.0, *np.geomspace(1e-5, 1e5, 4000)]}
        assert set(hull.tolist()) == argmins
        assert np.all(np.diff(costs[hull]) > 0) and np.all(np.diff(errors[hull]) < 0)


def test_zero_router_curve_visits_every_vertex(data, split):
    _, va, te = split
    zero = build(ZeroRouter(), data, split)
    curve = zero.deferral_curve(data.embeddings[te], data.errors[te])
    visited = {int(np.flatnonzero(row)[0]) for row in curve.share}
    assert visited == set(zero.hull_vertices().tolist())
    rng = np.random.default_rng(0)
    hull = zero.hull_vertices()
    budget = 0.5 * (data.costs[hull[0]] + data.costs[hull[-1]])
    routes = zero.route_budget(np.zeros((20_000, data.embeddings.shape[1])), budget, rng)
    assert data.costs[routes].mean() == pytest.approx(budget, rel=0.02)
    assert set(np.unique(routes).tolist()) <= set(hull.tolist())


def test_knn_router_matches_loop(data, split):
    _, va, te = split
    knn = build(KNNRouter(n_neighbors=5), data, split)
    X = data.embeddings[te[:20]]
    gamma = knn.predict_error(X)
    for i, x in enumerate(X):
        near = np.argsort(((data.embeddings[va] - x) ** 2).sum(axis=1), kind="stable")[:5]
        assert np.allclose(gamma[i], data.errors[va][near].mean(axis=0))


def test_clairvoyant_router(data, split):
    tr, _, te = split
    E = data.errors[tr].copy()
    E[:, 0] = 0.0  # an LLM that is always right on the training prompts
    oracle = ClairvoyantRouter(hidden_layer_sizes=(16,), max_iter=20, random_state=0)
    oracle.fit(data.embeddings[tr], E, data.costs, data.llm_names)
    gamma = oracle.predict_error(data.embeddings[te])
    assert gamma.shape == (te.size, data.n_llms) and np.all(gamma[:, 0] == 0.0)
    assert np.all((gamma >= 0) & (gamma <= 1))
    with pytest.raises(ValueError, match="fixed pool"):
        oracle.add_llm("new", np.zeros(3), 1.0)


def test_random_mixture_curve_endpoints(data, split):
    _, va, te = split
    curve = random_mixture_curve(data.errors[te], data.costs, data.errors[va], n_points=5)
    cheap, best = int(np.argmin(data.costs)), int(np.argmin(data.errors[va].mean(axis=0)))
    assert curve.accuracy[0] == pytest.approx(1 - data.errors[te, cheap].mean())
    assert curve.accuracy[-1] == pytest.approx(1 - data.errors[te, best].mean())
    assert np.allclose(np.diff(curve.cost), np.diff(curve.cost)[0])  # a straight segment


# --- embedders --------------------------------------------------------------------------------------------------
PROMPTS = [
    "add two and three",
    "sort the list of numbers",
    "add seven and nine",
    "reverse the list",
    "what is four plus one",
    "sort these words",
] * 5


def test_uniroute_on_raw_text_with_tfidf():
    is_math = np.array(["add" in p or "plus" in p for p in PROMPTS])
    uni = UniRouter(n_clusters=2, embedder=TfidfSvdEmbedder(n_components=4), random_state=0)
    uni.fit(PROMPTS[:20], None, PROMPTS[20:])
    # "math" is right on arithmetic and wrong elsewhere; "lists" the opposite
    uni.add_llm("math", (~is_math[20:]).astype(float), 1.0).add_llm("lists", is_math[20:].astype(float), 1.0)
    routes = uni.route(["add one and one", "sort the list"], lam=0.0)
    assert routes.tolist() == [0, 1]


def test_hf_mean_pool_embedder():
    torch = pytest.importorskip("torch")
    from transformers import BertConfig, BertModel

    from iclr26.lab.corpora.tokenizers import train_tokenizer

    tok = train_tokenizer(" ".join(PROMPTS), kind="char")
    torch.manual_seed(0)
    cfg = BertConfig(
        vocab_size=len(tok), hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32
    )
    model = BertModel(cfg)
    emb = HFMeanPoolEmbedder(model, tok, batch_size=2)
    out = emb(["add two", "sort the list of numbers", "add"])
    assert out.shape == (3, 16)
    # padding never changes a prompt's embedding: alone equals batched with longer prompts
    assert np.allclose(emb(["add"])[0], out[2], atol=1e-5)
    ids = tok(["add two"], return_tensors="pt")
    with torch.no_grad():
        manual = model(input_ids=ids["input_ids"]).last_hidden_state.mean(dim=1)[0].numpy()
    assert np.allclose(out[0], manual, atol=1e-5)


# --- routing tables ---------------------------------------------------------------------------------------------
def write_table(path, rows, columns=("prompt_id", "embedding", "llm", "correct", "cost", "split")):
    lines = [",".join(columns)] + [",".join(str(v) for v in row) for row in rows]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_table_roundtrip(tmp_path, data, split):
    _, va, te = split
    labels = np.full(data.n_prompts, "train", dtype=object)
    labels[va], labels[te] = "val", "test"
    save_routing_table(data, tmp_path / "pool.csv", split=labels)
    loaded = load_routing_table(tmp_path / "pool.csv")
    assert loaded.llm_names == data.llm_names
    assert np.array_equal(loaded.errors, data.errors)
    assert np.allclose(loaded.costs, data.costs) and np.allclose(loaded.embeddings, data.embeddings)
    assert np.array_equal(loaded.split, labels)


def test_table_with_text_and_error_column(tmp_path):
    rows = [
        (f"p{i}", text, llm, int(("add" in text) == (llm == "b")), 2.0 if llm == "a" else 1.0, "val")
        for i, text in enumerate(PROMPTS[:6])
        for llm in ("a", "b")
    ]
    path = write_table(
        tmp_path / "t.csv", rows, ("prompt_id", "prompt_text", "llm", "error", "cost", "split")
    )
    loaded = load_routing_table(path)
    assert loaded.embeddings.shape[0] == 6 and loaded.errors.shape == (6, 2)
    assert loaded.errors[0].tolist() == [0.0, 1.0]  # "add two and three": error column read as is


def test_table_validation(tmp_path):
    good = [
        ("p1", "0 1", "a", 1, 1.0, "val"),
        ("p1", "0 1", "b", 0, 2.0, "val"),
        ("p2", "1 0", "a", 0, 1.0, "test"),
        ("p2", "1 0", "b", 1, 2.0, "test"),
    ]
    assert load_routing_table(write_table(tmp_path / "ok.csv", good)).n_llms == 2
    no_cost = write_table(
        tmp_path / "c.csv",
        [r[:4] + r[5:] for r in good],
        ("prompt_id", "embedding", "llm", "correct", "split"),
    )
    with pytest.raises(ValueError, match="lacks column.*cost"):
        load_routing_table(no_cost)
    bad = [r if i != 1 else (*r[:3], "yes", *r[4:]) for i, r in enumerate(good)]
    with pytest.raises(ValueError, match="'correct' must be numeric.*row 3.*'b'"):
        load_routing_table(write_table(tmp_path / "n.csv", bad))
    bad = [r if i != 2 else (*r[:4], "cheap", r[5]) for i, r in enumerate(good)]
    with pytest.raises(ValueError, match="'cost' must be numeric.*row 4"):
        load_routing_table(write_table(tmp_path / "m.csv", bad))
    novals = good + [("p3", "1 1", "c", 1, 3.0, "test")]
    with pytest.raises(ValueError, match="llm 'c' has no validation rows"):
        load_routing_table(write_table(tmp_path / "v.csv", novals))
    with pytest.raises(ValueError, match="appears twice"):
        load_routing_table(write_table(tmp_path / "d.csv", good + [good[0]]))
    nosplit = write_table(
        tmp_path / "s.csv", [r[:5] for r in good], ("prompt_id", "embedding", "llm", "correct", "cost")
    )
    with pytest.raises(ValueError, match="val_prompt_ids"):
        load_routing_table(nosplit)
    assert load_routing_table(nosplit, val_prompt_ids=["p1"]).split.tolist() == ["val", "train"]


# --- synthetic pools, claim and experiment ----------------------------------------------------------------------
def test_synthetic_pools_are_seeded():
    a, b = make_irt_pool(200, 4, seed=1), make_irt_pool(200, 4, seed=1)
    assert np.array_equal(a.errors, b.errors) and np.array_equal(a.embeddings, b.embeddings)
    m = make_multidomain_pool(n_prompts=160, n_llms=5, n_domains=4, seed=2)
    m2 = make_multidomain_pool(n_prompts=160, n_llms=5, n_domains=4, seed=2)
    assert np.array_equal(m.errors, m2.errors) and np.all(m.costs > 0)
    assert set(np.unique(m.errors).tolist()) <= {0.0, 1.0}
    # specialists: on average a model is more accurate on the domains it was trained on
    big = make_multidomain_pool(n_prompts=800, n_llms=12, n_domains=4, seed=0)
    gaps = []
    for j, doms in enumerate(big.info["specialties"]):
        own = np.isin(big.domains, doms)
        if 0 < own.sum() < own.size:
            gaps.append(big.errors[~own, j].mean() - big.errors[own, j].mean())
    assert len(gaps) >= 3 and np.mean(gaps) > 0.05


def rows(map_, zero, knn, oracle, kmeans=None, pools=None):
    n = len(map_)
    kmeans = map_ if kmeans is None else kmeans
    pools = list(range(n)) if pools is None else pools
    return [
        {
            "audc_uniroute_map": map_[i],
            "audc_uniroute_kmeans": kmeans[i],
            "audc_zero": zero[i],
            "audc_knn": knn[i],
            "audc_oracle": oracle[i],
            "pool_seed": float(pools[i]),
            "gain_oracle_vs_zero": oracle[i] - zero[i],
        }
        for i in range(n)
    ]


def test_claim_check_outcomes():
    decide = uniroute_claim()
    zero, oracle = [0.70, 0.71, 0.69, 0.70], [0.85, 0.86, 0.84, 0.85]
    good = rows([0.83, 0.84, 0.82, 0.835], zero, [0.80, 0.81, 0.79, 0.80], oracle)
    assert decide(good).outcome is Outcome.SUPPORTED
    not_knn = rows([0.83, 0.84, 0.82, 0.835], zero, [0.84, 0.85, 0.83, 0.845], oracle)
    assert decide(not_knn).outcome is Outcome.INCONCLUSIVE
    small_gap = rows([0.72, 0.73, 0.71, 0.725], zero, [0.70, 0.70, 0.70, 0.70], oracle)
    assert decide(small_gap).outcome is Outcome.INCONCLUSIVE
    # sabotage: ZeroRouter's own numbers in place of UniRoute's can never be supported
    assert decide(rows(zero, zero, [0.6] * 4, oracle)).outcome is not Outcome.SUPPORTED
    assert decide(rows([0.69, 0.70, 0.68, 0.69], zero, [0.6] * 4, oracle)).outcome is Outcome.NOT_SUPPORTED
    # an interval of (a) that reaches 0 is no refutation (the old rule said not supported)
    assert decide(rows([0.69, 0.72, 0.70, 0.71], zero, [0.6] * 4, oracle)).outcome is Outcome.INCONCLUSIVE
    assert np.isnan(gap_closed(np.array([0.8]), np.array([0.7]), np.array([0.6])))


def test_pool_interval_averages_within_pools_first():
    values = np.array([0.10, 0.11, 0.12, -0.02, -0.01, 0.0, 0.05, 0.06, 0.04])
    pools = np.array([0, 0, 0, 1, 1, 1, 2, 2, 2])
    iv = pool_interval(values, pools)
    means = np.array([0.11, -0.01, 0.05])
    assert iv.n == 3 and iv.estimate == pytest.approx(means.mean())
    half = float(__import__("scipy").stats.t.ppf(0.975, 2)) * means.std(ddof=1) / np.sqrt(3)
    assert (iv.lo, iv.hi) == pytest.approx((means.mean() - half, means.mean() + half))


def test_claim_clusters_pairs_by_pool():
    # 15 pairs from 3 pools: each pool's 5 splits agree closely, the pools disagree. As 15 independent pairs the
    # gain over ZeroRouter looks clear; over 3 pool means it is not.
    gain = {0: 0.04, 1: -0.01, 2: 0.01}
    pools = [p for p in range(3) for _ in range(5)]
    zero = [0.70] * 15
    ours = [0.70 + gain[p] + 0.001 * (k % 5 - 2) for k, p in enumerate(pools)]
    r = rows(ours, zero, [0.5] * 15, [0.72] * 15, pools=pools)
    paired = t_interval(np.array(ours) - 0.70)
    assert paired.lo > 0  # what the old, pair-level interval would have said
    verdict = uniroute_claim()(r)
    assert verdict.outcome is Outcome.INCONCLUSIVE and verdict.interval[0] <= 0
    assert "3 pool means" in verdict.explanation
    # one pool for every pair: no interval across pools -> inconclusive
    assert uniroute_claim()(rows(ours, zero, [0.5] * 15, [0.72] * 15, pools=[0] * 15)).outcome is (
        Outcome.INCONCLUSIVE
    )


def test_precondition_routing_can_help():
    claim = EXPERIMENT.claims[0]
    zero, oracle = [0.70, 0.71, 0.69, 0.70], [0.85, 0.86, 0.84, 0.85]
    good = rows([0.83, 0.84, 0.82, 0.835], zero, [0.80, 0.81, 0.79, 0.80], oracle)
    assert claim.judge(good).outcome is Outcome.SUPPORTED  # a pool where routing helps: a real verdict
    flat = rows([0.83, 0.84, 0.82, 0.835], zero, [0.80, 0.81, 0.79, 0.80], [0.69, 0.85, 0.84, 0.85])
    assert claim.judge(flat).outcome is Outcome.NOT_REPRODUCED


def test_experiment_run_produces_claim_metrics():
    cfg = UniRouteConfig(
        pool="irt",
        n_prompts=600,
        n_llms=6,
        n_train_llms=3,
        n_domains=3,
        n_splits=2,
        k_grid=(2, 4),
        knn_grid=(1, 5),
        map_max_iter=10,
        oracle_hidden=8,
        oracle_max_iter=5,
        k_sweep=(2, 3),
        n_sweep=(0.5, 1.0),
    )
    out = run(cfg, 3, "cpu")
    assert out.values["pool_seed"] == 1 and out.values["split"] == 1
    missing = [m for m in EXPERIMENT.claim_metrics if m not in out.values]
    assert not missing
    for name in ("uniroute_map", "zero", "oracle", "random"):
        assert 0.0 <= out.values[f"audc_{name}"] <= 1.0
    assert out.values["sweepK_1_uniroute_kmeans"] > 0 and out.values["sweepN_0_N"] == 30.0


def test_experiment_on_a_table(tmp_path):
    pool = make_irt_pool(300, 6, seed=0)
    labels = np.array(["train"] * 180 + ["val"] * 30 + ["test"] * 90, dtype=object)
    save_routing_table(pool, tmp_path / "pool.csv", split=labels)
    cfg = UniRouteConfig(
        pool="table",
        data_path=str(tmp_path / "pool.csv"),
        n_train_llms=3,
        k_grid=(2,),
        knn_grid=(1, 3),
        map_max_iter=5,
        oracle_hidden=8,
        oracle_max_iter=5,
        k_sweep=(2,),
        n_sweep=(1.0,),
    )
    out = run(cfg, 0, "cpu")
    assert out.values["n_val"] == 30.0 and np.isfinite(out.values["audc_uniroute_map"])


def test_nearest_equals_the_stable_full_sort_ties_included():
    from iclr26.inference.uniroute.distances import _k_smallest_stable

    rng = np.random.default_rng(0)
    for trial in range(200):
        n, m = int(rng.integers(1, 30)), int(rng.integers(2, 50))
        k = int(rng.integers(1, m + 1))
        d2 = rng.integers(0, 4, size=(n, m)).astype(float) if trial % 2 else rng.random((n, m))
        assert np.array_equal(_k_smallest_stable(d2, k), np.argsort(d2, axis=1, kind="stable")[:, :k])
