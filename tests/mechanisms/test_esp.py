"""ESP ("Two (narrow) heads are better than (an arbitrarily wide) one"): oracle and correctness tests."""

import itertools

import networkx as nx
import pytest
import torch

from iclr26.harness.claims import Outcome
from iclr26.lab.tasks import complete_digraph, planted_fas_digraph, random_dag, transitive_tournament
from iclr26.lab.transformer import AttnOnlyTransformer
from iclr26.mechanisms.esp import (
    accuracy,
    construct_1head_dag,
    construct_2head,
    make_dataset,
    mas_exact,
    optimal_1head_accuracy,
    predict,
)
from iclr26.mechanisms.esp.batched import batched_esp_logits, stack_models
from iclr26.mechanisms.esp.experiment import EXPERIMENT
from iclr26.mechanisms.esp.training import train, train_many


def brute_force_mas(G):
    best = 0
    for order in itertools.permutations(G.nodes):
        rank = {v: i for i, v in enumerate(order)}
        best = max(best, sum(rank[u] < rank[v] for u, v in G.edges))
    return best


def random_digraphs(n_max=7, count=12):
    graphs = []
    for s in range(count):
        n = 3 + s % (n_max - 2)
        G = nx.gnp_random_graph(n, 0.45, seed=s, directed=True)
        if G.number_of_edges():
            graphs.append(G)
    return graphs


# (6) dataset
def test_dataset_has_2m_rows_and_both_selectors_per_arc():
    G = planted_fas_digraph(6, 2, seed=0)
    tokens, targets = make_dataset(G)
    n, m = G.number_of_nodes(), G.number_of_edges()
    assert tokens.shape == (2 * m, 4) and targets.shape == (2 * m,)
    assert (tokens[:, 3] == n + 2).all()
    index = {v: i for i, v in enumerate(G.nodes)}
    seen = {(int(u), int(v), int(s)) for u, v, s, _ in tokens}
    assert seen == {(index[u], index[v], s) for u, v in G.edges for s in (n, n + 1)}
    assert torch.equal(targets, torch.where(tokens[:, 2] == n, tokens[:, 0], tokens[:, 1]))


# (1) two heads solve every complete digraph at d = 5
@pytest.mark.parametrize("n", range(3, 9))
def test_two_head_construction_solves_complete_digraphs(n):
    G = complete_digraph(n)
    model = construct_2head(G, d=5)
    assert model.n_heads == 2 and model.d_model == 5 and model.ln_final.bias is None
    tokens, targets = make_dataset(G)
    logits = model(tokens)[:, 3]
    target_logit = logits.gather(1, targets[:, None])
    others = logits.scatter(1, targets[:, None], float("-inf"))
    # the selected vertex beats every other vertex and the selector / `#` tokens by a clear margin
    assert (target_logit - others.max(dim=1, keepdim=True).values > 1e-3).all()
    assert accuracy(model, G) == 1.0


def test_two_head_construction_on_other_graphs_and_widths():
    for G in [planted_fas_digraph(8, 6, seed=1), random_dag(7, seed=2), transitive_tournament(2)]:
        assert accuracy(construct_2head(G, d=12), G) == 1.0


# (2) one head solves DAGs
@pytest.mark.parametrize("seed", range(6))
def test_one_head_construction_solves_random_dags(seed):
    G = random_dag(3 + seed, p=0.6, seed=seed)
    if G.number_of_edges() == 0:
        G.add_edge(*G.graph["order"][:2])
    model = construct_1head_dag(G)
    assert model.n_heads == 1
    assert accuracy(model, G) == 1.0


# (3) exact MAS equals brute force
def test_mas_exact_equals_brute_force():
    for G in random_digraphs():
        truth = brute_force_mas(G)
        dp, ilp = mas_exact(G, "dp"), mas_exact(G, "milp")
        assert dp.size == ilp.size == truth
        rank = {v: i for i, v in enumerate(dp.order)}
        assert set(dp.arcs) == {(u, v) for u, v in G.edges if rank[u] < rank[v]}
        assert nx.is_directed_acyclic_graph(nx.DiGraph(list(dp.arcs)))


def test_mas_of_known_graphs():
    assert mas_exact(complete_digraph(6)).size == 15 and optimal_1head_accuracy(complete_digraph(6)) == 0.75
    assert optimal_1head_accuracy(transitive_tournament(6)) == 1.0
    for k in (1, 3, 6):
        G = planted_fas_digraph(8, k, seed=k)
        assert mas_exact(G).size == G.number_of_edges() - k
        assert mas_exact(G, "milp").size == G.number_of_edges() - k


# (4) the one-head construction meets the MAS optimum exactly on cyclic graphs
def test_one_head_construction_reaches_exactly_the_mas_optimum():
    for G in [
        complete_digraph(5),
        complete_digraph(8),
        *(planted_fas_digraph(8, k, seed=k) for k in (1, 3, 6)),
    ]:
        assert accuracy(construct_1head_dag(G), G) == pytest.approx(optimal_1head_accuracy(G), abs=1e-12)


def test_one_head_construction_with_a_given_order_scores_forward_arcs():
    G = complete_digraph(5)
    G.remove_edges_from([(0, 1), (3, 1), (4, 2)])
    order = [4, 2, 0, 3, 1]
    rank = {v: i for i, v in enumerate(order)}
    forward = sum(rank[u] < rank[v] for u, v in G.edges)
    m = G.number_of_edges()
    assert accuracy(construct_1head_dag(G, order=order), G) == pytest.approx((m + forward) / (2 * m))


# (5) single-head models never beat the optimum: random weights and trained ones
def test_random_one_head_models_never_exceed_the_optimum():
    G = complete_digraph(4)
    tokens, targets = make_dataset(G)
    models = [AttnOnlyTransformer(1, 1, d, 7, 4, init_seed=s) for d in (4, 16) for s in range(100)]
    for d in (4, 16):
        group = [m for m in models if m.d_model == d]
        with torch.no_grad():
            logits = batched_esp_logits(stack_models(group), tokens.expand(len(group), -1, -1))
        acc = (logits.argmax(-1) == targets).double().mean(dim=1)
        assert acc.max() <= 0.75


def test_trained_one_head_models_never_exceed_the_optimum():
    cyclic = [complete_digraph(5), planted_fas_digraph(5, 2, seed=0), planted_fas_digraph(5, 1, seed=3)]
    graphs = [G for G in cyclic for _ in range(3)]  # three restarts each
    runs = train_many(graphs, heads=1, d=16, init_seeds=list(range(len(graphs))), steps=150, eval_every=50)
    optimum = torch.tensor([optimal_1head_accuracy(G) for G in graphs], dtype=torch.float64)
    assert (runs.accuracy <= optimum[:, None] + 1e-12).all()


# training API and the batched model
def test_train_returns_curve_and_matching_model():
    G = transitive_tournament(4)
    result = train(G, heads=1, d=8, seed=0, steps=120, eval_every=40)
    assert result.steps == [0, 40, 80, 120] and len(result.accuracy_curve) == 4
    assert result.final_accuracy == result.accuracy_curve[-1] == accuracy(result.model, G)


def test_batched_model_equals_the_unbatched_transformer():
    graphs = [complete_digraph(5), planted_fas_digraph(5, 2, seed=1), transitive_tournament(5)]
    data = [make_dataset(G) for G in graphs]
    rows = max(len(t) for t, _ in data)
    tokens = torch.stack([t[torch.arange(rows) % len(t)] for t, _ in data])  # pad by repeating rows
    for heads, d in ((1, 6), (2, 16), (3, 9)):
        models = [AttnOnlyTransformer(1, heads, d, 8, 4, init_seed=10 * heads + i).double() for i in range(3)]
        params = stack_models(models)
        batched = batched_esp_logits(params, tokens)
        for p, model in enumerate(models):
            assert torch.allclose(batched[p], model(tokens[p])[:, 3], atol=1e-10, rtol=0)
        # gradients of each parameter set equal the unbatched model's
        batched[1].square().sum().backward()
        models[1](tokens[1])[:, 3].square().sum().backward()
        for name, param in models[1].named_parameters():
            assert torch.allclose(params[name].grad[1], param.grad, atol=1e-9), name
    runs = train_many(graphs, heads=2, d=8, init_seeds=[0, 1, 2], steps=30)
    for p, G in enumerate(graphs):
        assert runs.final_accuracy[p].item() == accuracy(runs.model(p), G)
        assert predict(runs.model(p), data[p][0]).shape == data[p][1].shape


# bad input
def test_bad_graphs_and_arguments():
    loop = nx.DiGraph([(0, 1), (1, 1)])
    empty = nx.DiGraph()
    empty.add_nodes_from(range(3))
    for fn in (make_dataset, mas_exact, construct_2head, construct_1head_dag):
        with pytest.raises(ValueError, match="self-loops"):
            fn(loop)
        with pytest.raises(ValueError, match="no arcs"):
            fn(empty)
    with pytest.raises(ValueError, match="heads"):
        train(complete_digraph(3), heads=0, d=8, seed=0, steps=1)
    with pytest.raises(ValueError, match="n_heads"):
        AttnOnlyTransformer(n_layers=1, n_heads=0, d_model=8, vocab_size=6, seq_len=4)
    with pytest.raises(ValueError, match=r"d \(width of the two-head construction\) must be an int >= 5"):
        construct_2head(complete_digraph(3), d=4)
    with pytest.raises(
        ValueError, match=r"d \(width of the one-head construction on n=5 vertices\) must be an int >= 9"
    ):
        construct_1head_dag(transitive_tournament(5), d=6)
    with pytest.raises(ValueError, match="method"):
        mas_exact(complete_digraph(3), method="greedy")
    with pytest.raises(ValueError, match="same number of vertices"):
        train_many([complete_digraph(3), complete_digraph(4)], 1, 8, [0, 1], steps=1)


# the claim check can fail
def rows(a, b, c, gap=0.2, t2=1.0, k1=0.55):
    return [
        {
            "tt_1head_best_acc": x,
            "kn_2head_best_acc": y,
            "cyclic_1head_max_excess": z,
            "kn_1head_gap": gap,
            "tt_2head_best_acc": t2,
            "kn_1head_best_acc": k1,
        }
        for x, y, z in zip(a, b, c)
    ]


GOOD_A, GOOD_B, GOOD_C = [1.0] * 5, [1.0] * 5, [0.0] * 5


@pytest.mark.parametrize(
    ("a", "b", "c", "outcome"),
    [
        (GOOD_A, GOOD_B, GOOD_C, Outcome.SUPPORTED),
        (GOOD_A, [1, 1, 1, 1, 0.9], GOOD_C, Outcome.SUPPORTED),
        # sabotage: the 1-head numbers on K_n in place of the 2-head ones -> (b) fails everywhere
        (GOOD_A, [0.71, 0.69, 0.72, 0.7, 0.73], GOOD_C, Outcome.NOT_SUPPORTED),
        (GOOD_A, [1, 1, 0.9, 0.9, 0.9], GOOD_C, Outcome.NOT_SUPPORTED),  # (b) fails in 3/5
        (GOOD_A, [1, 1, 1, 0.9, 0.9], GOOD_C, Outcome.INCONCLUSIVE),  # (b) fails in 2/5
        (GOOD_A, GOOD_B, [0, 0, 0.02, 0, 0], Outcome.NOT_SUPPORTED),  # (c): one run beats the theorem
        ([0.9, 0.9, 1, 1, 1], GOOD_B, GOOD_C, Outcome.INCONCLUSIVE),  # (a) alone never refutes
        ([0.9] * 5, GOOD_B, [1e-10] * 5, Outcome.INCONCLUSIVE),  # within the 1e-9 tolerance
    ],
)
def test_claim_rule(a, b, c, outcome):
    verdict = EXPERIMENT.claims[0].judge(rows(a, b, c))
    assert verdict.outcome is outcome, verdict.explanation
    assert "Secondary" in verdict.explanation


def test_claim_is_not_reproduced_when_training_failed():
    claim = EXPERIMENT.claims[0]
    # the models learned (both head counts beat the copy-one-vertex baseline on T_n): a real verdict
    assert claim.judge(rows([0.9] * 5, GOOD_B, GOOD_C)).outcome is Outcome.INCONCLUSIVE
    assert claim.judge(rows(GOOD_A, [0.7] * 5, GOOD_C, t2=0.99)).outcome is Outcome.NOT_SUPPORTED
    # the 1-head or the 2-head models did not get past copying one vertex (0.5) in one seed
    stuck = rows([0.55, 1, 1, 1, 1], GOOD_B, GOOD_C)
    assert claim.judge(stuck).outcome is Outcome.NOT_REPRODUCED
    untrained_two = rows(GOOD_A, [0.7] * 5, GOOD_C, t2=0.5)
    assert claim.judge(untrained_two).outcome is Outcome.NOT_REPRODUCED


def test_sabotage_one_head_in_place_of_two_is_not_supported():
    good = rows(GOOD_A, GOOD_B, GOOD_C, k1=0.7)
    swapped = [{**r, "kn_2head_best_acc": r["kn_1head_best_acc"]} for r in good]
    assert EXPERIMENT.claims[0].judge(swapped).outcome is Outcome.NOT_SUPPORTED
