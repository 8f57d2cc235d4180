"""Oracle tests of the function-induction components (arXiv 2507.09875): prompts, path patching, ablation,
naive-prompt read-out, induction scores, the TransformerLens adapter, the model and the claim rules."""

import contextlib

import numpy as np
import pytest
import torch

from iclr26.harness.claims import Outcome
from iclr26.lab import patching as lab_patching
from iclr26.lab.transformer import Site, Transformer
from iclr26.mechanisms.function_induction import (
    FIModelConfig,
    TransformerLensAdapter,
    Vocab,
    ablate_heads,
    accuracy,
    activation_patch,
    addition_prompts,
    bootstrap_relative_effect,
    build_model,
    contrast_pairs,
    induction_prompts,
    induction_scores,
    logit_diff,
    naive_logit_effect,
    naive_prompts,
    octal_token,
    offset_profile,
    path_patch,
    path_patch_scan,
    random_heads,
    relative_effect,
    sample_training_batch,
    shift_prompts,
    task_pairs,
    train_model,
)
from iclr26.mechanisms.function_induction.claim_check import (
    ablation_decider,
    pieces_decider,
    transfer_decider,
)

V = Vocab()


def _model(n_layers=3, n_heads=2, d_model=16, **kw):
    return Transformer(
        vocab_size=V.size, seq_len=30, d_model=d_model, n_layers=n_layers, n_heads=n_heads, init_seed=0, **kw
    ).eval()


def _pair(n=6, shots=3):
    b, c, yb, yc = contrast_pairs(n, shots, seed=3)
    return b, c, yb, yc


# ---------------------------------------------------------------- prompts and tokenisation


def test_tokenisation_round_trips():
    text = "<bos> 3 + 4 = 8 ; 99 + 0 = 0 ; a = z ; q ="
    assert V.decode(V.encode(text)) == text
    ids = list(range(V.size))
    assert V.encode(V.decode(ids)) == ids
    assert V.token("a") == V.letter_offset and V.token(7) == 7 and V.size == 100 + 4 + 26


def test_contrast_pairs_share_numbers_and_differ_by_delta_at_answers():
    b, c, yb, yc = contrast_pairs(5, 4, delta=1, seed=0)
    assert b.shape == c.shape == (5, 6 * 4 + 5)
    assert torch.equal(yc, yb + 1)
    ans = torch.arange(5, 6 * 4, 6)  # demo answer positions
    assert torch.equal(c[:, ans], b[:, ans] + 1)
    keep = torch.ones(b.shape[1], dtype=torch.bool)
    keep[ans] = False
    assert torch.equal(b[:, keep], c[:, keep])
    # the base answers are the sums of the operands
    assert torch.equal(b[:, 5], b[:, 1] + b[:, 3])


def test_task_pairs_hand_cases():
    b, c, yb, yc = task_pairs("base8", 50, 3, seed=1)
    assert b.shape == c.shape
    a1, a2 = c[:, -4], c[:, -2]
    assert torch.all(a1 + a2 >= 8) and torch.all(a1 <= 7) and torch.all(a2 <= 7)
    assert torch.equal(yb, a1 + a2)
    assert [octal_token(int(v)) for v in yb] == yc.tolist()
    assert octal_token(10) == 12 and octal_token(7) == 7 and octal_token(14) == 16
    b, c, yb, yc = task_pairs("shift", 4, 2, seed=0)
    assert torch.equal(yc, yb + 1) and torch.equal(b[:, -2], yb)
    assert V.decode(shift_prompts(np.array([[25, 0]]), 1, "letters")[0][0]) == "<bos> z = a ; a ="
    t, y = addition_prompts(np.array([[[2, 3], [4, 4]]]), delta=2)
    assert V.decode(t[0]) == "<bos> 2 + 3 = 7 ; 4 + 4 =" and int(y[0]) == 10


def test_naive_and_induction_prompts():
    p = naive_prompts(7, 3, 2, seed=0)
    assert torch.all(p[:, -2] == 7) and torch.equal(p[:, 1], p[:, 3])
    r = induction_prompts(2, 5, seed=0)
    assert r.shape == (2, 11) and torch.equal(r[:, 1:6], r[:, 6:])


def test_training_batch_has_no_off_by_one_on_numbers():
    rng = np.random.default_rng(0)
    eq = V.token("=")
    for _ in range(5):
        batch = sample_training_batch(16, 4, rng)
        for key in ("add", "num_shift"):
            t = batch[key]
            for row in t:
                pos = (row == eq).nonzero().flatten()
                for p in pos.tolist():
                    y = int(row[p + 1])
                    s = int(row[p - 1]) + (int(row[p - 3]) if key == "add" else 0)
                    assert y - s in (0, 2, -1, 3)
        assert torch.all(batch["let_shift"][:, 1] >= V.letter_offset)


# ---------------------------------------------------------------- path patching


def test_metric_and_relative_effect_hand_cases():
    logits = torch.zeros(2, 3, V.size)
    logits[0, -1, 5], logits[0, -1, 6] = 2.0, 0.5
    logits[1, -1, 1] = -1.0
    f = logit_diff(torch.tensor([5, 1]), torch.tensor([6, 2]))(logits)
    assert torch.allclose(f, torch.tensor([1.5, -1.0]))
    assert float(relative_effect(2.0, -2.0, 2.0)) == pytest.approx(-1.0)
    assert float(relative_effect(0.0, -2.0, 2.0)) == pytest.approx(-0.5)


def test_last_layer_sender_path_patch_equals_activation_patch():
    model = _model()
    b, c, yb, yc = _pair()
    metric = logit_diff(yb, yc)
    for h in range(2):
        pp = path_patch(model, b, c, (2, h), [Site("resid_final", pos=-1)], metric)
        ap = activation_patch(model, b, c, [Site("z", 2, head=h)], metric)
        assert torch.allclose(pp, ap, atol=1e-5)


def test_all_heads_sender_equals_activation_patch_of_all_heads():
    model = _model()
    b, c, yb, yc = _pair()
    metric = logit_diff(yb, yc)
    senders = [(l, h) for l in range(3) for h in range(2)]
    pp = path_patch(model, b, c, senders, [Site("resid_final")], metric)
    ap = activation_patch(model, b, c, [Site("z", l) for l in range(3)], metric)
    assert torch.allclose(pp, ap, atol=1e-5)
    # the contrast prompt's token embeddings remain, so at a demo answer (where the tokens differ) this is not
    # the base run; at the final position the tokens coincide and MLPs are position-wise, so there it is
    ans = lambda lg: lg[:, 5]  # noqa: E731
    full_pp = path_patch(model, b, c, senders, [Site("resid_final")], ans)
    assert not torch.allclose(full_pp, model(b)[:, 5], atol=1e-3)
    assert torch.allclose(pp, metric(model(b)), atol=1e-5)


def test_identical_prompts_give_zero_effect():
    model = _model()
    _, c, yb, yc = _pair()
    metric = logit_diff(yb, yc)
    ref = metric(model(c))
    scan = path_patch_scan(model, c, c, [Site("resid_final", pos=-1)], metric)
    assert (scan - ref).abs().max() < 1e-5
    scan_v = path_patch_scan(model, c, c, [Site("v", 2, head=0)], metric)
    assert (scan_v[:2] - ref).abs().max() < 1e-5


def test_scan_equals_looped_lab_path_patch():
    """Fast form (z cached once) equals the slow reference (lab.patching.path_patch per head)."""
    model = _model()
    b, c, yb, yc = _pair()
    metric = logit_diff(yb, yc)
    for receivers in ([Site("resid_final", pos=-1)], [Site("v", 2, head=1), Site("v", 1, head=0)]):
        scan = path_patch_scan(model, b, c, receivers, metric)
        for l in range(3):
            for h in range(2):
                ref = lab_patching.path_patch(model, b, c, [(l, h)], receivers, metric)
                assert torch.allclose(scan[l, h], ref, atol=1e-5)
    sub = path_patch_scan(model, b, c, [Site("resid_final")], metric, senders=[(0, 1)])
    assert torch.isnan(sub[1, 0]).all() and torch.isfinite(sub[0, 1]).all()
    assert torch.isnan(path_patch_scan(model, b, c, [Site("resid_final")], metric, senders=[])).all()


def test_per_head_outputs_sum_to_attention_output():
    model = _model()
    b, *_ = _pair()
    for l in range(3):
        _, cache = model.run_with_cache(b, [Site("result", l), Site("attn_out", l)])
        total = cache[f"blocks.{l}.attn.hook_result"].sum(2) + model.blocks[l].attn.b_O
        assert torch.allclose(total, cache[f"blocks.{l}.hook_attn_out"], atol=1e-5)


def test_hand_built_circuit_routes_through_receiver_head():
    """A head with W_O = 0 has no path effect; a layer-0 head routed into a dead layer-1 head's value has none,
    routed to the final residual it has one."""
    model = _model(n_layers=2, ffn=None)
    with torch.no_grad():
        model.blocks[0].attn.W_O[1].zero_()
        model.blocks[1].attn.W_O[1].zero_()
    b, c, yb, yc = _pair()
    metric = logit_diff(yb, yc)
    ref = metric(model(c))
    scan = path_patch_scan(model, b, c, [Site("resid_final", pos=-1)], metric)
    assert torch.allclose(scan[0, 1], ref, atol=1e-6) and torch.allclose(scan[1, 1], ref, atol=1e-6)
    assert not torch.allclose(scan[0, 0], ref, atol=1e-4)
    via_dead = path_patch(model, b, c, (0, 0), [Site("v", 1, head=1)], metric)
    assert torch.allclose(via_dead, ref, atol=1e-6)


def test_bootstrap_relative_effect():
    g = torch.Generator().manual_seed(0)
    f_base, f_cont = 2 + torch.randn(40, generator=g), -2 + torch.randn(40, generator=g)
    patched = torch.stack([f_cont, f_base, 0.5 * (f_base + f_cont)])
    r, lo, hi = bootstrap_relative_effect(patched, f_cont, f_base, n_boot=200)
    assert torch.allclose(r, torch.tensor([0.0, -1.0, -0.5]), atol=1e-6)
    assert torch.all(lo <= r + 1e-6) and torch.all(r <= hi + 1e-6)
    ref = relative_effect(patched.mean(-1), f_cont.mean(), f_base.mean())
    assert torch.allclose(r.double(), ref, atol=1e-6)


# ---------------------------------------------------------------- ablation and read-outs


def test_ablate_heads_limits():
    model = _model()
    b, c, *_ = _pair()
    assert torch.allclose(ablate_heads(model, c, [(1, 0)], c), model(c), atol=1e-6)  # self-source: no-op
    assert torch.allclose(ablate_heads(model, c, [], b), model(c))
    every = [(l, h) for l in range(3) for h in range(2)]
    ap = model.run_with_hooks(
        c,
        replace={
            Site("z", l): model.run_with_cache(b, [Site("z", l)])[1][f"blocks.{l}.attn.hook_z"]
            for l in range(3)
        },
    )
    assert torch.allclose(ablate_heads(model, c, every, b), ap, atol=1e-5)
    same = c[:1].repeat(4, 1)  # mean over identical prompts = the prompt itself
    assert torch.allclose(ablate_heads(model, same, every, "mean"), model(same), atol=1e-5)
    # mean ablation equals an explicit per-position mean
    _, cache = model.run_with_cache(c, [Site("z", 1)])
    mean_z = cache["blocks.1.attn.hook_z"][:, :, 0].mean(0)
    ref = model.run_with_hooks(c, replace={Site("z", 1, head=0): mean_z})
    assert torch.allclose(ablate_heads(model, c, [(1, 0)], "mean"), ref, atol=1e-5)


def test_naive_logit_effect_matches_residual_addition():
    model = _model()
    _, c, *_ = _pair()
    naive = [naive_prompts(y, 3, 3, seed=y) for y in range(4)]
    heat = naive_logit_effect(model, (1, 1), c, naive, numbers=10)
    assert heat.shape == (4, 10)
    _, cache = model.run_with_cache(c, [Site("result", 1)])
    vec = cache["blocks.1.attn.hook_result"][:, -1, 1].mean(0)
    for y, t in enumerate(naive):
        _, rc = model.run_with_cache(t, [Site("resid_mid", 1)])
        mid = rc["blocks.1.hook_resid_mid"][:, -1] + vec
        ref = (
            model.run_with_hooks(t, replace={Site("resid_mid", 1, pos=-1): mid})[:, -1, :10]
            - model(t)[:, -1, :10]
        )
        assert torch.allclose(heat[y], ref.mean(0), atol=1e-5)
    with torch.no_grad():
        model.blocks[1].attn.W_O[1].zero_()
    assert naive_logit_effect(model, (1, 1), c, naive).abs().max() < 1e-6


def test_offset_profile_hand_case():
    heat = torch.zeros(10, 10)
    for y in range(9):
        heat[y, y + 1] = 2.0
    for y in range(10):
        heat[y, y] = -1.0
    prof = offset_profile(heat, (-1, 0, 1))
    assert torch.allclose(prof, torch.tensor([0.0, -1.0, 2.0], dtype=torch.float64))


def test_induction_scores_hand_built_pattern():
    model = _model(n_layers=2)
    toks = induction_prompts(3, 6, seed=0)
    half = 6

    def exact(act, _):
        out = torch.zeros_like(act)
        for q in range(act.shape[-2]):
            out[:, 0, q, q - half + 1 if q > half else 0] = 1.0
        return out

    with model.hooks({"blocks.1.attn.hook_pattern": exact}):
        s = induction_scores(model, toks)
    assert s.shape == (2, 2)
    assert float(s[1, 0]) == pytest.approx(1.0) and float(s[1, 1]) == pytest.approx(0.0)
    assert torch.all((s >= 0) & (s <= 1))


def test_random_heads():
    rng = np.random.default_rng(0)
    hs = random_heads(4, 8, 4, rng, exclude=[(0, 0), (1, 1)])
    assert len(set(hs)) == 4 and (0, 0) not in hs and (1, 1) not in hs


# ---------------------------------------------------------------- TransformerLens adapter


class _FakeTL:
    """A stand-in with TransformerLens's hook API (``hook_dict``, ``hooks(fwd_hooks=...)``, ``cfg``)."""

    def __init__(self, model):
        self.m = model
        self.hook_dict = dict(model.hook_points())
        self.hook_dict["ln_final.hook_normalized"] = model.hook_points()["hook_resid_final"]
        del self.hook_dict["hook_resid_final"]
        self.cfg = type("Cfg", (), {"n_heads": model.n_heads, "n_layers": model.n_layers})()

    @contextlib.contextmanager
    def hooks(self, fwd_hooks=()):
        handles = [
            self.hook_dict[n].register_forward_hook(lambda mod, a, out, fn=fn: fn(out, mod))
            for n, fn in fwd_hooks
        ]
        try:
            yield
        finally:
            for h in handles:
                h.remove()

    def __call__(self, tokens):
        return self.m(tokens)


def test_transformer_lens_adapter_matches_native_model():
    model = _model()
    ad = TransformerLensAdapter(_FakeTL(model))
    b, c, yb, yc = _pair()
    metric = logit_diff(yb, yc)
    recv = [Site("resid_final", pos=-1)]
    assert torch.allclose(path_patch_scan(ad, b, c, recv, metric), path_patch_scan(model, b, c, recv, metric))
    assert torch.allclose(
        path_patch(ad, b, c, (1, 0), [Site("v", 2, head=1)], metric),
        path_patch(model, b, c, (1, 0), [Site("v", 2, head=1)], metric),
    )
    assert torch.allclose(ablate_heads(ad, c, [(0, 1)], b), ablate_heads(model, c, [(0, 1)], b))
    with pytest.raises(TypeError, match="HookedTransformer"):
        TransformerLensAdapter(model)


# ---------------------------------------------------------------- model


def test_train_model_is_deterministic_and_accuracy_hand_case():
    cfg = FIModelConfig(d_model=16, n_layers=1, n_heads=2, shots=2, steps=3, batch=4)
    a = train_model(cfg, 0, cache=False)
    b_ = train_model(cfg, 0, cache=False)
    for (k, v), (_, w) in zip(a.state_dict().items(), b_.state_dict().items()):
        assert torch.equal(v, w), k
    assert build_model(cfg).seq_len >= contrast_pairs(1, 2)[0].shape[1]
    tokens = contrast_pairs(8, 2, seed=0)[0]
    pred = a(tokens)[:, -1].argmax(-1)
    assert accuracy(a, tokens, pred) == 1.0
    assert accuracy(a, tokens, (pred + 1) % V.size) == 0.0


# ---------------------------------------------------------------- claim rules


def _rows(**kw):
    return [{k: (v[i] if isinstance(v, list) else v) for k, v in kw.items()} for i in range(3)]


def test_ablation_decider_outcomes():
    d = ablation_decider()
    win = _rows(drop_off_fi=[0.8, 0.82, 0.79], drop_std_fi=[0.02, 0.0, 0.03], drop_off_random=0.05)
    assert d(win).outcome == Outcome.SUPPORTED
    none = _rows(drop_off_fi=[0.02, 0.05, 0.0], drop_std_fi=0.0, drop_off_random=0.0)
    assert d(none).outcome == Outcome.NOT_SUPPORTED
    unspecific = _rows(drop_off_fi=[0.8, 0.82, 0.79], drop_std_fi=[0.5, 0.4, 0.6], drop_off_random=0.05)
    assert d(unspecific).outcome == Outcome.INCONCLUSIVE


def test_pieces_decider_outcomes():
    d = pieces_decider()
    assert d(_rows(n_sig_fi=3.0, min_profile_corr=[-0.4, -0.3, -0.5])).outcome == Outcome.SUPPORTED
    assert d(_rows(n_sig_fi=1.0, min_profile_corr=1.0)).outcome == Outcome.NOT_SUPPORTED
    assert d(_rows(n_sig_fi=3.0, min_profile_corr=[0.9, 0.95, 0.92])).outcome == Outcome.NOT_SUPPORTED
    assert (
        d(_rows(n_sig_fi=[2.0, 1.0, 2.0], min_profile_corr=[-0.4, 1.0, -0.5])).outcome == Outcome.INCONCLUSIVE
    )


def test_transfer_decider_outcomes():
    d = transfer_decider()
    good = dict(gap_base8=[0.4, 0.45, 0.5], gap_base8_lo=0.2, acc_base8=0.9)
    bad = dict(gap_shift=[0.0, 0.01, -0.01], gap_shift_lo=-0.05, acc_shift=0.9)
    assert d(_rows(**good, **bad)).outcome == Outcome.SUPPORTED
    assert d(_rows(**{**good, "gap_base8": [0.0, 0.02, 0.01], "gap_base8_lo": -0.02}, **bad)).outcome == (
        Outcome.NOT_SUPPORTED
    )
    untestable = dict(
        gap_base8=0.0, gap_base8_lo=0.0, acc_base8=0.05, gap_shift=0.0, gap_shift_lo=0.0, acc_shift=0.0
    )
    assert d(_rows(**untestable)).outcome == Outcome.INCONCLUSIVE
