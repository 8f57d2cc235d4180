"""Oracle tests of the DADO reproduction (arXiv 2511.03032): values, optima, gradients, models, claim rule."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest
import torch

from iclr26.generative.dado import (
    DADO,
    EDA,
    PBIL,
    WEIGHT_CLIP,
    AutoregressiveSearchDistribution,
    JunctionTreeObjective,
    RandomSearch,
    SimulatedAnnealing,
    TreeSearchDistribution,
    advantage_weights,
    tree_values,
)
from iclr26.generative.dado.claim_check import gap_decider, growth_interval
from iclr26.harness.claims import Outcome
from iclr26.lab.threads import limited_threads


@pytest.fixture(autouse=True)
def _one_thread():
    with limited_threads(1):
        yield


def _all_designs(n_vars: int, n_states: int) -> torch.Tensor:
    return torch.tensor(list(itertools.product(range(n_states), repeat=n_vars)), dtype=torch.long)


def _values_of(obj: JunctionTreeObjective, x: torch.Tensor, weights: torch.Tensor | None = None):
    node, edge = obj.terms(x)
    return tree_values(obj.structure, node, edge, obj.clique_states(x), weights)


def _loop_reference(obj: JunctionTreeObjective, x: torch.Tensor) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Slow per-sample, per-clique reference of V, Q, A with dictionaries of group members."""
    st = obj.structure
    node, edge = (t.numpy() for t in obj.terms(x))
    states = obj.clique_states(x).numpy()
    n, c_n = node.shape
    v = node.copy()
    q = np.zeros((n, c_n))
    a = np.zeros((n, c_n))
    for c in reversed(st.order):
        for k in st.children[c]:
            for i in range(n):
                members = [m for m in range(n) if states[m, c] == states[i, c]]
                v[i, c] += sum(q[m, k] for m in members) / len(members)
        p = st.parent[c]
        for i in range(n):
            q[i, c] = v[i, c] + (edge[i, c] if p >= 0 else 0.0)
    for c in range(c_n):
        p = st.parent[c]
        for i in range(n):
            if p < 0:
                a[i, c] = v[i, c]
            else:
                members = [m for m in range(n) if states[m, p] == states[i, p]]
                a[i, c] = q[i, c] - sum(q[m, c] for m in members) / len(members)
    return v, q, a


# ----------------------------------------------------------------------------- advantages
def test_star_tree_zero_edges_matches_hand_computation() -> None:
    g = nx.star_graph(4)  # root 0, leaves 1..4
    rng = np.random.default_rng(0)
    d = 3
    tables = [rng.normal(size=d) for _ in range(5)]
    obj = JunctionTreeObjective(g, d, tables, edge_tables=None, root=0)
    x = torch.randint(d, (40, 5), generator=torch.Generator().manual_seed(1))
    _, _, adv = _values_of(obj, x)
    xs = x.numpy()
    for n in range(40):
        same = xs[:, 0] == xs[n, 0]
        expect_root = tables[0][xs[n, 0]]
        for leaf in range(1, 5):
            leaf_mean = np.mean([tables[leaf][xs[m, leaf]] for m in np.flatnonzero(same)])
            expect_root += leaf_mean
            assert abs(float(adv[n, leaf]) - (tables[leaf][xs[n, leaf]] - leaf_mean)) < 1e-10
        assert abs(float(adv[n, 0]) - expect_root) < 1e-10


@pytest.mark.parametrize("root", [0, 1])
def test_chain_values_are_exact_policy_evaluation(root: int) -> None:
    obj = JunctionTreeObjective.random(3, 2, tree="chain", seed=3, edge_scale=1.5, permute=False)
    obj = JunctionTreeObjective(
        obj.tree, 2, [obj.node_table[c, :2] for c in range(3)],
        {(c - 1, c): obj.edge_table[c, :2, :2] for c in (1, 2)}, root=root,
    )  # fmt: skip
    policy = TreeSearchDistribution.from_objective(obj, hidden=4, init_seed=0)
    with torch.no_grad():
        for p in policy.parameters():
            p.normal_(generator=torch.Generator().manual_seed(7))
    xs = _all_designs(3, 2)
    prob = policy.log_prob(xs).exp().detach()
    assert abs(float(prob.sum()) - 1.0) < 1e-12
    v, q, a = _values_of(obj, xs, weights=prob)
    node, edge = obj.terms(xs)
    st = obj.structure
    for c in range(3):
        sub = [c, *nx.descendants(nx.bfs_tree(obj.tree, root), c)]
        below = node[:, sub].sum(1) + edge[:, [k for k in sub if k != c]].sum(1)
        for n in range(len(xs)):
            same = xs[:, c] == xs[n, c]
            exact = float((prob[same] * below[same]).sum() / prob[same].sum())
            assert abs(float(v[n, c]) - exact) < 1e-8
        p = st.parent[c]
        if p >= 0:
            for n in range(len(xs)):
                same = xs[:, p] == xs[n, p]
                centre = float((prob[same] * q[same, c]).sum() / prob[same].sum())
                assert abs(float(a[n, c]) - (float(q[n, c]) - centre)) < 1e-8


def test_sabotaged_values_fail_the_exact_chain_oracle() -> None:
    """A variant that forgets to average child messages within parent-state groups breaks the oracle."""
    obj = JunctionTreeObjective.random(3, 2, tree="chain", seed=3, edge_scale=1.5, permute=False)
    policy = TreeSearchDistribution.from_objective(obj, hidden=4)
    with torch.no_grad():
        for p in policy.parameters():
            p.normal_(generator=torch.Generator().manual_seed(7))
    xs = _all_designs(3, 2)
    prob = policy.log_prob(xs).exp().detach()
    node, edge = obj.terms(xs)
    v_good, _, _ = tree_values(obj.structure, node, edge, obj.clique_states(xs), prob)
    # sabotage: every clique keyed by a constant state (a global instead of a conditional mean)
    v_bad, _, _ = tree_values(obj.structure, node, edge, torch.zeros_like(obj.clique_states(xs)), prob)
    assert float((v_good - v_bad).abs().max()) > 1e-3


@pytest.mark.parametrize("width", [1, 2])
def test_vectorised_values_equal_loop_reference(width: int) -> None:
    obj = JunctionTreeObjective.random(12, 4, tree="random", width=width, seed=5, edge_scale=2.0)
    x = torch.randint(4, (60, 12), generator=torch.Generator().manual_seed(2))
    v, q, a = _values_of(obj, x)
    v_ref, q_ref, a_ref = _loop_reference(obj, x)
    np.testing.assert_allclose(v.numpy(), v_ref, atol=1e-10)
    np.testing.assert_allclose(q.numpy(), q_ref, atol=1e-10)
    np.testing.assert_allclose(a.numpy(), a_ref, atol=1e-10)


# ----------------------------------------------------------------------------- objectives
@pytest.mark.parametrize(
    ("tree", "width", "n_vars"),
    [("chain", 1, 10), ("star", 1, 9), ("random", 1, 10), ("random", 2, 9), ("chain", 3, 8)],
)
def test_max_sum_dp_equals_brute_force(tree: str, width: int, n_vars: int) -> None:
    obj = JunctionTreeObjective.random(n_vars, 3, tree=tree, width=width, seed=11, edge_scale=2.0)
    xs = _all_designs(n_vars, 3)
    f = obj(xs)
    assert abs(obj.max_value() - float(f.max())) < 1e-9
    assert abs(float(obj(obj.argmax()[None])[0]) - float(f.max())) < 1e-9
    assert abs(obj.uniform_mean() - float(f.mean())) < 1e-9


def test_objective_equals_explicit_table_sum() -> None:
    obj = JunctionTreeObjective.random(7, 3, tree="random", width=2, seed=4)
    st = obj.structure
    x = torch.randint(3, (5, 7), generator=torch.Generator().manual_seed(0))
    f = obj(x)
    for n in range(5):

        def joint(c: int, n: int = n) -> int:
            return sum(int(x[n, v]) * 3**j for j, v in enumerate(st.cliques[c]))

        total = sum(float(obj.node_table[c, joint(c)]) for c in range(st.n_cliques))
        total += sum(float(obj.edge_table[c, joint(st.parent[c]), joint(c)]) for c in st.order[1:])
        assert abs(total - float(f[n])) < 1e-12


def test_edge_table_orientation_is_transposed() -> None:
    g = nx.path_graph(2)
    t = np.arange(9.0).reshape(3, 3)
    a = JunctionTreeObjective(g, 3, [np.zeros(3), np.zeros(3)], {(0, 1): t})
    b = JunctionTreeObjective(g, 3, [np.zeros(3), np.zeros(3)], {(1, 0): t.T})
    xs = _all_designs(2, 3)
    assert torch.equal(a(xs), b(xs))


# ----------------------------------------------------------------------------- models
@pytest.mark.parametrize("width", [1, 2])
def test_tree_model_normalised_and_sampler_matches_probabilities(width: int) -> None:
    obj = JunctionTreeObjective.random(4, 2, tree="random", width=width, seed=2)
    model = TreeSearchDistribution.from_objective(obj, hidden=8, init_seed=1)
    with torch.no_grad():
        model.w2.normal_(generator=torch.Generator().manual_seed(3))
    xs = _all_designs(4, 2)
    prob = model.log_prob(xs).exp().detach()
    assert abs(float(prob.sum()) - 1.0) < 1e-12
    smp = model.sample(20000, torch.Generator().manual_seed(0))
    freq = torch.bincount((smp * (2 ** torch.arange(3, -1, -1))).sum(1), minlength=16).double() / 20000
    idx = (xs * (2 ** torch.arange(3, -1, -1))).sum(1)
    assert float((freq[idx] - prob).abs().max()) < 0.02


def test_autoregressive_model_is_causal_normalised_and_sampled_right() -> None:
    model = AutoregressiveSearchDistribution(4, 2, hidden=12, init_seed=0)
    with torch.no_grad():
        model.w2.normal_(generator=torch.Generator().manual_seed(1))
        model.b2.normal_(generator=torch.Generator().manual_seed(2))
    xs = _all_designs(4, 2)
    lp = model.factor_log_prob(xs).detach()
    assert abs(float(lp.sum(1).exp().sum()) - 1.0) < 1e-12
    for i in range(4):  # factor i must not change when a later variable changes
        flipped = xs.clone()
        flipped[:, i:] = 1 - flipped[:, i:]
        flipped[:, i] = xs[:, i]
        assert torch.allclose(model.factor_log_prob(flipped)[:, i], lp[:, i], atol=1e-12)
    smp = model.sample(20000, torch.Generator().manual_seed(0))
    freq = torch.bincount((smp * (2 ** torch.arange(3, -1, -1))).sum(1), minlength=16).double() / 20000
    idx = (xs * (2 ** torch.arange(3, -1, -1))).sum(1)
    assert float((freq[idx] - lp.sum(1).exp()).abs().max()) < 0.02


def test_single_factor_gradient_is_weighted_score_function() -> None:
    obj = JunctionTreeObjective.random(5, 3, tree="random", seed=8)
    model = TreeSearchDistribution.from_objective(obj, hidden=6, init_seed=2)
    with torch.no_grad():
        model.w2.normal_(generator=torch.Generator().manual_seed(4))
    x = model.sample(50, torch.Generator().manual_seed(5))
    w = torch.rand(50, 5, generator=torch.Generator().manual_seed(6), dtype=torch.float64) * 3
    loss = -(w * model.factor_log_prob(x)).sum(1).mean()
    loss.backward()
    c = 3
    p = obj.structure.parent[c]
    sp = (obj.clique_states(x)[:, p]).long()
    h = torch.relu(model.w1[c, sp] + model.b1[c]).detach()  # [N, H]
    logits = h @ model.w2[c].detach() + model.b2[c].detach()
    score = torch.nn.functional.one_hot(x[:, obj.structure.cliques[c][0]], 3).double() - logits.softmax(-1)
    manual_w2 = -(w[:, c, None, None] * h[:, :, None] * score[:, None, :]).mean(0)
    manual_b2 = -(w[:, c, None] * score).mean(0)
    assert torch.allclose(model.w2.grad[c], manual_w2, atol=1e-10)
    assert torch.allclose(model.b2.grad[c], manual_b2, atol=1e-10)


# ----------------------------------------------------------------------------- weights and optimisers
def test_weights_clip_and_small_beta_stays_finite() -> None:
    w = advantage_weights(torch.tensor([[1e6, -1e6, 0.0]]), 1e-3)
    assert float(w.max()) == WEIGHT_CLIP and torch.isfinite(w).all() and float(w.min()) >= 0
    obj = JunctionTreeObjective.random(8, 3, tree="random", seed=1, edge_scale=2.0)
    for opt in (
        DADO(beta=1e-3, relative_beta=False, n_samples=32, n_final=16),
        EDA("autoregressive", beta=1e-3, relative_beta=False, n_samples=32, n_final=16),
    ):
        hist = opt.run(obj, 32 * 6)
        assert torch.isfinite(hist.losses).all() and torch.isfinite(hist.ess).all()
        assert all(torch.isfinite(p).all() for p in opt.model.parameters())


def test_history_shapes_and_budget() -> None:
    obj = JunctionTreeObjective.random(6, 3, tree="chain", seed=0)
    for opt in (
        DADO(n_samples=16, n_final=8),
        EDA("tree", n_samples=16, n_final=8),
        RandomSearch(16, n_final=8),
        PBIL(16, n_final=8),
    ):
        hist = opt.run(obj, 64)
        assert hist.n_evaluations == 64 and hist.final_values.shape == (8,)
        if isinstance(opt, (DADO, EDA)):
            assert hist.samples.shape == (4, 16, 6) and torch.equal(obj(hist.samples[1]), hist.values[1])
        assert torch.all(hist.best_so_far().diff() >= 0)
        assert float(hist.best_so_far()[-1]) <= obj.max_value() + 1e-9
    sa = SimulatedAnnealing(n_chains=4).run(obj, 64)
    assert sa.n_evaluations == 64 and float(sa.best_so_far()[-1]) <= obj.max_value() + 1e-9


def test_dado_improves_mean_value_on_a_small_tree() -> None:
    obj = JunctionTreeObjective.random(8, 3, tree="random", seed=2, edge_scale=2.0)
    hist = DADO(beta=0.5, lr=2e-2, n_samples=64, n_final=256).run(obj, 64 * 30)
    u, best = obj.uniform_mean(), obj.max_value()
    assert (float(hist.final_values.mean()) - u) / (best - u) > 0.5


def test_same_seed_same_history() -> None:
    obj = JunctionTreeObjective.random(6, 3, tree="random", seed=0)
    a = DADO(n_samples=16, n_final=8, seed=3).run(obj, 64)
    b = DADO(n_samples=16, n_final=8, seed=3).run(obj, 64)
    assert torch.equal(a.values, b.values) and torch.equal(a.final_values, b.final_values)


# ----------------------------------------------------------------------------- claim rule
def _rows(
    gaps60: list[list[float]],
    gaps20: list[list[float]],
    base: float = 0.5,
    sizes: tuple[str, str] = ("L20", "L60"),
) -> list[dict[str, float]]:
    """Seeds of per-instance scores: the baseline at `base`, DADO ahead by the given gaps."""
    rows = []
    for g60, g20 in zip(gaps60, gaps20):
        row: dict[str, float] = {}
        for size, gaps in ((sizes[1], g60), (sizes[0], g20)):
            row |= {f"{size}_i{k}_eda_ar_score": base for k in range(len(gaps))}
            row |= {f"{size}_i{k}_dado_score": base + g for k, g in enumerate(gaps)}
            row[f"{size}_eda_ar_score"] = base
            row[f"{size}_dado_score"] = base + float(np.mean(gaps))
        rows.append(row)
    return rows


def _old_rule(rows, n):  # the rule before the harness migration, on precomputed per-run gaps
    from iclr26.harness.stats import bootstrap_interval

    def gaps(size):
        return np.array(
            [r[f"{size}_i{k}_dado_score"] - r[f"{size}_i{k}_eda_ar_score"] for r in rows for k in range(n)]
        )

    g60, g20 = gaps("L60"), gaps("L20")
    iv = bootstrap_interval(g60)
    if iv.hi <= 0:
        return Outcome.NOT_SUPPORTED
    if iv.estimate >= 0.05 and iv.lo > 0 and g60.mean() - g20.mean() > 0:
        return Outcome.SUPPORTED
    return Outcome.INCONCLUSIVE


def test_gap_decider_three_outcomes() -> None:
    decide = gap_decider("ar", ("L20", "L60"), n_instances=3)
    good = _rows([[0.2, 0.25, 0.15], [0.18, 0.22, 0.3]], [[0.05, 0.02, 0.04], [0.03, 0.06, 0.01]])
    assert decide(good).outcome is Outcome.SUPPORTED
    bad = _rows([[-0.2, -0.25, -0.15], [-0.18, -0.22, -0.3]], [[0.0, 0.1, 0.0], [0.1, 0.0, 0.1]])
    assert decide(bad).outcome is Outcome.NOT_SUPPORTED
    no_growth = _rows([[0.2, 0.25, 0.15], [0.18, 0.22, 0.3]], [[0.4, 0.5, 0.4], [0.5, 0.4, 0.5]])
    assert decide(no_growth).outcome is Outcome.INCONCLUSIVE
    tiny = _rows([[0.02, 0.03, 0.01], [0.02, 0.03, 0.02]], [[0.0, 0.0, 0.01], [0.0, 0.01, 0.0]])
    assert decide(tiny).outcome is Outcome.INCONCLUSIVE
    # one seed with several independent runs is enough for the pooled interval
    assert decide(good[:1]).outcome is Outcome.SUPPORTED
    # DADO's seed score replaced by the baseline's: no longer a win
    sabotaged = [{**r, "L60_dado_score": r["L60_eda_ar_score"]} for r in good]
    assert decide(sabotaged).outcome is not Outcome.SUPPORTED


def test_gap_decider_declares_every_metric_it_reads() -> None:
    decide = gap_decider("ar", ("L20", "L60"), n_instances=3)
    good = _rows([[0.2, 0.25, 0.15], [0.18, 0.22, 0.3]], [[0.05, 0.02, 0.04], [0.03, 0.06, 0.01]])
    only = [{m: r[m] for m in decide.metrics} for r in good]
    assert decide(only).outcome is Outcome.SUPPORTED
    assert decide([{k: v for k, v in r.items() if k != "L60_i2_dado_score"} for r in good]).outcome is (
        Outcome.INCONCLUSIVE
    )
    with pytest.raises(ValueError, match="n_instances"):
        gap_decider("ar", n_instances=1)


def test_gap_decider_matches_the_old_rule_on_random_rows() -> None:
    rng = np.random.default_rng(0)
    decide = gap_decider("ar", ("L20", "L60"), n_instances=4)
    for _ in range(60):
        loc = rng.normal(0.05, 0.08)
        rows = _rows(
            rng.normal(loc, 0.08, size=(3, 4)).tolist(), rng.normal(0.03, 0.08, size=(3, 4)).tolist()
        )
        assert decide(rows).outcome is _old_rule(rows, 4)


def test_learned_preconditions_give_not_reproduced_or_a_real_verdict() -> None:
    from iclr26.generative.dado.experiment import EXPERIMENT, N_INSTANCES

    claim = next(c for c in EXPERIMENT.claims if c.id == "dado-beats-autoregressive-eda")
    assert [p.metric for p in claim.preconditions] == ["large_dado_score", "large_eda_ar_score"]
    gaps = [[0.2 + 0.01 * k for k in range(N_INSTANCES)]] * 3
    small = [[0.05 + 0.01 * k for k in range(N_INSTANCES)]] * 3
    learned = _rows(gaps, small, base=0.7, sizes=("small", "large"))
    assert claim.judge(learned).outcome is Outcome.SUPPORTED
    # neither search distribution left uniform sampling: not judged, whatever the gap says
    zeros = [[0.0] * N_INSTANCES] * 3
    stuck = _rows(zeros, zeros, base=0.02, sizes=("small", "large"))
    assert claim.judge(stuck).outcome is Outcome.NOT_REPRODUCED
    assert claim.decide(stuck).outcome is Outcome.NOT_SUPPORTED  # what the rule alone would have said


def test_judged_budgets_run_the_instances_the_claims_read() -> None:
    from iclr26.generative.dado.experiment import EXPERIMENT, N_INSTANCES

    assert all(cfg.n_instances == N_INSTANCES for cfg in EXPERIMENT.configs.values())


def test_growth_interval_two_sample_bootstrap() -> None:
    lo, hi = growth_interval(np.full(5, 0.3), np.full(7, 0.1))
    assert abs(lo - 0.2) < 1e-12 and abs(hi - 0.2) < 1e-12
    lo, hi = growth_interval(np.array([0.1, 0.3, 0.2, 0.4]), np.array([0.0, 0.1, 0.05]))
    assert lo < 0.25 - 0.05 < hi
