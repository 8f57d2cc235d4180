"""UniRoute: routing latency per 1,000 prompts against scikit-learn, and the cost saved vs the best single LLM.

One split of the quick budget's pool (16 domains, 60 scikit-learn "LLMs", 30 training / 30 unseen; prompts
60/10/30). Every router is fitted as in the reproduction (K and k fixed here, not tuned) and routes the unseen
pool. Latency: median of `--repeats` interleaved wall times of ``route(X, lam)`` on 1,000 test-prompt embeddings
(embedding time excluded; one BLAS thread), scaled to 1,000 prompts.

The user's alternative, measured in the same interleaved rounds: scikit-learn. For the K-NN router,
``KNeighborsRegressor(n_neighbors=k).fit(V, val_errors).predict(X)`` (the mean of each LLM's errors on the k
nearest validation prompts: the same gamma) followed by ``argmin(gamma + lam * cost)``; for UniRoute in K-means
mode, ``KMeans(...).fit(train).predict(X)`` (the same fit as the router's) and a lookup of the per-cluster
errors; for UniRoute's learned map, which has no library form, the scikit-learn K-NN router, the paper's
prompt-aware baseline a user would otherwise deploy for unseen LLMs. Each row records the share of the 1,000
prompts routed to the same LLM by ours and by the alternative. Cost saved (printed, not a speed ratio): the best
single LLM is the most accurate unseen LLM on S_val; the router's quality-neutral cost is the smallest mean cost
at which its deferral curve reaches that LLM's test accuracy; saved = 1 - that cost / the LLM's cost (both in
parameter counts). "never" means the router's curve never reaches the best LLM's accuracy.

``--small`` (make bench): 5 repeats (the pool and the fits are the same as the default's).

    python benchmarks/uniroute_latency.py [--seed 0] [--K 30] [--knn-k 40] [--repeats 7] [--pool irt]
        [--small] [--json PATH]
"""

import argparse
import time

import numpy as np
from _bench import interleaved, median, row, write_result
from sklearn.cluster import KMeans
from sklearn.neighbors import KNeighborsRegressor
from threadpoolctl import threadpool_limits

from iclr26.inference.uniroute import (
    ClairvoyantRouter,
    KNNRouter,
    UniRouter,
    ZeroRouter,
    best_single_llm,
    make_irt_pool,
    make_multidomain_pool,
)
from iclr26.inference.uniroute.evaluation import make_splits


class SklearnKNN:
    """What a user writes with scikit-learn: a K-NN regressor on the validation errors, then the routing rule."""

    def __init__(self, k: int, V: np.ndarray, val_errors: np.ndarray, costs: np.ndarray) -> None:
        self.model = KNeighborsRegressor(n_neighbors=k).fit(V, val_errors)
        self.costs = costs

    def route(self, X: np.ndarray, lam: float) -> np.ndarray:
        return np.argmin(self.model.predict(X) + lam * self.costs, axis=1)


class SklearnKMeans:
    """scikit-learn KMeans (the router's own fit), ``predict`` and a lookup of the per-cluster validation errors."""

    def __init__(self, km: KMeans, psi: np.ndarray, costs: np.ndarray) -> None:
        self.km, self.psi, self.costs = km, psi, costs

    def route(self, X: np.ndarray, lam: float) -> np.ndarray:
        return np.argmin(self.psi[:, self.km.predict(X)].T + lam * self.costs, axis=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--K", type=int, default=30)
    parser.add_argument("--knn-k", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--pool", choices=["multidomain", "irt"], default="multidomain")
    parser.add_argument("--small", action="store_true", help="make bench setting: 5 repeats")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    if args.small:
        args.repeats = 5
    with threadpool_limits(1):
        t0 = time.perf_counter()
        data = (
            make_multidomain_pool(seed=args.seed)
            if args.pool == "multidomain"
            else make_irt_pool(8000, 60, seed=args.seed)
        )
        print(
            f"pool: {data.n_prompts} prompts x {data.n_llms} LLMs ({args.pool}), built in {time.perf_counter() - t0:.1f} s"
        )
        s = make_splits(data, data.n_llms // 2, np.random.default_rng([args.seed, 0, 7]))
        X, V, T = data.embeddings[s.train], data.embeddings[s.val], data.embeddings[s.test]
        E_tr, Ev_tr = data.errors[np.ix_(s.train, s.train_llms)], data.errors[np.ix_(s.val, s.train_llms)]
        test_errors = data.errors[np.ix_(s.test, s.test_llms)]
        val_errors = data.errors[np.ix_(s.val, s.test_llms)]
        costs = data.costs[s.test_llms]
        routers = {
            "UniRoute (learned map)": UniRouter(args.K, "learned_map", random_state=args.seed).fit(
                X, E_tr, V, Ev_tr
            ),
            "UniRoute (K-means)": UniRouter(args.K, "kmeans", random_state=args.seed).fit(X, None, V),
            f"K-NN (k={args.knn_k})": KNNRouter(args.knn_k).fit(V),
            "ZeroRouter": ZeroRouter().fit(V),
        }
        for router in routers.values():
            for j in s.test_llms:
                router.add_llm(data.llm_names[j], data.errors[s.val, j], data.costs[j])
        routers["clairvoyant MLP"] = ClairvoyantRouter(
            max_iter=100, batch_size=256, random_state=args.seed
        ).fit(X, data.errors[np.ix_(s.train, s.test_llms)], costs)
        km_router = routers["UniRoute (K-means)"]
        km = KMeans(km_router.n_clusters, n_init=km_router.n_init, random_state=args.seed).fit(X)
        same_centroids = bool(np.allclose(km.cluster_centers_, km_router.centroids_))
        alternatives = {
            "sklearn K-NN": SklearnKNN(args.knn_k, V, val_errors, costs),
            "sklearn KMeans": SklearnKMeans(km, km_router.llm_features_, costs),
        }
        best = best_single_llm(val_errors)
        best_acc = 1.0 - test_errors[:, best].mean()
        print(
            f"best single unseen LLM (by S_val): {data.llm_names[s.test_llms[best]]}, test accuracy {best_acc:.4f}, "
            f"cost {costs[best]:.0f} (pool costs {costs.min():.0f} .. {costs.max():.0f})"
        )
        X1k = T[np.arange(1000) % T.shape[0]]
        lam = 0.05 / (costs.max() - costs.min())  # a mid-curve lambda in the pool's cost units
        fns = {name: (lambda r=r: r.route(X1k, lam)) for name, r in {**routers, **alternatives}.items()}
        times = interleaved(fns, args.repeats)
        ms = {name: 1e3 * median(t) * 1000 / X1k.shape[0] for name, t in times.items()}
        routes = {name: fn() for name, fn in fns.items()}
        print(
            f"{'router':26s} {'ms / 1k prompts':>16s} {'AUDC':>7s} {'cost at best acc':>17s} {'saved vs best':>14s}"
        )
        for name, router in routers.items():
            curve = router.deferral_curve(T, test_errors)
            qnc = curve.quality_neutral_cost(best_acc)
            if np.isnan(qnc):
                cost_txt, saved_txt = "never", "-"
            else:
                raw = costs.min() + qnc * (costs.max() - costs.min())
                cost_txt, saved_txt = f"{raw:.0f}", f"{1.0 - raw / costs[best]:.1%}"
            print(f"{name:26s} {ms[name]:16.2f} {curve.area():7.4f} {cost_txt:>17s} {saved_txt:>14s}")
        for name in alternatives:
            print(f"{name:26s} {ms[name]:16.2f}")
    knn = f"K-NN (k={args.knn_k})"
    pairs = [
        (knn, "sklearn K-NN", "KNNRouter.route", f"KNeighborsRegressor(k={args.knn_k}).predict + argmin"),
        (
            "UniRoute (K-means)",
            "sklearn KMeans",
            f"UniRouter(K={args.K}, kmeans).route",
            "sklearn KMeans.predict (same fit"
            + ("" if same_centroids else ", centroids differ")
            + ") + per-cluster error lookup + argmin",
        ),
        (
            "UniRoute (learned map)",
            "sklearn K-NN",
            f"UniRouter(K={args.K}, learned_map).route",
            f"the K-NN router in scikit-learn (KNeighborsRegressor k={args.knn_k}; no library form of the map)",
        ),
    ]
    rows = []
    for ours, alt, ours_txt, alt_txt in pairs:
        agree = float((routes[ours] == routes[alt]).mean())
        print(f"{ours} vs {alt}: {ms[alt] / ms[ours]:.2f}x, same route on {agree:.1%} of prompts")
        rows.append(
            row(
                "uniroute",
                f"route 1,000 prompts to 30 unseen LLMs (same route on {agree:.1%})",
                ours_txt,
                alt_txt,
                ms[alt] / ms[ours],
            )
        )
    write_result(
        args.json,
        {
            "script": "uniroute_latency.py",
            "title": "UniRoute routing latency vs scikit-learn",
            "device": "cpu",
            "settings": {k: v for k, v in vars(args).items() if k != "json"},
            "rows": rows,
            "notes": [],
        },
    )


if __name__ == "__main__":
    main()
