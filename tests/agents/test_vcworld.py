"""Oracle tests for VCWorld: simulator, KG, path scores (fast vs slow), retrieval, reasoners, parser, claim rule."""

from __future__ import annotations

import json

import networkx as nx
import numpy as np
import pytest

from iclr26.agents.vcworld import (
    Evidence,
    GraphReasoner,
    KnowledgeGraph,
    LLMReasoner,
    Retriever,
    ScriptedBackend,
    VirtualCell,
    corrupted_kg,
    enumerate_walks,
    format_evidence,
    label_table,
    parse_prediction,
    path_scores,
    steady_state,
)
from iclr26.agents.vcworld.__main__ import main
from iclr26.agents.vcworld.experiment import EXPERIMENT
from iclr26.agents.vcworld.sim import RHO_TARGET, _scale
from iclr26.harness.claims import Outcome
from tests.llm_stub import serve_stub


@pytest.fixture(scope="module")
def world():
    vc = VirtualCell(60, 14, 2, seed=3)
    train, test = vc.split_drugs(0.5, 0)
    kg = corrupted_kg(vc, seed=3)
    return vc, train, test, kg, Retriever(kg, label_table(vc, train), k_cases=4)


# --- simulator -------------------------------------------------------------------------------------------------


def test_steady_state_solves_the_linear_system_and_kappa_sets_the_spectral_radius():
    vc = VirtualCell(80, 10, 3, seed=1)
    for c in range(3):
        Wc = vc.W * vc.masks[c]
        x = steady_state(Wc, vc.B, vc.kappas[c])
        assert np.abs((np.eye(80) - vc.kappas[c] * Wc) @ x - vc.B).max() < 1e-8
        rho = np.max(np.abs(np.linalg.eigvals(vc.kappas[c] * Wc)))
        assert rho == pytest.approx(RHO_TARGET, abs=1e-9) or rho < 1e-9


def test_acyclic_network_is_scaled_by_the_spectral_norm():
    tree = VirtualCell(30, 5, 1, seed=0, network="tree", edge_drop=0.0)
    W = tree.W
    assert np.max(np.abs(np.linalg.eigvals(W))) < 1e-9
    assert _scale(W) * np.linalg.norm(W, 2) == pytest.approx(RHO_TARGET)


def test_labels_follow_the_response_and_the_de_rate():
    vc = VirtualCell(100, 20, 2, seed=0)
    assert vc.de.mean() == pytest.approx(0.1, abs=0.01)
    for c in range(2):
        assert np.array_equal(vc.de[c], (np.abs(vc.X[c]) > vc.taus[c]).astype(np.int8))
    assert np.array_equal(vc.dir, (vc.X > 0).astype(np.int8))
    assert vc.label(1, 3, 7, "dir") == int(vc.X[1, 3, 7] > 0)


def test_labels_are_invariant_to_node_relabeling():
    vc = VirtualCell(50, 8, 1, seed=2, noise=0.0)
    perm = np.random.default_rng(0).permutation(50)
    P = np.eye(50)[perm]  # row i of P picks gene perm[i]
    Wc = vc.W * vc.masks[0]
    x = steady_state(P @ Wc @ P.T, P @ vc.B, vc.kappas[0]).T
    assert np.allclose(x, vc.X[0][:, perm], atol=1e-10)
    assert np.array_equal(np.abs(x) > vc.taus[0], vc.de[0][:, perm].astype(bool))
    # the reasoner's path scores relabel the same way
    kg = corrupted_kg(vc, seed=0)
    inv = np.argsort(perm)
    kg2 = KnowledgeGraph.from_edge_lists(
        50, 8,
        drug_target=[(p, int(inv[g]), s) for p, g, s in kg.edges("targets")],
        gene_gene=[(int(inv[u]), int(inv[v]), s) for u, v, s in kg.edges("regulates")],
    )  # fmt: skip
    assert np.allclose(path_scores(kg2), path_scores(kg)[:, perm])


def test_split_is_a_partition():
    vc = VirtualCell(20, 10, 1, seed=0)
    tr, te = vc.split_drugs(0.3, 1)
    assert len(tr) == 3 and sorted([*tr, *te]) == list(range(10))


# --- KG and paths ----------------------------------------------------------------------------------------------


def test_corruption_rates():
    vc = VirtualCell(300, 10, 1, seed=0)
    true = {(u, v): d["sign"] for u, v, d in vc.graph.edges(data=True)}
    kg = corrupted_kg(vc, remove=0.3, spurious=0.1, flip=0.05, seed=0)
    got = kg.edges("regulates")
    kept = [(u, v, s) for u, v, s in got if (u, v) in true]
    assert len(kept) / len(true) == pytest.approx(0.7, abs=0.05)
    assert len(got) - len(kept) == round(0.1 * len(true))
    assert np.mean([s != true[(u, v)] for u, v, s in kept]) == pytest.approx(0.05, abs=0.03)
    exact = corrupted_kg(vc, 0.0, 0.0, 0.0)
    assert exact.edges("regulates") == sorted((u, v, s) for (u, v), s in true.items())
    assert exact.edges("targets") == sorted(
        (p, t, float(np.sign(e))) for p in range(10) for t, e in zip(vc.targets[p], vc.effects[p])
    )


def test_path_scores_hand_computed():
    kg = KnowledgeGraph.from_edge_lists(
        4, 1, drug_target=[(0, 0, 1)], gene_gene=[(0, 1, -1), (1, 2, 1), (2, 3, 1)]
    )
    assert np.allclose(path_scores(kg, 0.5, 3), [[1.0, -0.5, -0.25, -0.125]])
    assert np.allclose(path_scores(kg, 0.5, 2), [[1.0, -0.5, -0.25, 0.0]])
    (walk,) = enumerate_walks(kg, 0, 3)
    assert walk.genes == (0, 1, 2, 3) and walk.signs == (1, -1, 1, 1) and walk.score == -0.125
    assert walk.describe() == "D0 -+-> G0 ---> G1 -+-> G2 -+-> G3"


def test_fast_path_scores_equal_walk_enumeration(world):
    _, _, _, kg, _ = world
    S = path_scores(kg, 0.5, 3)
    slow = np.array(
        [
            [sum(w.score for w in enumerate_walks(kg, p, g)) for g in range(kg.n_genes)]
            for p in range(kg.n_drugs)
        ]
    )
    assert np.abs(S - slow).max() < 1e-12
    assert (S != 0).any()


def test_on_a_dag_walks_are_the_simple_paths():
    vc = VirtualCell(40, 6, 1, seed=4, network="tree")
    kg = corrupted_kg(vc, 0.0, 0.3, 0.0, seed=0)  # spurious edges may add cycles: keep only a DAG
    dag = nx.DiGraph([(u, v) for u, v, _ in kg.edges("regulates")])
    if not nx.is_directed_acyclic_graph(dag):
        kg = corrupted_kg(vc, 0.0, 0.0, 0.0)
        dag = nx.DiGraph([(u, v) for u, v, _ in kg.edges("regulates")])
    for p in range(6):
        for g in range(40):
            walks = {w.genes for w in enumerate_walks(kg, p, g, k=3)}
            simple = set()
            for t, _ in kg.targets_of(p):
                if t == g:
                    simple.add((t,))
                elif t in dag and g in dag:
                    simple |= {tuple(q) for q in nx.all_simple_paths(dag, t, g, cutoff=3)}
            assert walks == simple


# --- retrieval -------------------------------------------------------------------------------------------------


def test_retrieval_never_returns_test_drug_labels(world):
    vc, train, test, kg, r = world
    for p in range(vc.n_drugs):
        nb, _ = r.neighbours(p)
        assert set(nb.tolist()) <= set(train.tolist()) and p not in nb
    # test-drug labels changed in the world change nothing the retriever returns
    ev = r.retrieve(1, int(test[0]), 5)
    vc2 = VirtualCell(60, 14, 2, seed=3)
    vc2.de[:, test] = 1 - vc2.de[:, test]
    r2 = Retriever(kg, label_table(vc2, train), k_cases=4)
    assert r2.retrieve(1, int(test[0]), 5) == ev
    for c in ev.cases:
        assert (c.de, c.dir) == (vc.de[1, c.drug, 5], vc.dir[1, c.drug, 5])


def test_cases_are_ranked_by_absolute_similarity(world):
    _, _, test, _, r = world
    nb, sims = r.neighbours(int(test[1]))
    assert len(nb) == 4 and np.all(np.diff(np.abs(sims)) <= 1e-12)


# --- reasoners -------------------------------------------------------------------------------------------------


def test_batch_reasoner_equals_per_triplet_predictions(world):
    vc, _, test, _, r = world
    gr = GraphReasoner()
    v_de, v_dir = r.case_votes(1, test)
    de_b = gr.de_confidence(r.scores[test], v_de)
    dir_b = gr.dir_confidence(r.scores[test], v_dir)
    for i, p in enumerate(test[:4]):
        for g in range(0, vc.n_genes, 7):
            ev = r.retrieve(1, int(p), g)
            assert gr.predict(ev, "de").confidence == pytest.approx(de_b[i, g], abs=1e-12)
            assert gr.predict(ev, "dir").confidence == pytest.approx(dir_b[i, g], abs=1e-12)


def test_tree_world_dir_accuracy_is_one_on_reachable_genes():
    vc = VirtualCell(60, 12, 2, seed=5, network="tree", targets_per_drug=(1, 1), noise=0.0)
    kg = corrupted_kg(vc, 0.0, 0.0, 0.0)
    S = path_scores(kg, 0.5, k=60)
    conf = GraphReasoner(k=3, case_weight=0.0).dir_confidence(S, np.zeros_like(S))
    checked = 0
    for c in range(2):
        m = (vc.de[c] == 1) & (S != 0)
        assert np.array_equal(conf[m] >= 0.5, vc.dir[c][m] == 1)
        checked += m.sum()
    assert checked > 20


def test_reasoner_limits():
    ev = Evidence(0, 0, 0, path_score=-0.25)
    only_paths = GraphReasoner(case_weight=0.0)
    assert only_paths.predict(ev, "dir").confidence == pytest.approx((1 - np.tanh(2.0)) / 2)
    assert only_paths.predict(ev, "de").confidence == pytest.approx(np.tanh(2.0))
    cases_only = GraphReasoner(use_paths=False)
    assert np.allclose(cases_only.de_confidence(np.array([5.0, 0.0]), np.array([0.3, 0.8])), [0.3, 0.8])
    assert np.allclose(cases_only.dir_confidence(np.array([5.0]), np.array([-1.0])), [0.0])
    assert GraphReasoner().de_confidence(np.array([0.0]), np.array([1.0]))[0] == pytest.approx(0.5)


# --- parser and LLM reasoner ------------------------------------------------------------------------------------


def test_parse_prediction():
    p = parse_prediction("D3 inhibits G1 [P0], which represses G4 [P2] [P0].\nLABEL: 1\nCONFIDENCE: 80%")
    assert (p.label, p.confidence, p.path_ids) == (1, 0.8, (0, 2))
    assert p.rationale.startswith("D3 inhibits")
    assert parse_prediction("**LABEL:** 0").confidence == 0.0
    for bad in ("LABEL: 2", "LABEL: -1", "LABEL: up", "LABEL: 0.5"):
        with pytest.raises(ValueError, match="label must be 0 or 1"):
            parse_prediction(bad)


def test_llm_reasoner_with_scripted_backend(world):
    _, _, test, _, r = world
    ev = r.retrieve(0, int(test[0]), 2)
    prompt = format_evidence(ev, "de")
    assert "LABEL" in prompt and "[P0]" in prompt if ev.paths else "(none within reach)" in prompt
    llm = LLMReasoner(ScriptedBackend(["step 1 [P0]\nLABEL: 1\nCONFIDENCE: 0.9", "LABEL: maybe"]))
    assert llm.predict(ev, "de").label == 1
    assert llm.predict(ev, "dir") is None
    assert "does it go up" in llm.backend.calls[1].last_user_message


def _reply(body):
    prompt = body["messages"][-1]["content"]
    return "cascade [P0]\nLABEL: 1\nCONFIDENCE: 0.7" if "(none within reach)" not in prompt else "LABEL: 0"


def test_endpoint_path_against_loopback_server(capsys):
    with serve_stub(_reply) as (url, state):
        out = main(["--llm", f"{url}@stub-model", "--n-triplets", "4", "--n-genes", "40", "--n-drugs", "10"])
    assert len(state.requests) == 8
    assert json.loads(capsys.readouterr().out) == out
    for task in ("de", "dir"):
        assert out["tasks"][task]["n"] == 4 and out["tasks"][task]["llm_invalid_rate"] == 0.0


# --- the claim rule --------------------------------------------------------------------------------------------


def _rows(gain_de, gain_dir, n=5):
    return [{"de_f1_graph_retrieval": 0.8 + gain_de + 0.002 * i, "de_f1_blackbox": 0.8,
             "dir_acc_graph_retrieval": 0.7 + gain_dir - 0.002 * i, "dir_acc_blackbox": 0.7,
             "de_f1_blackbox_over_majority": 0.2, "dir_acc_blackbox_over_majority": 0.1} for i in range(n)]  # fmt: skip


@pytest.mark.parametrize(
    ("gains", "outcome"),
    [
        ((0.05, 0.05), Outcome.SUPPORTED),
        ((0.05, -0.05), Outcome.NOT_SUPPORTED),
        ((0.01, 0.05), Outcome.INCONCLUSIVE),
        ((-0.05, 0.05), Outcome.NOT_SUPPORTED),
    ],  # fmt: skip
)
def test_claim_rule(gains, outcome):
    (claim,) = EXPERIMENT.claims
    assert claim.judge(_rows(*gains)).outcome == outcome


def test_claim_not_reproduced_when_the_black_box_did_not_learn():
    (claim,) = EXPERIMENT.claims
    rows = [{**r, "de_f1_blackbox_over_majority": -0.01} for r in _rows(0.05, 0.05)]
    assert claim.judge(rows).outcome == Outcome.NOT_REPRODUCED
