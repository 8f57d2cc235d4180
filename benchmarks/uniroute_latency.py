"""UniRoute: routing latency per 1,000 prompts, and the cost saved at equal quality vs the best single LLM.

One split of the quick budget's pool (16 domains, 60 scikit-learn "LLMs", 30 training / 30 unseen; prompts
60/10/30). Every router is fitted as in the reproduction (K and k fixed here, not tuned) and routes the unseen
pool. Latency: best of `--repeats` wall times of ``route(X, lam)`` on 1,000 test-prompt embeddings (embedding
time excluded; one BLAS thread). Cost saved: the best single LLM is the most accurate unseen LLM on S_val; the
router's quality-neutral cost is the smallest mean cost at which its deferral curve reaches that LLM's test
accuracy; saved = 1 - that cost / the LLM's cost (both in parameter counts). "never" means the router's curve
never reaches the best LLM's accuracy.

    python benchmarks/uniroute_latency.py [--seed 0] [--K 30] [--knn-k 40] [--repeats 5] [--pool irt]
"""

import argparse
import time

import numpy as np
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


def latency_ms(router, X: np.ndarray, lam: float, repeats: int) -> float:
    """Best-of-`repeats` milliseconds to route the rows of X, scaled to 1,000 prompts."""
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        router.route(X, lam)
        best = min(best, time.perf_counter() - t0)
    return 1e3 * best * 1000 / X.shape[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--K", type=int, default=30)
    parser.add_argument("--knn-k", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--pool", choices=["multidomain", "irt"], default="multidomain")
    args = parser.parse_args()
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
        val_errors = data.errors[np.ix_(s.val, s.test_llms)]
        best = best_single_llm(val_errors)
        best_acc = 1.0 - test_errors[:, best].mean()
        print(
            f"best single unseen LLM (by S_val): {data.llm_names[s.test_llms[best]]}, test accuracy {best_acc:.4f}, "
            f"cost {costs[best]:.0f} (pool costs {costs.min():.0f} .. {costs.max():.0f})"
        )
        X1k = T[np.arange(1000) % T.shape[0]]
        lam = 0.05 / (costs.max() - costs.min())  # a mid-curve lambda in the pool's cost units
        print(
            f"{'router':26s} {'ms / 1k prompts':>16s} {'AUDC':>7s} {'cost at best acc':>17s} {'saved vs best':>14s}"
        )
        for name, router in routers.items():
            ms = latency_ms(router, X1k, lam, args.repeats)
            curve = router.deferral_curve(T, test_errors)
            qnc = curve.quality_neutral_cost(best_acc)
            if np.isnan(qnc):
                cost_txt, saved_txt = "never", "-"
            else:
                raw = costs.min() + qnc * (costs.max() - costs.min())
                cost_txt, saved_txt = f"{raw:.0f}", f"{1.0 - raw / costs[best]:.1%}"
            print(f"{name:26s} {ms:16.2f} {curve.area():7.4f} {cost_txt:>17s} {saved_txt:>14s}")


if __name__ == "__main__":
    main()
