"""Offline LLM pools for routing experiments: a correctness matrix, costs and prompt embeddings.

Two generators from the UniRoute brief (ICLR 2026, ka82fvJ5f1), both seeded and CPU-only:

* :func:`make_irt_pool` (option C, fast): a 2-parameter IRT simulator. Prompt x has a topic vector t_x and a
  difficulty d_x, LLM h an ability vector a_h; P(correct) = sigmoid(a_h . t_x - d_x); cost grows with ||a_h||;
  the embedding is a noisy random projection of t_x.
* :func:`make_multidomain_pool` (option A, default): "prompts" are points of a 16-domain classification task
  (each domain its own ``make_classification`` rule, label noise and location), "LLMs" are real scikit-learn
  models (logistic regression, MLPs of width 4-256, trees of depth 2-12, k-NN) each trained on a random subset
  of domains with a random amount of data, both growing with the model's capacity; errors are their real
  mistakes, cost is the parameter count (stored values for k-NN).

:class:`RoutingData` also holds user data (:func:`~iclr26.inference.uniroute.table.load_routing_table`).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
from sklearn.datasets import make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.neighbors import KNeighborsClassifier
from sklearn.neural_network import MLPClassifier
from sklearn.tree import DecisionTreeClassifier

from iclr26.checks import check_float, check_int
from iclr26.inference.uniroute.checks import check_costs, check_embeddings, check_errors, check_rng

__all__ = ["RoutingData", "make_irt_pool", "make_multidomain_pool", "split_llms", "split_prompts"]


@dataclass
class RoutingData:
    """A correctness matrix over prompts and LLMs.

    embeddings : (n_prompts, D) prompt embeddings phi(x).
    errors : (n_prompts, n_llms) 0/1 errors (1 = wrong).
    costs : (n_llms,) cost per query, > 0.
    llm_names : the LLMs' names, in column order.
    domains : (n_prompts,) domain / topic id per prompt (synthetic pools), or None.
    prompt_ids : prompt identifiers (tables), or None.
    split : (n_prompts,) "train" / "val" / "test" per prompt when the source fixes it, or None.
    info : free-form description of how the data were made.
    """

    embeddings: np.ndarray
    errors: np.ndarray
    costs: np.ndarray
    llm_names: list[str]
    domains: np.ndarray | None = None
    prompt_ids: list[str] | None = None
    split: np.ndarray | None = None
    info: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_errors(self.errors, "errors", (None, None))
        check_embeddings(self.embeddings, "embeddings")
        check_costs(self.costs)
        n, m = self.errors.shape
        if self.embeddings.shape[0] != n:
            raise ValueError(f"embeddings has {self.embeddings.shape[0]} rows but errors has {n} prompts")
        if self.costs.shape != (m,) or len(self.llm_names) != m:
            raise ValueError(f"costs and llm_names must have one entry per LLM ({m})")
        check_costs(self.costs, size=m)
        if not np.all(np.isfinite(np.asarray(self.embeddings, dtype=float))):
            raise ValueError("embeddings contains non-finite values (NaN or inf)")

    @property
    def n_prompts(self) -> int:
        return int(self.errors.shape[0])

    @property
    def n_llms(self) -> int:
        return int(self.errors.shape[1])


def split_llms(n_llms: int, n_train: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A random split of LLM indices into `n_train` training LLMs and the rest (unseen test LLMs), sorted."""
    check_int("n_llms", n_llms, low=2)
    check_int(f"n_train (of {n_llms} LLMs)", n_train, 1, n_llms - 1)
    check_rng(rng)
    perm = rng.permutation(n_llms)
    return np.sort(perm[:n_train]), np.sort(perm[n_train:])


def split_prompts(
    n_prompts: int, rng: np.random.Generator, fractions: tuple[float, float, float] = (0.6, 0.1, 0.3)
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A random train / S_val / test split of prompt indices with the given fractions (default 60/10/30)."""
    check_int("n_prompts", n_prompts, low=3)
    check_rng(rng)
    f = np.asarray(fractions, dtype=float)
    if f.shape != (3,) or not np.all(f > 0) or not abs(f.sum() - 1.0) <= 1e-9:
        raise ValueError(f"fractions must be three positive numbers summing to 1, got {fractions}")
    perm = rng.permutation(n_prompts)
    a, b = int(round(f[0] * n_prompts)), int(round((f[0] + f[1]) * n_prompts))
    if a < 1 or b - a < 1 or n_prompts - b < 1:
        raise ValueError(f"n_prompts = {n_prompts} is too small for the split {fractions}")
    return np.sort(perm[:a]), np.sort(perm[a:b]), np.sort(perm[b:])


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def make_irt_pool(
    n_prompts: int = 2000,
    n_llms: int = 10,
    n_topics: int = 4,
    dim: int = 16,
    embed_noise: float = 0.3,
    seed: int = 0,
) -> RoutingData:
    """Option C: P(correct | x, h) = sigmoid(a_h . t_x - d_x), cost = 1 + ||a_h||^2 (see the module docstring).

    Each prompt has one main topic (t_x = 3 e_topic + N(0, 0.3^2)) and difficulty d_x ~ N(0, 1); each LLM a
    specialisation: abilities a_h = s_h (0.3 + 1.2 u_h) with a random level s_h and u_h ~ U[0, 1]^T, so LLMs
    differ in which topics they are good at and bigger ones cost more.

    Examples
    --------
    >>> data = make_irt_pool(n_prompts=100, n_llms=3, seed=0)
    >>> data.errors.shape, data.embeddings.shape, bool(np.all(data.costs > 0))
    ((100, 3), (100, 16), True)
    """
    for value, name in ((n_prompts, "n_prompts"), (n_llms, "n_llms"), (n_topics, "n_topics"), (dim, "dim")):
        check_int(name, value, low=1)
    check_float("embed_noise", embed_noise, low=0.0)
    check_int("seed", seed, low=0)
    rng = np.random.default_rng(seed)
    topic = rng.integers(0, n_topics, n_prompts)
    t = 3.0 * np.eye(n_topics)[topic] + rng.normal(0.0, 0.3, (n_prompts, n_topics))
    d = rng.normal(0.0, 1.0, n_prompts)
    level = rng.uniform(0.2, 1.0, n_llms)
    a = level[:, None] * (0.3 + 1.2 * rng.uniform(size=(n_llms, n_topics)))
    p_correct = _sigmoid(t @ a.T - d[:, None])
    errors = (rng.uniform(size=p_correct.shape) >= p_correct).astype(float)
    proj = rng.normal(0.0, 1.0 / np.sqrt(n_topics), (n_topics, dim))
    emb = t @ proj + rng.normal(0.0, embed_noise, (n_prompts, dim))
    costs = 1.0 + (a**2).sum(axis=1)
    return RoutingData(
        embeddings=emb,
        errors=errors,
        costs=costs,
        llm_names=[f"irt{j:02d}" for j in range(n_llms)],
        domains=topic,
        info={"generator": "irt", "seed": seed, "n_topics": n_topics},
    )


def _domain_data(
    n_domains: int, n_per_domain: int, n_features: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """X, y, domain for n_domains * n_per_domain points: each domain its own rule, noise and location."""
    Xs, ys, ds = [], [], []
    for dom in range(n_domains):
        X, y = make_classification(
            n_samples=n_per_domain,
            n_features=n_features,
            n_informative=int(rng.integers(3, min(7, n_features + 1))),
            n_redundant=0,
            n_clusters_per_class=int(rng.integers(2, 4)),
            class_sep=float(rng.uniform(0.6, 2.0)),
            flip_y=float(rng.uniform(0.0, 0.15)),  # domain-specific label noise
            random_state=int(rng.integers(2**31 - 1)),
        )
        Xs.append(X + rng.normal(0.0, 4.0, n_features))  # domain location
        ys.append(y)
        ds.append(np.full(n_per_domain, dom))
    return np.vstack(Xs), np.concatenate(ys), np.concatenate(ds)


def _train_model(
    kind: str, size: float, X: np.ndarray, y: np.ndarray, rng: np.random.Generator, mlp_max_iter: int
) -> tuple[object, float, str]:
    """Fit one pool model of capacity tier `size` in [0, 1]; return it, its cost (parameter count) and a name."""
    n_features = X.shape[1]
    seed = int(rng.integers(2**31 - 1))
    if kind == "logreg":
        model = LogisticRegression(C=float(10 ** rng.uniform(-2, 1)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(X, y)
        return model, float(n_features + 1), "logreg"
    if kind == "mlp":
        width = int(2 ** (2 + round(6 * size)))  # 4 .. 256
        model = MLPClassifier((width,), batch_size=min(512, len(y)), max_iter=mlp_max_iter, random_state=seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(X, y)
        return model, float(n_features * width + 2 * width + 1), f"mlp{width}"
    if kind == "tree":
        depth = 2 + round(10 * size)  # 2 .. 12
        model = DecisionTreeClassifier(max_depth=depth, random_state=seed).fit(X, y)
        return model, float(model.tree_.node_count), f"tree{depth}"
    k = int(rng.choice([1, 3, 5, 9, 15]))
    model = KNeighborsClassifier(n_neighbors=min(k, len(y))).fit(X, y)
    return model, float(len(y) * (n_features + 1)), f"knn{k}"


def make_multidomain_pool(
    n_prompts: int = 8000,
    n_llms: int = 60,
    n_domains: int = 16,
    n_features: int = 10,
    dim: int = 16,
    train_per_domain: tuple[int, int] = (30, 300),
    domains_per_llm: tuple[int, int] = (1, 12),
    mlp_max_iter: int = 200,
    embed_noise: float = 0.5,
    seed: int = 0,
) -> RoutingData:
    """Option A: real models with real errors on a multi-domain task (see the module docstring).

    Each LLM draws its kind (logreg 20%, MLP 35%, tree 30%, k-NN 15%) and a capacity tier s ~ U[0, 1], which
    sets the MLP width 2^(2 + round(6 s)) or the tree depth 2 + round(10 s), and scales how many domains it is
    trained on (within ``domains_per_llm``) and how many points per domain (within ``train_per_domain``), drawn
    from a pool disjoint from the prompts: bigger models are broader generalists, as with LLMs. Each domain is a
    ``make_classification`` rule with 2-3 clusters per class, 3-6 informative features, class separation
    U[0.6, 2], label noise U[0, 0.15] and its own location. The prompt embedding is ``R x + 1.5 e_domain + N(0, embed_noise^2)`` with R a random
    projection of the inputs and e_domain a random unit code per domain.

    Examples
    --------
    >>> data = make_multidomain_pool(n_prompts=320, n_llms=4, n_domains=4, seed=0)
    >>> data.errors.shape, sorted(set(data.domains.tolist()))
    ((320, 4), [0, 1, 2, 3])
    """
    for value, name in (
        (n_prompts, "n_prompts"),
        (n_llms, "n_llms"),
        (n_domains, "n_domains"),
        (n_features, "n_features"),
        (dim, "dim"),
        (mlp_max_iter, "mlp_max_iter"),
    ):
        check_int(name, value, low=1)
    check_float("embed_noise", embed_noise, low=0.0)
    check_int("seed", seed, low=0)
    for name, pair in (("domains_per_llm", domains_per_llm), ("train_per_domain", train_per_domain)):
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise ValueError(f"{name} must be a (lo, hi) pair of ints, got {pair!r}")
        check_int(f"{name}[0]", pair[0])
        check_int(f"{name}[1]", pair[1])
    if n_prompts < n_domains:
        raise ValueError(f"n_prompts = {n_prompts} must be >= n_domains = {n_domains}")
    lo_dom, hi_dom = domains_per_llm
    if not 1 <= lo_dom <= hi_dom:
        raise ValueError(f"domains_per_llm must be (lo, hi) with 1 <= lo <= hi, got {domains_per_llm}")
    lo_n, hi_n = train_per_domain
    if not 5 <= lo_n <= hi_n:
        raise ValueError(f"train_per_domain must be (lo, hi) with 5 <= lo <= hi, got {train_per_domain}")
    rng = np.random.default_rng(seed)
    per_domain = -(-n_prompts // n_domains)
    X_all, y_all, d_all = _domain_data(n_domains, per_domain + hi_n, n_features, rng)
    is_prompt = np.zeros(len(y_all), dtype=bool)
    for dom in range(n_domains):
        idx = np.flatnonzero(d_all == dom)
        is_prompt[idx[:per_domain]] = True
    prompt_idx = np.flatnonzero(is_prompt)[:n_prompts]
    X, y, dom_of = X_all[prompt_idx], y_all[prompt_idx], d_all[prompt_idx]
    kinds = rng.choice(["logreg", "mlp", "tree", "knn"], size=n_llms, p=[0.2, 0.35, 0.3, 0.15])
    errors = np.empty((n_prompts, n_llms))
    costs = np.empty(n_llms)
    names: list[str] = []
    specialties: list[list[int]] = []
    sizes = rng.uniform(size=n_llms)  # capacity tier: width / depth, domain coverage and data grow with it
    for j, (kind, size) in enumerate(zip(kinds, sizes)):
        n_dom = lo_dom + int(round((min(hi_dom, n_domains) - lo_dom) * size * rng.uniform(0.6, 1.0)))
        doms = np.sort(rng.choice(n_domains, size=n_dom, replace=False))
        n_each = lo_n + int(round((hi_n - lo_n) * size * rng.uniform(0.6, 1.0)))
        rows = np.concatenate([np.flatnonzero((d_all == dm) & ~is_prompt)[:n_each] for dm in doms])
        ytr = y_all[rows]
        if np.unique(ytr).size < 2:  # a one-class training set: flip one label so every model can be fitted
            ytr = ytr.copy()
            ytr[0] = 1 - ytr[0]
        model, cost, label = _train_model(str(kind), float(size), X_all[rows], ytr, rng, mlp_max_iter)
        errors[:, j] = (model.predict(X) != y).astype(float)
        costs[j] = cost
        names.append(f"m{j:02d}-{label}-d{n_dom}")
        specialties.append(doms.tolist())
    proj = rng.normal(0.0, 1.0 / np.sqrt(n_features), (n_features, dim))
    codes = rng.normal(0.0, 1.0, (n_domains, dim))
    codes /= np.linalg.norm(codes, axis=1, keepdims=True)
    emb = X @ proj + 1.5 * codes[dom_of] + rng.normal(0.0, embed_noise, (n_prompts, dim))
    return RoutingData(
        embeddings=emb,
        errors=errors,
        costs=costs,
        llm_names=names,
        domains=dom_of,
        info={"generator": "multidomain", "seed": seed, "specialties": specialties, "kinds": kinds.tolist()},
    )
