"""Tests of iclr26.lab.patching on small transformers and a hand-built circuit with known answers."""

import pytest
import torch

from iclr26.lab.patching import activation_patch, check_pair, head_attribution, path_patch, relative_effect
from iclr26.lab.transformer import Site, Transformer


def _model(**kw):
    torch.manual_seed(0)
    args = dict(vocab_size=12, seq_len=8, d_model=16, n_layers=3, n_heads=2, init_seed=0)
    args.update(kw)
    return Transformer(**args).eval()


def _pair():
    g = torch.Generator().manual_seed(1)
    return torch.randint(0, 12, (4, 8), generator=g), torch.randint(0, 12, (4, 8), generator=g)


def _last_logits(logits):
    return logits[:, -1]


def test_last_layer_sender_to_final_residual_equals_activation_patching():
    model = _model()
    clean, corrupt = _pair()
    for h in range(2):
        pp = path_patch(model, clean, corrupt, [(2, h)], [Site("resid_final")], _last_logits)
        ap = activation_patch(model, clean, corrupt, [Site("z", 2, head=h)], _last_logits)
        assert torch.allclose(pp, ap, atol=1e-5)


def test_all_heads_as_senders_equals_patching_all_head_outputs():
    model = _model()
    clean, corrupt = _pair()
    senders = [(l, h) for l in range(3) for h in range(2)]
    pp = path_patch(model, clean, corrupt, senders, [Site("resid_final")], _last_logits)
    ap = activation_patch(model, clean, corrupt, [Site("z", l) for l in range(3)], _last_logits)
    assert torch.allclose(pp, ap, atol=1e-5)
    # embeddings still come from corrupt, so this is not the clean run
    assert not torch.allclose(pp, model(clean)[:, -1], atol=1e-3)


def test_identical_inputs_give_zero_effect():
    model = _model()
    clean, _ = _pair()
    base = model(clean)[:, -1]
    attr = head_attribution(
        model, clean, clean, [Site("resid_final")], lambda lg: (lg[:, -1] - base).abs().max()
    )
    assert attr.abs().max() < 1e-5


def test_hand_built_circuit_exact_answers():
    """Layer-0 head 1 has W_O = 0: it carries nothing, so its path effect is exactly zero.  Head (0, 0)
    reaches the logits only through layer 1; routing it to the value input of a layer-1 head with W_O = 0
    also has exactly zero effect, while routing it to resid_final directly does not."""
    model = _model(n_layers=2, ffn=None)
    with torch.no_grad():
        model.blocks[0].attn.W_O[1].zero_()
        model.blocks[1].attn.W_O[1].zero_()
    clean, corrupt = _pair()
    ref = model(corrupt)[:, -1]
    dead = path_patch(model, clean, corrupt, [(0, 1)], [Site("resid_final")], _last_logits)
    assert torch.allclose(dead, ref, atol=1e-6)
    via_dead = path_patch(model, clean, corrupt, [(0, 0)], [Site("v", 1, head=1)], _last_logits)
    assert torch.allclose(via_dead, ref, atol=1e-6)
    live = path_patch(model, clean, corrupt, [(0, 0)], [Site("resid_final")], _last_logits)
    assert not torch.allclose(live, ref, atol=1e-4)


def test_per_head_results_sum_to_attention_output():
    model = _model()
    clean, _ = _pair()
    _, cache = model.run_with_cache(clean, [Site("result", 1), Site("attn_out", 1)])
    total = cache["blocks.1.attn.hook_result"].sum(2) + model.blocks[1].attn.b_O
    assert torch.allclose(total, cache["blocks.1.hook_attn_out"], atol=1e-5)


def test_relative_effect():
    # patched all the way to the clean value: -100%; half way: -50%; unchanged: 0
    assert float(relative_effect(2.0, 0.0, 2.0)) == pytest.approx(-1.0)
    assert float(relative_effect(1.0, 0.0, 2.0)) == pytest.approx(-0.5)
    assert float(relative_effect(0.0, 0.0, 2.0)) == pytest.approx(0.0)
    with pytest.raises(ValueError, match="equal"):
        relative_effect(1.0, 1.0, 1.0)


def test_bad_inputs():
    model = _model()
    clean, corrupt = _pair()
    with pytest.raises(ValueError, match="clean length 8 and corrupt length 7"):
        check_pair(clean, corrupt[:, :7])
    with pytest.raises(ValueError, match="head must be"):
        path_patch(model, clean, corrupt, [(5, 0)], [Site("resid_final")], _last_logits)
    with pytest.raises(ValueError, match="hook_z"):
        path_patch(model, clean, corrupt, [(0, 0)], [Site("z", 1)], _last_logits)
