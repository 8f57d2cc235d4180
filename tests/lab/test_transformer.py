"""The shared hookable transformer: shapes, masking, hook points, activation patching, configurations."""

import pytest
import torch
from torch import nn

from iclr26.lab.transformer import (
    AttnOnlyTransformer,
    BlockSpec,
    NoPositions,
    RelativePositionBias,
    Site,
    Transformer,
)

VOCAB, SEQ, D = 13, 7, 16


def tokens(batch=3, seed=0, seq=SEQ):
    return torch.randint(0, VOCAB, (batch, seq), generator=torch.Generator().manual_seed(seed))


def model(**kwargs):
    args = dict(vocab_size=VOCAB, seq_len=SEQ, d_model=D, n_layers=2, n_heads=4, init_seed=0)
    args.update(kwargs)
    return Transformer(**args).double()


def test_shapes_and_seeded_init():
    m = model()
    assert m(tokens().long()).shape == (3, SEQ, VOCAB)
    same = model()
    assert all(torch.equal(a, b) for a, b in zip(m.parameters(), same.parameters()))
    other = model(init_seed=1)
    assert not torch.equal(m.W_E, other.W_E)


def test_causal_model_ignores_the_future_and_bidirectional_does_not():
    x = tokens()
    y = x.clone()
    y[:, -1] = (y[:, -1] + 1) % VOCAB
    causal, bidir = model(causal=True), model(causal=False)
    assert torch.allclose(causal(x)[:, :-1], causal(y)[:, :-1])
    assert not torch.allclose(bidir(x)[:, :-1], bidir(y)[:, :-1])


def test_no_positions_bidirectional_is_permutation_equivariant():
    m = model(causal=False, positions="none")
    x = tokens()
    perm = torch.tensor([3, 0, 6, 1, 5, 2, 4])
    assert torch.allclose(m(x)[:, perm], m(x[:, perm]), atol=1e-10)


def test_relative_position_bias_enters_the_scores():
    m = model(positions="relative")
    assert isinstance(m.positions, RelativePositionBias)
    x = tokens()
    _, before = m.run_with_cache(x, names=[Site("scores", 0)])
    with torch.no_grad():
        m.positions.bias[:, m.positions.max_distance + 1] += 2.0  # distance i - j = 1
    _, after = m.run_with_cache(x, names=[Site("scores", 0)])
    diff = after["blocks.0.attn.hook_scores"] - before["blocks.0.attn.hook_scores"]
    assert torch.allclose(diff[:, :, 1, 0], torch.full_like(diff[:, :, 1, 0], 2.0))
    assert torch.allclose(diff[:, :, 2, 0], torch.zeros_like(diff[:, :, 2, 0]))


def test_hooks_scores_pattern_and_qk_agree():
    m = model()
    x = tokens()
    names = [Site(k, 1) for k in ("q", "k", "scores", "pattern")]
    _, cache = m.run_with_cache(x, names=names)
    q, k = cache["blocks.1.attn.hook_q"], cache["blocks.1.attn.hook_k"]
    scores = torch.einsum("bqhe,bkhe->bhqk", q, k) / m.d_head**0.5
    scores = scores.masked_fill(torch.ones(SEQ, SEQ, dtype=torch.bool).triu(1), float("-inf"))
    assert torch.allclose(scores, cache["blocks.1.attn.hook_scores"], atol=1e-10)
    pattern = cache["blocks.1.attn.hook_pattern"]
    assert torch.allclose(pattern.sum(-1), torch.ones_like(pattern.sum(-1)))
    assert torch.allclose(torch.softmax(cache["blocks.1.attn.hook_scores"], -1), pattern)


def test_per_head_results_sum_to_attention_output():
    m = model()
    x = tokens()
    logits, cache = m.run_with_cache(x, names=[Site("result", 0), Site("attn_out", 0)])
    total = cache["blocks.0.attn.hook_result"].sum(dim=2) + m.blocks[0].attn.b_O
    assert torch.allclose(total, cache["blocks.0.hook_attn_out"], atol=1e-10)
    assert torch.allclose(logits, m(x), atol=1e-10)  # hooking `result` does not change the output


def test_patching_with_the_cached_value_is_the_identity():
    m = model()
    x = tokens()
    logits, cache = m.run_with_cache(x, names=[Site("z", 0)])
    patched = m.run_with_hooks(
        x, replace={Site("z", 0, pos=2, head=1): cache["blocks.0.attn.hook_z"][:, 2, 1]}
    )
    assert torch.allclose(patched, logits)


def test_patching_the_residual_changes_only_later_positions():
    m = model()
    x = tokens()
    clean = m(x)
    patched = m.run_with_hooks(
        x, replace={(0, 3): torch.zeros(D, dtype=torch.float64)}
    )  # (layer, pos) shorthand
    assert torch.equal(patched[:, :3], clean[:, :3])
    assert not torch.allclose(patched[:, 3:], clean[:, 3:])


def test_patching_the_last_residual_from_another_run_transplants_its_logits():
    m = model()
    clean, corrupt = tokens(seed=0), tokens(seed=1)
    clean_logits, cache = m.run_with_cache(clean, names=[Site("resid_post", 1)])
    patched = m.run_with_hooks(corrupt, replace={Site("resid_post", 1): cache["blocks.1.hook_resid_post"]})
    assert torch.allclose(patched, clean_logits, atol=1e-10)


def test_custom_hooks_and_bad_sites():
    m = model()
    seen = {}

    def record(act, hook_point):
        seen["x"] = act.shape  # returns None: the activation is only read

    m.run_with_hooks(tokens(), hooks={"blocks.0.hook_attn_in": record})
    assert seen["x"] == (3, SEQ, D)
    assert "blocks.0.attn.hook_pattern" in m.hook_names() and "hook_resid_final" in m.hook_names()
    with pytest.raises(ValueError, match="unknown hook point"):
        m.run_with_cache(tokens(), names=["blocks.9.hook_resid_pre"])
    with pytest.raises(ValueError, match="layer"):
        m.run_with_cache(tokens(), names=[Site("q")])
    with pytest.raises(ValueError, match="does not broadcast"):
        m.run_with_hooks(tokens(), replace={Site("resid_pre", 0, pos=1): torch.zeros(D + 1)})


def test_attention_only_model_is_in_the_esp_class():
    m = AttnOnlyTransformer(n_layers=1, n_heads=2, d_model=D, vocab_size=VOCAB, seq_len=SEQ, init_seed=0)
    assert m.blocks[0].mlp is None and m.blocks[0].ln2 is None
    assert m.ln_final.bias is None and m.b_U is None and m.W_U is None
    assert "blocks.0.hook_mlp_out" not in m.hook_names()
    x = tokens().long()
    # tied unembedding: logits = LN_f(resid) E^T
    logits, cache = m.run_with_cache(x, names=[Site("resid_final")])
    assert torch.allclose(logits, cache["hook_resid_final"] @ m.W_E.T, atol=1e-6)
    untied = AttnOnlyTransformer(1, 2, D, VOCAB, SEQ, tie=False, init_seed=0)
    assert untied.W_U.shape == (D, VOCAB)
    with pytest.raises(ValueError, match="ffn"):
        AttnOnlyTransformer(1, 2, D, VOCAB, SEQ, ffn=None)


def test_pluggable_mixer_and_ffn_factories():
    class MeanMixer(nn.Module):
        def __init__(self, spec: BlockSpec):
            super().__init__()
            self.proj = nn.Linear(spec.d_model, spec.d_model)

        def forward(self, x, score_bias=None):
            return self.proj(x.cumsum(1) / torch.arange(1, x.shape[1] + 1).view(1, -1, 1))

    built = []

    def ffn(spec):
        built.append(spec.layer)
        return nn.Sequential(
            nn.Linear(spec.d_model, spec.d_mlp), nn.ReLU(), nn.Linear(spec.d_mlp, spec.d_model)
        )

    m = Transformer(
        VOCAB, SEQ, D, n_layers=2, n_heads=2, d_mlp=8, mixer=MeanMixer, ffn=ffn, positions=NoPositions()
    )
    assert built == [0, 1] and isinstance(m.blocks[1].attn, MeanMixer)
    _, cache = m.run_with_cache(tokens().long(), names=[Site("mlp_out", 1)])
    assert cache["blocks.1.hook_mlp_out"].shape == (3, SEQ, D)


def test_forward_embeds_equals_forward():
    m = model()
    x = tokens()
    assert torch.allclose(m.forward_embeds(m.embed(x)), m(x))


@pytest.mark.parametrize(
    ("kwargs", "word"),
    [
        ({"n_heads": 0}, "n_heads"),
        ({"d_model": 0}, "d_model"),
        ({"positions": "rotary"}, "positions"),
        ({"final_norm": "rms"}, "final_norm"),
        ({"d_head": 0}, "d_head"),
    ],
)
def test_bad_constructor_arguments(kwargs, word):
    with pytest.raises(ValueError, match=word):
        model(**kwargs)


def test_bad_token_inputs():
    m = model()
    with pytest.raises(ValueError, match="vocab_size"):
        m(torch.full((2, 3), VOCAB))
    with pytest.raises(ValueError, match="seq_len"):
        m(tokens(seq=SEQ + 1))
    with pytest.raises(ValueError, match="batch, seq"):
        m(torch.zeros(SEQ, dtype=torch.long))
