"""Oracle and property tests of FlyThinker's fusion, training loss, two-cache decoding and baselines."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from iclr26.agents.flythinker import (
    GPT,
    SFT,
    FlyThinker,
    LatentChain,
    ThinkThenGenerate,
    TopP,
    World,
    decode,
    fuse,
    generate,
    norm_match,
    response_labels,
    shifted_loss,
)
from iclr26.agents.flythinker.claim_check import bootstrap_gain_var, chain_slower, fly_beats_sft
from iclr26.agents.flythinker.world import PREF_OFFSETS, PROMPT_LEN, SECTION_LEN, VOCAB_SIZE, pref_mask
from iclr26.harness.claims import Outcome

V = 30


def _pair(d_g=16, d_r=8, dtype=torch.float64, max_len=40):
    g = GPT(V, d_g, 2, 2, max_len, seed=1).to(dtype)
    r = GPT(V, d_r, 1, 2, max_len, seed=2).to(dtype)
    return g, r


def _ids(b=3, t=12, seed=0):
    return torch.randint(0, V, (b, t), generator=torch.Generator().manual_seed(seed))


def _slow_fly_logits(model, ids):
    """Reference: the fused input built position by position with explicit loops, then G on the full sequence."""
    g, r = model.generator, model.reasoner
    h = r(input_ids=ids, output_hidden_states=True).hidden_states[-1]
    emb_w = g.get_input_embeddings().weight
    m = torch.stack([emb_w[v].norm() for v in range(emb_w.shape[0])]).mean().detach()  # sg(m)
    rows = []
    for b in range(ids.shape[0]):
        seq = []
        for t in range(ids.shape[1]):
            e = emb_w[ids[b, t]].clone()
            if t > 0:
                lat = h[b, t - 1] * m / h[b, t - 1].norm().detach()  # sg(||h_t||)
                e[: lat.shape[0]] = e[: lat.shape[0]] + model.lam * lat
            seq.append(e)
        rows.append(torch.stack(seq))
    return g(inputs_embeds=torch.stack(rows)).logits


# ---------------------------------------------------------------- tiny GPT with KV cache


def test_tiny_gpt_cache_matches_full_pass():
    g, _ = _pair()
    ids = _ids(2, 10)
    full = g(input_ids=ids).logits
    out = g(input_ids=ids[:, :4], use_cache=True)
    parts = [out.logits]
    out2 = g(
        input_ids=ids[:, 4:7], past_key_values=out.past_key_values, use_cache=True
    )  # a block after a cache
    parts.append(out2.logits)
    past = out2.past_key_values
    for t in range(7, 10):
        o = g(input_ids=ids[:, t : t + 1], past_key_values=past, use_cache=True)
        parts.append(o.logits)
        past = o.past_key_values
    assert torch.allclose(torch.cat(parts, 1), full, atol=1e-12)


# ---------------------------------------------------------------- fusion and norm matching


def test_fast_forward_equals_slow_reference_outputs_and_gradients():
    g, r = _pair()
    model = FlyThinker(g, r, lam=0.5)
    ids = _ids()
    fast = model(ids).logits
    slow = _slow_fly_logits(model, ids)
    assert torch.allclose(fast, slow, atol=1e-12)
    w = torch.randn_like(fast)
    params = list(model.parameters())
    g1 = torch.autograd.grad((fast * w).sum(), params, allow_unused=True)
    g2 = torch.autograd.grad((_slow_fly_logits(model, ids) * w).sum(), params, allow_unused=True)
    for a, b in zip(g1, g2):
        assert (a is None) == (b is None)  # only R's unused output head gets none
        assert a is None or torch.allclose(a, b, atol=1e-10)


def test_lambda_zero_gives_generator_alone():
    g, r = _pair()
    ids = _ids()
    assert torch.equal(FlyThinker(g, r, lam=0.0)(ids).logits, g(input_ids=ids).logits)


def test_norm_match_has_embedding_scale_and_detached_normaliser():
    g, r = _pair()
    ids = _ids()
    h = r(input_ids=ids, output_hidden_states=True).hidden_states[-1].detach().requires_grad_(True)
    w = g.get_input_embeddings().weight
    lat = norm_match(h, w)
    m = w.norm(dim=-1).mean()
    assert torch.allclose(lat.norm(dim=-1), m.expand(lat.shape[:2]), atol=1e-10, rtol=0)
    up = torch.randn_like(lat)
    (grad,) = torch.autograd.grad((lat * up).sum(), h)
    expected = up * (m / h.norm(dim=-1, keepdim=True)).detach()  # no term through ||h||
    assert torch.allclose(grad, expected, atol=1e-12)
    # and the embedding table receives no gradient through m
    w2 = w.detach().clone().requires_grad_(True)
    assert not norm_match(h.detach(), w2).requires_grad


def test_fuse_first_coordinates_rule_and_shift():
    e = torch.zeros(1, 3, 5, dtype=torch.float64)
    lat = torch.tensor([[[1.0, 2.0], [3.0, 4.0], [9.0, 9.0]]], dtype=torch.float64)
    out = fuse(e, lat, 0.5)
    expected = torch.tensor([[[0, 0, 0, 0, 0], [0.5, 1, 0, 0, 0], [1.5, 2, 0, 0, 0]]], dtype=torch.float64)
    assert torch.equal(out, expected)  # latent t guides position t+1; the last latent is unused


def test_narrow_reasoner_is_added_on_first_coordinates():
    g, r = _pair(d_g=16, d_r=8)
    model = FlyThinker(g, r, lam=1.0)
    ids = _ids()
    assert torch.allclose(model(ids).logits, _slow_fly_logits(model, ids), atol=1e-12)


def test_no_norm_match_adds_raw_state():
    g, r = _pair(d_g=8, d_r=8)
    model = FlyThinker(g, r, lam=0.3, norm_match=False)
    ids = _ids()
    h = r(input_ids=ids, output_hidden_states=True).hidden_states[-1]
    e = g.get_input_embeddings()(ids)
    e2 = torch.cat([e[:, :1], e[:, 1:] + 0.3 * h[:, :-1]], 1)
    assert torch.allclose(model(ids).logits, g(inputs_embeds=e2).logits, atol=1e-12)


# ---------------------------------------------------------------- causality, decoding


def test_causality_of_latents_and_logits():
    g, r = _pair()
    model = FlyThinker(g, r)
    ids = _ids(2, 12)
    other = ids.clone()
    other[:, 7:] = (other[:, 7:] + 5) % V
    a, b = model(ids), model(other)
    assert torch.allclose(a.latents[:, :7], b.latents[:, :7], atol=1e-12)
    assert torch.allclose(a.logits[:, :7], b.logits[:, :7], atol=1e-12)
    assert not torch.allclose(a.logits[:, 7:], b.logits[:, 7:])


@pytest.mark.parametrize("parallel", [False, True])
def test_incremental_decoding_equals_teacher_forced(parallel):
    g, r = _pair()
    model = FlyThinker(g, r, lam=0.5)
    prompt = _ids(3, 6)
    out = generate(model, prompt, 12, parallel=parallel)
    assert out.sequences.shape == (3, 18) and torch.equal(out.sequences[:, :6], prompt)
    full = model(out.sequences).logits
    assert torch.allclose(out.logits, full[:, 5:17], atol=1e-5, rtol=0)
    assert torch.equal(out.logits.argmax(-1), out.sequences[:, 6:])


def test_parallel_and_sequential_decoding_agree_with_sampling():
    g, r = _pair()
    model = FlyThinker(g, r)
    prompt = _ids(2, 5)
    a = generate(model, prompt, 10, sampler=TopP(0.8, 0.95, seed=3), parallel=False)
    b = generate(model, prompt, 10, sampler=TopP(0.8, 0.95, seed=3), parallel=True)
    assert torch.equal(a.sequences, b.sequences) and torch.equal(a.logits, b.logits)


def test_top_p_keeps_the_nucleus():
    logits = torch.log(torch.tensor([[0.6, 0.3, 0.05, 0.05]]))
    s = TopP(1.0, 0.8, seed=0)
    draws = {int(s(logits)) for _ in range(200)}
    assert draws == {0, 1}


def test_works_with_hugging_face_gpt2():
    from iclr26.lab.tinylm import TinyLMConfig, build_model

    g = build_model(
        TinyLMConfig(arch="gpt2", d_model=32, n_layers=1, n_heads=2, seq_len=32, seed=0), V
    ).double()
    r = build_model(
        TinyLMConfig(arch="gpt2", d_model=16, n_layers=1, n_heads=2, seq_len=32, seed=1), V
    ).double()
    g.eval(), r.eval()
    model = FlyThinker(g, r, lam=0.5)
    prompt = _ids(2, 5)
    out = generate(model, prompt, 6)
    full = model(out.sequences)
    assert torch.allclose(out.logits, full.logits[:, 4:10], atol=1e-5, rtol=0)
    assert torch.equal(FlyThinker(g, r, lam=0.0)(prompt).logits, g(input_ids=prompt).logits)


# ---------------------------------------------------------------- loss and gradients


def test_loss_is_response_only_and_reaches_the_reasoner():
    g, r = _pair()
    model = FlyThinker(g, r)
    ids = _ids(2, 12)
    labels = response_labels(ids, 5)
    out = model(ids, labels=labels)
    lp = torch.log_softmax(out.logits, -1)
    hand = -torch.stack([lp[b, t - 1, ids[b, t]] for b in range(2) for t in range(5, 12)]).mean()
    assert torch.allclose(out.loss, hand, atol=1e-12)
    # prompt tokens' targets do not matter (labels -100 there)
    other = labels.clone()
    other[:, 1:5] = ids[:, 1:5]
    other2 = other.clone()
    other2[:, 1:5] = (other2[:, 1:5] + 1) % V
    l1 = model(ids, labels=response_labels(ids, 5)).loss
    l2 = shifted_loss(out.logits, response_labels(other2, 5))
    assert torch.allclose(l1, l2)
    out.loss.backward()
    body = [p for n, p in r.named_parameters() if not n.startswith("lm_head")]  # R's head is never used
    assert all(p.grad is not None and float(p.grad.abs().sum()) > 0 for p in body)


def test_per_token_loss_matches_cross_entropy():
    logits = torch.randn(2, 5, 7, dtype=torch.float64)
    labels = torch.tensor([[-100, 1, 2, -100, 3], [-100, -100, 4, 5, 6]])
    per = shifted_loss(logits, labels, reduction="none")
    ref = F.cross_entropy(logits[0, 0:1], labels[0, 1:2])
    assert torch.allclose(per[0, 0], ref)
    assert per[0, 2] == 0 and per[1, 0] == 0


# ---------------------------------------------------------------- baselines


def test_sft_equals_generator_and_decodes_greedily():
    g, _ = _pair()
    ids = _ids()
    s = SFT(g)
    assert torch.equal(s(ids).logits, g(input_ids=ids).logits)
    out = decode(s, ids[:, :4], 6)
    x = ids[:, :4]
    for _ in range(6):  # slow reference: full recompute each step
        x = torch.cat([x, g(input_ids=x).logits[:, -1].argmax(-1, keepdim=True)], 1)
    assert torch.equal(out, x)


def test_think_then_generate_prefix_and_decoding():
    g, r = _pair()
    torch.manual_seed(0)
    ttg = ThinkThenGenerate(g, r, prompt_len=5, n_prefix=4).double()
    ids = _ids(2, 10)
    out = ttg(ids)
    assert out.logits.shape == (2, 10, V)
    other = ids.clone()
    other[:, 5:] = (other[:, 5:] + 1) % V
    assert torch.allclose(ttg.prefix(ids), ttg.prefix(other))  # R reads the prompt only
    gen = decode(ttg, ids[:, :5], 4)
    full = ttg(gen).logits
    assert torch.equal(full[:, 4:8].argmax(-1), gen[:, 5:])


def test_latent_chain_zero_lambda_equals_flythinker_zero_lambda_and_chain_differs():
    g, r = _pair()
    ids = _ids()
    assert torch.allclose(LatentChain(g, r, lam=0.0)(ids).logits, g(input_ids=ids).logits, atol=1e-12)
    # with lam > 0 on R's own input the chain's latents differ from FlyThinker's parallel ones after position 1
    a = LatentChain(g, r, lam=0.5)(ids).latents
    b = FlyThinker(g, r, lam=0.5)(ids).latents
    assert torch.allclose(a[:, 0], b[:, 0], atol=1e-12) and not torch.allclose(a[:, 1:], b[:, 1:])


# ---------------------------------------------------------------- world and claim rules


def test_world_layout_and_preferences():
    w = World()
    u = w.users(np.random.default_rng(0), 5)
    x = w.examples(np.random.default_rng(1), u, 3)
    assert x.shape == (15, 72) and int(x.max()) < VOCAB_SIZE
    for row, user in zip(x, np.repeat(np.arange(5), 3)):
        resp = row[PROMPT_LEN:]
        for s in range(4):
            k = int(resp[s * SECTION_LEN]) - 7
            words = [int(resp[s * SECTION_LEN + o]) for o in PREF_OFFSETS]
            assert words == [u.adj[user, k], u.conn[user, k], u.close[user, k]]
    assert int(pref_mask().sum()) == 12


def test_claim_rules():
    base = {"sft_nll": 1.0, "pm_nll": 1.0, "var_gain_sft": 1e-6, "var_gain_pm": 1e-6}
    win = [
        {**base, "fly_nll": 0.95 - 0.001 * i, "fly_step_gflop": 1.0, "pm_step_gflop": 1.0} for i in range(3)
    ]
    assert fly_beats_sft(win).outcome is Outcome.SUPPORTED
    slow = [{**r, "fly_step_gflop": 2.0} for r in win]
    assert fly_beats_sft(slow).outcome is Outcome.INCONCLUSIVE
    lose = [{**r, "fly_nll": 1.05} for r in win]
    assert fly_beats_sft(lose).outcome is Outcome.NOT_SUPPORTED
    small = [{**r, "fly_nll": 0.99} for r in win]
    assert fly_beats_sft(small).outcome is Outcome.INCONCLUSIVE
    c = [{"fly_serial_passes": 2.0, "chain_serial_passes": 73.0} for i in range(3)]
    assert chain_slower(c).outcome is Outcome.SUPPORTED
    c2 = [{"fly_serial_passes": 2.0, "chain_serial_passes": 2.0 + 0.01 * i} for i in range(3)]
    assert chain_slower(c2).outcome is Outcome.NOT_SUPPORTED


def test_bootstrap_gain_var_is_zero_for_constant_ratio_and_positive_otherwise():
    rng = np.random.default_rng(0)
    base = rng.random(50) + 1
    assert bootstrap_gain_var(0.9 * base, base, rng) < 1e-20
    assert bootstrap_gain_var(rng.random(50) + 1, base, rng) > 0


def test_history_blind_baseline_is_perfect_with_one_family_and_no_deviation():
    from iclr26.agents.flythinker.experiment import blind_pref_acc

    w = World(n_families=1, deviate=0.0)
    rng = np.random.default_rng(0)
    x = w.examples(rng, w.users(rng, 20), 3)
    assert blind_pref_acc(x[:40], x[40:]) == 1.0
    w6 = World(n_families=6, deviate=0.2)
    y = w6.examples(rng, w6.users(rng, 60), 4)
    assert 0.1 < blind_pref_acc(y[:160], y[160:]) < 0.6


def test_step_costs_count_serial_passes_and_flops():
    from iclr26.agents.flythinker.experiment import FlyConfig, build, step_costs

    cfg = FlyConfig(d=16, n_head=2)
    x = torch.randint(0, VOCAB_SIZE, (2, 72))
    f_sft, n_sft = step_costs(build(cfg, "sft", 0), x)
    f_fly, n_fly = step_costs(build(cfg, "fly", 0), x)
    f_ch, n_ch = step_costs(build(cfg, "chain", 0), x)
    assert (n_sft, n_fly, n_ch) == (1, 2, 73)  # the chain runs R once per position, then G
    assert 1.5 < f_fly / f_sft < 2.5 and f_ch > 0
