"""Oracle tests of the soft-thinking decoders, probes, testbed and claim check (arXiv 2508.03440)."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
import torch
from scipy import stats
from scipy.spatial.distance import jensenshannon

from iclr26.harness.claims import Outcome
from iclr26.lab.tasks import IGNORE_INDEX
from iclr26.lab.threads import limited_threads
from iclr26.lab.transformer import Transformer
from iclr26.mechanisms.soft_thinking import (
    END,
    EOS,
    VOCAB_SIZE,
    TrainConfig,
    as_embedding_lm,
    check_answer,
    dag_problem,
    dirichlet_weights,
    gumbel_weights,
    js_divergence,
    layer_overlap,
    make_problems,
    mix_embeddings,
    soft_decode,
    soft_weights,
    swap_test,
    top1_dominance,
    trained_model,
    training_batch,
)
from iclr26.mechanisms.soft_thinking.claim_check import part_decider, soft_thinking_decider
from iclr26.mechanisms.soft_thinking.experiment import EXPERIMENT
from iclr26.mechanisms.soft_thinking.task import N_SYMBOLS, THINK, guess_accuracy


@pytest.fixture(autouse=True)
def _one_thread():
    with limited_threads(1):
        yield


@pytest.fixture(scope="module")
def model() -> Transformer:
    torch.manual_seed(0)
    m = Transformer(VOCAB_SIZE, 48, 16, 2, 2, init_seed=0).eval()
    with torch.no_grad():  # make END likely at some steps so both phases are exercised
        m.W_E[END] *= 3.0
    return m


@pytest.fixture(scope="module")
def prompts() -> torch.Tensor:
    return torch.tensor([p.prompt for p in make_problems(6, "dag", 0)])


def _decode(model, prompts, mode, **kw):
    kw.setdefault("generator", torch.Generator().manual_seed(0))
    return soft_decode(model, prompts, mode, end_think_id=END, eos_id=EOS, max_think=5, max_answer=4, **kw)


def test_soft_with_top1_truncation_is_greedy(model, prompts):
    g = _decode(model, prompts, "greedy")
    s = _decode(model, prompts, "soft", k=1)
    assert torch.equal(g.tokens, s.tokens)
    assert g.answers == s.answers
    assert torch.equal(g.think_len, s.think_len)
    # ...while the full soft mixture is a different input (the test can tell them apart)
    s10 = _decode(model, prompts, "soft", k=10, record=True)
    assert any(float((st.q > 0).sum(-1).max()) > 1 for st in s10.steps)


def test_gumbel_low_temperature_is_exact_sampling():
    p = torch.tensor([0.4, 0.25, 0.2, 0.1, 0.05], dtype=torch.float64)
    n = 10_000
    q = gumbel_weights(p.expand(n, 5), tau=1e-4, generator=torch.Generator().manual_seed(1))
    counts = np.bincount(q.argmax(-1).numpy(), minlength=5)
    assert stats.chisquare(counts, (p * n).numpy()).pvalue > 1e-3
    one_hot = (q.max(-1).values > 1 - 1e-6).double().mean()
    # q is not one-hot only when the two best perturbed logits are within ~tau*ln(1e6) of each other
    assert one_hot > 0.995


def test_gumbel_high_temperature_is_uniform_on_support():
    p = torch.tensor([[0.7, 0.2, 0.1, 0.0]])
    q = gumbel_weights(p, tau=1e6, generator=torch.Generator().manual_seed(0))
    assert torch.allclose(q, torch.tensor([[1 / 3, 1 / 3, 1 / 3, 0.0]]), atol=1e-4)


def test_dirichlet_mean_and_variance():
    p = torch.tensor([0.5, 0.3, 0.2, 0.0], dtype=torch.float64)
    beta = 4.0
    q = dirichlet_weights(p.expand(20_000, 4), beta, torch.Generator().manual_seed(2))
    assert torch.all(q[:, 3] == 0)
    assert torch.allclose(q.sum(-1), torch.ones(20_000, dtype=torch.float64))
    assert torch.allclose(q.mean(0), p, atol=0.01)
    var = (p * (1 - p) / (beta + 1))[:3]
    assert torch.allclose(q.var(0)[:3], var, rtol=0.08)


def test_topk_renormalises():
    logits = torch.randn(4, 20, generator=torch.Generator().manual_seed(3))
    ids, w = soft_weights(logits, k=5, top_p=1.0, temperature=0.7)
    probs = torch.softmax(logits.double() / 0.7, -1).numpy()
    for r in range(4):
        top = np.argsort(-probs[r])[:5]
        assert ids[r].tolist() == top.tolist()
        assert np.allclose(w[r].numpy(), probs[r, top] / probs[r, top].sum(), atol=1e-6)
    assert torch.allclose(w.sum(-1), torch.ones(4), atol=1e-6)
    ids_p, w_p = soft_weights(logits, k=20, top_p=0.5)
    assert torch.allclose(w_p.sum(-1), torch.ones(4), atol=1e-6)
    keep = w_p > 0
    assert torch.all((w_p.double().cumsum(-1) - w_p)[keep] < 1.0)  # nucleus respected after renormalising


@pytest.mark.parametrize("mode", ["soft", "dirichlet", "gumbel"])
def test_soft_inputs_lie_in_convex_hull_and_are_fed(model, prompts, mode):
    res = _decode(model, prompts, mode, record=True)
    table, _ = as_embedding_lm(model)
    assert res.steps
    for st, nxt in zip(res.steps, res.steps[1:]):
        assert torch.all(st.q >= 0) and torch.allclose(st.q.sum(-1), torch.ones(len(st.rows)), atol=1e-6)
        assert torch.all(st.q[st.p == 0] == 0)  # noise stays on the truncated support
        s = mix_embeddings(table, st.ids, st.q)
        # the next step's prefix ends with s for every row that kept thinking
        pos = {r: i for i, r in enumerate(nxt.rows.tolist())}
        for i, r in enumerate(st.rows.tolist()):
            if r in pos:
                assert torch.allclose(nxt.prefix[pos[r], -1], s[i], atol=1e-6)


def test_sabotage_unnormalised_topk_leaves_the_hull():
    logits = torch.randn(3, 20, generator=torch.Generator().manual_seed(4))
    w_bad = torch.softmax(logits, -1).topk(5, -1).values  # broken variant: no renormalisation
    assert not torch.allclose(w_bad.sum(-1), torch.ones(3), atol=1e-6)
    bad = part_decider("b")([_row(gain=v) for v in (-0.02, 0.01, -0.01)])
    assert bad.outcome is Outcome.NOT_SUPPORTED


def test_js_matches_scipy_and_bounds():
    rng = np.random.default_rng(0)
    p, q = rng.dirichlet(np.ones(7), size=2)
    ours = float(js_divergence(torch.tensor(p), torch.tensor(q)))
    assert math.isclose(ours, jensenshannon(p, q) ** 2, rel_tol=1e-9)
    assert float(js_divergence(torch.tensor(p), torch.tensor(p))) == pytest.approx(0.0, abs=1e-12)
    a, b = torch.tensor([1.0, 0.0]), torch.tensor([0.0, 1.0])
    assert float(js_divergence(a, b)) == pytest.approx(math.log(2))


def test_probes_limits(model, prompts):
    table, _ = as_embedding_lm(model)
    prefix = table[prompts]
    ids = torch.tensor([[3, 5]] * len(prompts))
    one_hot = torch.tensor([[1.0, 0.0]] * len(prompts))
    pr = top1_dominance(model, prefix, ids, one_hot)
    assert torch.allclose(pr.js_top1, torch.zeros_like(pr.js_top1), atol=1e-10)
    assert bool(pr.agree_top1.all())
    assert torch.all(pr.js_top2 > 0)
    assert bool(swap_test(model, prefix, ids, one_hot).all())  # swapped one-hot is exactly the new top-1
    same = layer_overlap(model, prefix, torch.full((len(prompts),), 3), torch.full((len(prompts),), 3), 0.6)
    assert same.shape == (model.n_layers + 1, 2)
    assert torch.allclose(same, torch.full_like(same, 5.0))


def test_layer_overlap_final_row_is_model_logits(model, prompts):
    table, fn = as_embedding_lm(model)
    prefix = table[prompts]
    a, b = torch.full((len(prompts),), 2), torch.full((len(prompts),), 7)
    ov = layer_overlap(model, prefix, a, b, 0.6, top_single=3, top_soft=3)
    s = 0.6 * table[a] + 0.4 * table[b]
    with torch.no_grad():
        za = fn(torch.cat([prefix, table[a][:, None]], 1))[:, -1]
        zs = fn(torch.cat([prefix, s[:, None]], 1))[:, -1]
    ref = np.mean(
        [len(set(x.topk(3).indices.tolist()) & set(y.topk(3).indices.tolist())) for x, y in zip(za, zs)]
    )
    assert float(ov[-1, 0]) == pytest.approx(ref)


def test_shortest_paths_match_networkx():
    rng = np.random.default_rng(5)
    for _ in range(20):
        prob, paths = dag_problem(rng)
        g = nx.DiGraph(list(prob.edges))
        ref = sorted(nx.all_shortest_paths(g, prob.start, prob.goal))
        assert sorted(paths) == ref
        assert check_answer(prob, prob.answer)
        assert check_answer(prob, [*prob.answer, EOS, 3])
        bad = [prob.start, prob.goal, prob.goal, prob.goal]
        assert not check_answer(prob, bad)


def test_mod_problems_and_training_batch():
    for p in make_problems(5, "mod", 1):
        xs, ops = p.prompt[1:-2:2], p.prompt[2:-2:2]
        acc = xs[0]
        for op, x in zip(ops, xs[1:]):
            acc = (acc + x) % 12 if op == 17 else (acc * x) % 12
        assert p.answer == [acc] and p.trace[-1] == acc
        assert check_answer(p, [acc]) and not check_answer(p, [(acc + 1) % 12])
    x, y = training_batch(np.random.default_rng(0), 8)
    assert x.shape == y.shape
    for i in range(8):
        think = int((x[i] == THINK).nonzero()[0])
        assert torch.all(y[i, :think] == IGNORE_INDEX)
        assert int(y[i, think]) != IGNORE_INDEX


def test_hf_model_backend_matches_greedy():
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    hf = GPT2LMHeadModel(
        GPT2Config(vocab_size=VOCAB_SIZE, n_positions=48, n_embd=16, n_layer=1, n_head=2)
    ).eval()
    prompts = torch.tensor([p.prompt for p in make_problems(3, "mod", 2)])
    g = _decode(hf, prompts, "greedy")
    s = _decode(hf, prompts, "soft", k=1)
    assert torch.equal(g.tokens, s.tokens)
    with torch.no_grad():
        direct = hf(prompts).logits[:, -1].argmax(-1)
    assert torch.equal(g.tokens[:, 0], direct)  # the first thinking token is the model's own argmax


def test_model_without_inputs_embeds_is_rejected(prompts):
    with pytest.raises(TypeError, match="model"):
        soft_decode(torch.nn.Linear(3, 3), prompts, end_think_id=END, eos_id=EOS)


def test_trained_model_cache_round_trip(tmp_path, monkeypatch):
    monkeypatch.setenv("ICLR26_CACHE", str(tmp_path))
    cfg = TrainConfig(d_model=16, n_layers=1, n_heads=2, steps=2, batch=4)
    a = trained_model(cfg, 0)
    files = list((tmp_path / "soft_thinking").glob("*.pt"))
    assert len(files) == 1
    b = trained_model(cfg, 0)
    assert all(torch.equal(x, y) for x, y in zip(a.state_dict().values(), b.state_dict().values()))


def _row(gain=0.05, soft_minus_greedy=0.0, gumbel_minus_sample=0.0, **kw):
    """One seed's metrics; the pass@1 of each decoder is built from the differences the rule reads."""
    soft = 0.8
    base = {
        "dom_agree": 0.95,
        "js_top1_median": 0.01,
        "js_top2_median": 0.4,
        "acc_soft": soft,
        "acc_greedy": soft - soft_minus_greedy,
        "acc_gumbel": soft + gain,
        "acc_sample": soft + gain - gumbel_minus_sample,
        "greedy_above_chance": 0.5,
    }
    return base | kw


def test_decider_supported_not_supported_inconclusive():
    d = soft_thinking_decider()
    good = [_row(gain=v) for v in (0.04, 0.05, 0.06)]
    assert d(good).outcome is Outcome.SUPPORTED
    assert d(good).estimate == pytest.approx(0.05)  # gumbel - soft
    parallel = [_row(dom_agree=0.5, gain=v) for v in (0.04, 0.05, 0.06)]
    assert d(parallel).outcome is Outcome.NOT_SUPPORTED
    no_gain = [_row(gain=v) for v in (-0.02, 0.01, 0.0)]
    assert d(no_gain).outcome is Outcome.NOT_SUPPORTED
    worse = [_row(gain=v) for v in (-0.03, -0.035, -0.04)]  # interval wholly below 0
    assert d(worse).outcome is Outcome.NOT_SUPPORTED
    behind_sampling = [_row(gain=v, gumbel_minus_sample=-0.05) for v in (0.04, 0.05, 0.06)]
    assert d(behind_sampling).outcome is Outcome.INCONCLUSIVE
    middling = [_row(dom_agree=0.8, gain=v) for v in (0.04, 0.05, 0.06)]
    assert d(middling).outcome is Outcome.INCONCLUSIVE
    far_from_greedy = [_row(soft_minus_greedy=0.1, gain=v) for v in (0.04, 0.05, 0.06)]
    assert d(far_from_greedy).outcome is Outcome.INCONCLUSIVE
    assert d([_row()]).outcome is Outcome.INCONCLUSIVE
    assert d([_row(dom_agree=float("nan"))] * 3).outcome is Outcome.INCONCLUSIVE
    a = part_decider("a")
    assert a(good).outcome is Outcome.SUPPORTED
    assert a([_row(js_top1_median=0.5)] * 3).outcome is Outcome.INCONCLUSIVE
    assert a(parallel).outcome is Outcome.NOT_SUPPORTED
    assert part_decider("b")(middling).outcome is Outcome.SUPPORTED


def test_gain_interval_containing_zero_is_not_a_refutation():
    """Changed rule: a gain interval that contains 0 but reaches 3 points is inconclusive (it was not supported),
    and one wholly between 0 and 3 points excludes the claimed gain and is not supported (it was inconclusive)."""
    b = part_decider("b")
    wide = [_row(gain=v) for v in (-0.04, -0.01, 0.04)]
    verdict = b(wide)
    assert verdict.estimate <= 0 and verdict.interval[0] < 0 and verdict.interval[1] >= 0.03
    assert verdict.outcome is Outcome.INCONCLUSIVE
    small_gain = [_row(gain=v) for v in (0.01, 0.015, 0.02)]  # > 0 but clearly below 3 points
    assert b(small_gain).outcome is Outcome.NOT_SUPPORTED


def test_precondition_gives_not_reproduced_and_passes_when_learned():
    good = [_row(gain=v) for v in (0.04, 0.05, 0.06)]
    untrained = [dict(r, greedy_above_chance=-0.1 if i == 0 else 0.5) for i, r in enumerate(good)]
    for claim in EXPERIMENT.claims:
        assert [p.metric for p in claim.preconditions] == ["greedy_above_chance"]
        assert claim.judge(good).outcome is Outcome.SUPPORTED
        assert claim.judge(untrained).outcome is Outcome.NOT_REPRODUCED
    combined = EXPERIMENT.claims[0]
    parallel = [_row(dom_agree=0.5, gain=v) for v in (0.04, 0.05, 0.06)]
    assert combined.judge(parallel).outcome is Outcome.NOT_SUPPORTED


def test_guess_accuracy_counts_valid_middle_nodes():
    problems = make_problems(20, "dag", 3)
    for p in problems:
        valid = [a for a in range(N_SYMBOLS) if check_answer(p, [p.start, a, p.goal])]
        assert guess_accuracy(p) == len(valid) / 4
    assert guess_accuracy(make_problems(1, "mod", 0)[0]) == 1 / N_SYMBOLS
