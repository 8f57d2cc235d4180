"""Oracle tests of the continuous-thought superposition reproduction (arXiv 2509.23365)."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
import torch

from iclr26.harness.claims import Outcome
from iclr26.lab.threads import limited_threads
from iclr26.mechanisms.continuous_cot import (
    CoconutWrapper,
    TrainConfig,
    accuracy_gap_decider,
    answer_logit_decomposition,
    bfs_layers,
    bounded_mu_decider,
    build_instance,
    capture_attention,
    evaluate_accuracy,
    make_model,
    make_prosqa_like,
    mu_plateau_stats,
    reshuffle,
    stage_loss,
    superposition_decider,
    thought_superposition,
    track_index_matching_logit,
    train,
)


@pytest.fixture(autouse=True)
def _one_thread():
    with limited_threads(1):
        yield


@pytest.fixture(scope="module")
def data():
    return make_prosqa_like(6, n_nodes=12, depth=3, seed=3)


@pytest.fixture(scope="module")
def wrapper(data):
    torch.manual_seed(0)
    return CoconutWrapper(make_model(data, d_model=16, n_heads=2, init_seed=1)).eval()


def _answer(data):
    return torch.full((len(data), 1), data.token("[A]"))


# --- Coconut wrapper equivalences (the outside oracles) ---------------------------------------------------


def test_zero_thoughts_equals_plain_forward(data, wrapper):
    suffix = torch.cat([_answer(data), data.pos[:, None]], dim=1)
    with torch.no_grad():
        out = wrapper(data.prompt, 0, suffix)
        ref = wrapper.model(torch.cat([data.prompt, suffix], dim=1))
        assert torch.equal(out.logits, ref)
        assert torch.equal(wrapper(data.prompt, 0).logits, wrapper.model(data.prompt))
    assert out.thoughts.shape == (len(data), 0, 16)


def test_token_embeddings_as_thoughts_equal_discrete_forward(data, wrapper):
    mid = data.path[:, 1:]  # three node tokens in the thought slots
    with torch.no_grad():
        out = wrapper(data.prompt, 3, _answer(data), thoughts=wrapper.model.embed(mid))
        ref = wrapper.model(torch.cat([data.prompt, mid, _answer(data)], dim=1))
    assert torch.equal(out.logits, ref)


@pytest.mark.parametrize("use_cache", [True, False])
def test_thought_is_previous_final_hidden_state(data, wrapper, use_cache):
    length = data.prompt.shape[1]
    with torch.no_grad():
        out = CoconutWrapper(wrapper.model, use_cache=use_cache)(data.prompt, 3, _answer(data))
    for c in range(3):  # thought c+1 = final-norm hidden state at the position before it
        torch.testing.assert_close(out.thoughts[:, c], out.hidden[:, length - 1 + c], atol=1e-5, rtol=1e-5)
    # and decoding it through the tied unembedding gives the logits at that position
    logits = out.thoughts @ wrapper.model.W_E.T
    torch.testing.assert_close(logits, out.logits[:, length - 1 : length + 2], atol=1e-5, rtol=1e-5)


def test_kv_cache_equals_recomputing_the_prefix(data, wrapper):
    slow = CoconutWrapper(wrapper.model, use_cache=False)
    with torch.no_grad():
        for c in (1, 3):
            fast_out, slow_out = wrapper(data.prompt, c, _answer(data)), slow(data.prompt, c, _answer(data))
            torch.testing.assert_close(fast_out.thoughts, slow_out.thoughts, atol=1e-5, rtol=1e-5)
            torch.testing.assert_close(fast_out.logits, slow_out.logits, atol=1e-5, rtol=1e-5)
            torch.testing.assert_close(fast_out.hidden, slow_out.hidden, atol=1e-5, rtol=1e-5)


def test_sabotage_wrong_thoughts_break_the_discrete_equivalence(data, wrapper):
    mid = data.path[:, 1:]
    with torch.no_grad():
        bad = wrapper(data.prompt, 3, _answer(data), thoughts=wrapper.model.embed(mid.flip(1)))
        ref = wrapper.model(torch.cat([data.prompt, mid, _answer(data)], dim=1))
    assert not torch.allclose(bad.logits, ref, atol=1e-3)


def test_gradients_flow_through_the_thought_chain(data):
    w = CoconutWrapper(make_model(data, d_model=16, n_heads=2, init_seed=2))
    out = w(data.prompt[:2], 2)
    out.logits[:, -1].sum().backward()
    assert w.model.W_E.grad is not None and float(w.model.W_E.grad.abs().sum()) > 0


# --- data generator --------------------------------------------------------------------------------------


def test_bfs_layers_match_networkx(data):
    for i in range(len(data)):
        edges = [tuple(e) for e in data.edges[i].tolist()]
        root = int(data.root[i])
        g = nx.DiGraph(edges)
        dist = nx.single_source_shortest_path_length(g, root)
        layers = bfs_layers(edges, root)
        assert {v: k for k, layer in enumerate(layers) for v in layer} == dist
        assert set(v for layer in layers for v in layer) == nx.descendants(g, root) | {root}
        for k in range(data.depth + 1):
            want = {v for v, d in dist.items() if d <= k}
            assert set(torch.nonzero(data.reach[i, k])[:, 0].tolist()) == want


def test_generator_invariants(data):
    for i in range(len(data)):
        edges = [tuple(e) for e in data.edges[i].tolist()]
        g = nx.DiGraph(edges)
        root, pos, neg = int(data.root[i]), int(data.pos[i]), int(data.neg[i])
        assert nx.is_directed_acyclic_graph(g) and len(set(edges)) == 16
        assert nx.shortest_path_length(g, root, pos) == 3
        assert not nx.has_path(g, root, neg)
        path = data.path[i].tolist()
        assert path[0] == root and path[-1] == pos and all(g.has_edge(a, b) for a, b in zip(path, path[1:]))
        prompt = data.prompt[i]
        assert torch.equal(prompt[data.src_pos[i]], data.edges[i, :, 0])
        assert torch.equal(prompt[data.tgt_pos[i]], data.edges[i, :, 1])
        assert set(prompt[data.cand_pos[i]].tolist()) == {pos, neg}
        assert int(prompt[-1]) == root


def test_node_ids_are_redrawn_and_seeded():
    a, b = make_prosqa_like(20, 12, 3, seed=1), make_prosqa_like(20, 12, 3, seed=1)
    assert torch.equal(a.prompt, b.prompt)
    assert len(set(a.root.tolist())) > 1  # the root id is not fixed
    big = make_prosqa_like(5, 12, 3, seed=0, n_node_tokens=30)
    assert big.vocab_size == 35 and int(big.edges.max()) < 30


def test_reshuffle_relabels_consistently(data):
    gen = torch.Generator().manual_seed(0)
    big = make_prosqa_like(20, 10, 3, seed=2, n_edges=12, n_node_tokens=14)
    r = reshuffle(big, gen)
    assert not torch.equal(r.prompt, big.prompt)
    for i in range(len(r)):
        cands = tuple(r.prompt[i, r.cand_pos[i]].tolist())
        ref = build_instance([tuple(e) for e in r.edges[i].tolist()], int(r.root[i]), cands, 3, 14)
        assert torch.equal(torch.from_numpy(ref["prompt"]), r.prompt[i])
        assert torch.equal(torch.from_numpy(ref["reach"]), r.reach[i])
        assert torch.equal(torch.from_numpy(ref["dist"]), r.dist[i])
        assert (int(ref["pos"]), int(ref["neg"])) == (int(r.pos[i]), int(r.neg[i]))
        edges = set(map(tuple, r.edges[i].tolist()))
        path = r.path[i].tolist()
        assert path[0] == int(r.root[i]) and path[-1] == int(r.pos[i])
        assert all((a, b) in edges for a, b in zip(path, path[1:]))
        # the same graph: edge multiset maps through one permutation of the ids
        assert sorted(big.reach[i].sum(-1).tolist()) == sorted(r.reach[i].sum(-1).tolist())


def test_gpt2_init_and_warmup(data):
    m = make_model(data, d_model=32, n_heads=4, init_seed=0, init_std=0.02)
    assert float(m.W_E.std()) == pytest.approx(0.02, rel=0.2)
    assert float(m.blocks[0].attn.W_O.std()) == pytest.approx(0.01, rel=0.2)
    assert float(m.blocks[0].attn.b_Q.abs().max()) == 0.0
    assert torch.equal(m.blocks[0].ln1.weight, torch.ones(32))
    w = CoconutWrapper(m)
    hist = train(w, data, TrainConfig(epochs_per_stage=(1, 0, 0, 0), batch_size=2, warmup_steps=10), seed=0)
    assert math.isfinite(hist[0]["loss"])


# --- attention hooks and the measurements ----------------------------------------------------------------


def test_hooks_pattern_sums_to_one_and_scores_match_qk(data, wrapper):
    with torch.no_grad():
        out = wrapper(data.prompt, 2)
        x = torch.cat([wrapper.model.embed(data.prompt), out.thoughts], dim=1)
        cap = capture_attention(wrapper, x)
    d_head = wrapper.model.d_head
    for scores, pattern, q, k in zip(cap["scores"], cap["pattern"], cap["q"], cap["k"]):
        torch.testing.assert_close(pattern.sum(-1), torch.ones(pattern.shape[:-1]), atol=1e-5, rtol=0)
        ref = torch.einsum("bqhe,bkhe->bhqk", q, k) / math.sqrt(d_head)
        keep = torch.isfinite(scores)
        assert torch.equal(keep, torch.ones_like(keep).tril())
        torch.testing.assert_close(scores[keep], ref[keep], atol=1e-5, rtol=1e-5)


def test_index_matching_logit_matches_a_loop(data, wrapper):
    step = 2
    im = track_index_matching_logit(wrapper, data, step)
    with torch.no_grad():
        out = wrapper(data.prompt, step)
        x = torch.cat([wrapper.model.embed(data.prompt), out.thoughts], dim=1)
        scores = capture_attention(wrapper, x)["scores"][-1]
    qpos = data.prompt.shape[1] + step - 1
    sep = data.token("|")

    def loop_gap(key_pos):
        gaps = []
        for i in range(len(data)):
            reach = set(torch.nonzero(data.reach[i, step])[:, 0].tolist())
            on, off = [], []
            for e, (s, _) in enumerate(data.edges[i].tolist()):
                (on if s in reach else off).append(scores[i, :, qpos, key_pos(i, e)])
            gaps.append(torch.stack(on).mean(0) - torch.stack(off).mean(0))
        return torch.stack(gaps).mean(0)

    # the official analysis keys on the separator token that follows each edge's "s t"
    assert all(
        int(data.prompt[i, int(data.tgt_pos[i, e]) + 1]) == sep for i in range(len(data)) for e in range(3)
    )
    ref_sep = loop_gap(lambda i, e: int(data.tgt_pos[i, e]) + 1)
    torch.testing.assert_close(im.gap_sep[-1], ref_sep, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(
        im.gap_src[-1], loop_gap(lambda i, e: int(data.src_pos[i, e])), atol=1e-5, rtol=1e-5
    )
    assert im.mu == pytest.approx(float(ref_sep.sum()), abs=1e-5)  # summed over heads, as the official script


def test_superposition_matches_a_loop(data, wrapper):
    sp = thought_superposition(wrapper, data)
    with torch.no_grad():
        th = wrapper(data.prompt, 3).thoughts
    nodes = wrapper.model.W_E[:12].detach()
    for c in range(3):
        masses, ents = [], []
        for i in range(len(data)):
            p = torch.softmax(th[i, c] @ nodes.T, -1).double()
            members = torch.nonzero(data.reach[i, c + 1])[:, 0]
            masses.append(float(p[members].sum()))
            q = p[members] / p[members].sum()
            ents.append(float(-(q * q.log()).sum() / math.log(len(members))))
        assert sp["mass"][c] == pytest.approx(np.mean(masses), abs=1e-5)
        assert sp["entropy"][c] == pytest.approx(np.mean(ents), abs=1e-5)


def test_answer_logit_decomposition_is_exact(data, wrapper):
    dec = answer_logit_decomposition(wrapper, data)
    assert dec["sum_of_terms"] == pytest.approx(dec["total"], abs=1e-4)
    assert dec["mu_A"] == pytest.approx(dec["attn0_thoughts"] + dec["attn1_thoughts"])


# --- losses, training, evaluation ------------------------------------------------------------------------


def test_bfs_loss_is_reachable_set_mass_and_below_ce(data, wrapper):
    gen = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for k in range(3):
            bfs = stage_loss(wrapper, data, k, "coconut_bfs", gen)
            logits = wrapper(data.prompt, k).logits[:, -1]
            p = torch.softmax(logits, -1)
            ref = -torch.log((p[:, :12] * data.reach[:, k + 1]).sum(-1))
            torch.testing.assert_close(bfs, ref, atol=1e-5, rtol=1e-5)
            ce = stage_loss(wrapper, data, k, "coconut", gen)
            assert torch.all(bfs <= ce + 1e-6)
        final = stage_loss(wrapper, data, 3, "coconut_bfs", gen)
        ref = torch.nn.functional.cross_entropy(
            wrapper(data.prompt, 3, _answer(data)).logits[:, -1], data.pos, reduction="none"
        )
        torch.testing.assert_close(final, ref)


def test_training_is_deterministic_and_runs_every_method(data):
    data = data.subset(slice(0, 4))
    params = []
    for _ in range(2):
        w = CoconutWrapper(make_model(data, d_model=8, n_heads=2, init_seed=0))
        hist = train(
            w, data, TrainConfig(epochs_per_stage=(1, 1, 0, 1), batch_size=4, uniform_prob=0.5), seed=5
        )
        params.append(torch.cat([p.detach().flatten() for p in w.model.parameters()]))
    assert [h["stage"] for h in hist] == [0.0, 1.0, 3.0]
    assert torch.equal(params[0], params[1])
    for method in ("no_cot", "cot", "coconut_bfs"):
        w = CoconutWrapper(make_model(data, d_model=8, n_heads=2, init_seed=0))
        h = train(w, data, TrainConfig(method=method, epochs_per_stage=(1, 0, 0, 0)), seed=0)
        assert len(h) == 1 and math.isfinite(h[0]["loss"])
        assert 0.0 <= evaluate_accuracy(w, data, method) <= 1.0


# --- claim rules -----------------------------------------------------------------------------------------


def test_plateau_stats_separate_saturating_from_linear_growth():
    e = np.arange(21)
    sat = mu_plateau_stats(3 * (1 - np.exp(-e / 2.0)))
    lin = mu_plateau_stats(0.3 * e)
    assert sat["mu_rise"] >= 1.0 and sat["mu_slope_ratio"] <= 0.1
    assert sat["mu_rise"] == sat["mu_early_max"] - 0.0
    assert lin["mu_slope_ratio"] == pytest.approx(1.0)


def _mu_row(rise, ratio, dec=1.0, mu_init=0.1):
    return {
        "mu_early_max": mu_init + rise,
        "mu_init": mu_init,
        "mu_slope_ratio": ratio,
        "loss_decreasing": dec,
    }


def test_bounded_mu_decider_three_outcomes():
    dec = bounded_mu_decider()
    assert dec([_mu_row(2.0, 0.02)] * 3).outcome is Outcome.SUPPORTED
    assert dec([_mu_row(2.0, 0.9)] * 3).outcome is Outcome.NOT_SUPPORTED
    assert dec([_mu_row(0.2, 0.2)] * 3).outcome is Outcome.INCONCLUSIVE
    assert dec([_mu_row(2.0, 0.02, dec=0.0)] * 3).outcome is Outcome.INCONCLUSIVE  # loss no longer falling
    # sabotage: mu never left its initial value -> no rise, not supported
    assert dec([_mu_row(0.0, 0.02)] * 3).outcome is not Outcome.SUPPORTED
    # a NaN slope ratio (mu never rose in any window) fails that seed but is no guard failure
    mixed = [_mu_row(2.0, 0.02), _mu_row(2.0, 0.03), _mu_row(0.1, float("nan"))]
    assert dec(mixed).outcome is Outcome.SUPPORTED
    assert dec([_mu_row(2.0, 0.02)]).outcome is Outcome.INCONCLUSIVE  # one seed


def test_superposition_and_accuracy_deciders_three_outcomes():
    sup = superposition_decider()
    assert sup([{"frontier_mass": 0.8, "frontier_entropy": 0.9}] * 3).outcome is Outcome.SUPPORTED
    assert sup([{"frontier_mass": 0.9, "frontier_entropy": 0.1}] * 3).outcome is Outcome.NOT_SUPPORTED
    assert sup([{"frontier_mass": 0.3, "frontier_entropy": 0.5}] * 3).outcome is Outcome.INCONCLUSIVE
    acc = accuracy_gap_decider()

    def rows(gaps, base=0.5):
        return [{"acc_coconut": base + g, "acc_no_cot": base} for g in gaps]

    assert acc(rows((0.2, 0.25, 0.22))).outcome is Outcome.SUPPORTED
    # the brief gives the accuracy part no refutation: a gap excluded from 5 points is inconclusive
    assert acc(rows((-0.01, 0.0, 0.01))).outcome is Outcome.INCONCLUSIVE
    assert acc(rows((-0.3, 0.1, 0.5))).outcome is Outcome.INCONCLUSIVE
    assert acc(rows((0.02, 0.03, 0.025))).outcome is Outcome.INCONCLUSIVE  # above 0 but below 5 points


def _claim(claim_id):
    from iclr26.mechanisms.continuous_cot.experiment import EXPERIMENT

    return next(c for c in EXPERIMENT.claims if c.id == claim_id)


def test_claims_are_not_reproduced_when_coconut_did_not_learn():
    # the earlier quick run: Coconut 0.16-0.37 held-out accuracy, no-CoT at chance between the candidates
    learned = {"acc_coconut": 0.95, "acc_no_cot": 0.52, "hop1_learned": 0.9}
    rows = [
        {**learned, **_mu_row(2.0, 0.02), "frontier_mass": 0.8, "frontier_entropy": 0.9, "acc_coconut": a}
        for a in (0.16, 0.37, 0.21)
    ]
    for cid in ("index-matching-logit-bounded", "thoughts-in-superposition", "coconut-beats-no-cot"):
        assert _claim(cid).judge(rows).outcome is Outcome.NOT_REPRODUCED, cid


def test_preconditions_pass_when_the_models_learned():
    base = {"acc_no_cot": 0.5, "frontier_mass": 0.8, "frontier_entropy": 0.9, "hop1_learned": 0.9}
    good = [{**base, **_mu_row(2.0, 0.02), "acc_coconut": a} for a in (0.9, 0.95, 0.92)]
    for cid in ("index-matching-logit-bounded", "thoughts-in-superposition", "coconut-beats-no-cot"):
        assert _claim(cid).judge(good).outcome is Outcome.SUPPORTED, cid
    unbounded = [{**r, "mu_slope_ratio": 0.9} for r in good]
    assert _claim("index-matching-logit-bounded").judge(unbounded).outcome is Outcome.NOT_SUPPORTED
    # an untrained no-CoT baseline (no answer format) makes the comparison not reproduced, not a win
    untrained = [{**r, "acc_no_cot": 0.05} for r in good]
    assert _claim("coconut-beats-no-cot").judge(untrained).outcome is Outcome.NOT_REPRODUCED
    # high accuracy through a shortcut while the thoughts follow no edge: not reproduced either
    shortcut = [{**r, "hop1_learned": 0.1} for r in good]
    for cid in ("index-matching-logit-bounded", "thoughts-in-superposition", "coconut-beats-no-cot"):
        assert _claim(cid).judge(shortcut).outcome is Outcome.NOT_REPRODUCED, cid


def test_first_hop_baseline_brackets_the_loss(data):
    from iclr26.mechanisms.continuous_cot.experiment import _first_hop_losses

    w = CoconutWrapper(make_model(data, d_model=16, n_heads=2, init_seed=0, init_std=0.02))
    h = _first_hop_losses(w, data)
    # optimum (uniform on R_1) < copy-the-root baseline < uniform over all node tokens
    assert h["hop1_optimum"] < h["hop1_copy_root"] < math.log(data.n_node_tokens) + 1e-9
    # a near-uniform untrained model is no better than copying the root
    assert h["hop1_learned"] < 0.5
    assert h["hop1_loss"] == pytest.approx(math.log(data.vocab_size), abs=0.2)


def test_build_instance_rejects_unreachable_candidates():
    edges = [(0, 1), (1, 2), (2, 3), (4, 5)]
    ok = build_instance(edges, 0, (5, 3), depth=3, n_node_tokens=6)
    assert int(ok["pos"]) == 3
    with pytest.raises(ValueError, match="reachable"):
        build_instance(edges, 0, (5, 4), depth=3, n_node_tokens=6)


def test_full_budget_is_the_official_recipe():
    # quick cannot learn the first hop (README diagnosis); full must be the official setting that does
    from iclr26.mechanisms.continuous_cot.experiment import EXPERIMENT

    full = EXPERIMENT.configs["full"]
    assert (full.d_model, full.n_layers, full.n_heads) == (768, 2, 8)
    assert (full.lr, full.weight_decay, full.batch_size, full.warmup_steps) == (1e-4, 0.01, 512, 0)
    assert full.epochs_per_stage == (100, 50, 50, 50, 50) and full.uniform_prob == 0.1
    assert full.init_std == 0.02 and full.shuffle_nodes and full.n_train >= 15000
    # quick keeps its 24 stage-0 epochs, the part that has to learn
    assert EXPERIMENT.configs["quick"].epochs_per_stage[0] == 24
