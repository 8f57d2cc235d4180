"""Tests of ASIDE (arXiv 2503.10566): rotation, role embeddings, the HF wrapper, the language, SEP, the claim rule."""

import math

import numpy as np
import pytest
import torch
from torch import nn

from iclr26.architectures.aside import (
    ASIDEEmbedding,
    ISEEmbedding,
    IsoclinicRotation,
    Language,
    SepItem,
    VanillaEmbedding,
    aside_separates,
    generate_responses,
    isoclinic_rotation_matrix,
    sep_score,
    split_roles,
    wrap_hf_causal_lm,
)
from iclr26.harness.claims import Outcome
from iclr26.lab.tinylm import TinyLMConfig, build_model


def _lm(arch: str, seed: int = 0, vocab: int = 60):
    return build_model(
        TinyLMConfig(arch=arch, d_model=32, n_layers=2, n_heads=2, seed=seed), vocab_size=vocab
    )


def _reference_rotation(x: torch.Tensor, alpha: float, direction: str) -> torch.Tensor:
    """Pairwise forms written from the official code's description (not its text).

    "right" (the forward pass, ``embeds @ M`` with M's blocks [[cos, -sin], [sin, cos]]):
    even' = even cos + odd sin, odd' = -even sin + odd cos. "left" (the official pairwise helper that rotates an
    embedding table, which computes M x): even' = even cos - odd sin, odd' = even sin + odd cos.
    """
    even, odd = x[..., 0::2], x[..., 1::2]
    s = math.sin(alpha) if direction == "right" else -math.sin(alpha)
    out = x.clone()
    out[..., 0::2] = even * math.cos(alpha) + odd * s
    out[..., 1::2] = -even * s + odd * math.cos(alpha)
    return out


@pytest.mark.parametrize("d", [2, 8, 64])
def test_rotation_orthogonal_and_order_four(d):
    r = isoclinic_rotation_matrix(d).double()
    assert torch.allclose(r @ r.T, torch.eye(d, dtype=torch.float64), atol=1e-6)
    assert torch.allclose(torch.linalg.matrix_power(r, 4), torch.eye(d, dtype=torch.float64), atol=1e-6)
    assert torch.allclose(torch.linalg.matrix_power(r, 2), -torch.eye(d, dtype=torch.float64), atol=1e-6)


@pytest.mark.parametrize("alpha", [math.pi / 2, 0.3, -1.1])
def test_rotation_matches_official_pairwise_form(alpha):
    x = torch.randn(5, 16, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    m = isoclinic_rotation_matrix(16, alpha, dtype=torch.float64)
    assert torch.allclose(x @ m, _reference_rotation(x, alpha, "right"), atol=1e-12)
    assert torch.allclose(x @ m.T, _reference_rotation(x, alpha, "left"), atol=1e-12)
    for direction in ("right", "left"):
        got = IsoclinicRotation(16, alpha, direction).rotate(x.float()).double()
        assert torch.allclose(got, _reference_rotation(x, alpha, direction), atol=1e-5)
    # pi/2, right: (x_2k, x_2k+1) -> (x_2k+1, -x_2k); left is the inverse
    rot = IsoclinicRotation(4)
    v = torch.tensor([1.0, 2.0, 3.0, 4.0])
    assert rot.rotate(v).tolist() == [2.0, -1.0, 4.0, -3.0]
    assert IsoclinicRotation(4, direction="left").rotate(v).tolist() == [-2.0, 1.0, -4.0, 3.0]


def test_rotation_preserves_geometry_and_self_orthogonality():
    e = nn.Embedding(30, 16)
    rot = IsoclinicRotation(16)
    w = e.weight.detach()
    wr = rot.rotate(w)
    assert torch.allclose(wr @ wr.T, w @ w.T, atol=1e-5)  # norms and inner products among data tokens
    assert torch.allclose((w * wr).sum(-1), torch.zeros(30), atol=1e-6)  # <E[t], E[t] R> = 0


def test_rotation_bf16_and_odd_dim_non_strict():
    x = torch.randn(2, 3, 6).bfloat16()
    out = IsoclinicRotation(6).apply(x, torch.ones(2, 3, dtype=torch.long))
    assert out.dtype == torch.bfloat16
    r = isoclinic_rotation_matrix(5, strict=False)
    assert r[4, 4] == 1.0 and torch.allclose(r @ r.T, torch.eye(5), atol=1e-6)


def test_embeddings_roles_and_parameters():
    e = nn.Embedding(20, 8)
    ids = torch.randint(0, 20, (3, 7))
    seg = torch.randint(0, 2, (3, 7))
    a = ASIDEEmbedding(e)(ids, seg)
    inst = seg == 0
    assert torch.equal(a[inst], e(ids)[inst])  # instruction-token embeddings unchanged
    assert torch.allclose(a[~inst], e(ids)[~inst] @ isoclinic_rotation_matrix(8), atol=1e-7)
    assert torch.equal(
        ASIDEEmbedding(e, alpha=0.0)(ids, seg), VanillaEmbedding(e)(ids, seg)
    )  # alpha=0: Vanilla
    assert sum(p.numel() for p in ASIDEEmbedding(e).parameters()) == e.weight.numel()
    ise = ISEEmbedding(e)
    assert sum(p.numel() for p in ise.parameters()) == e.weight.numel() + 16
    assert torch.allclose(ise(ids, seg), e(ids) + ise.segment[seg])


def test_gradient_flow_through_rotation():
    e = nn.Embedding(10, 4)
    ids, seg = torch.tensor([[1, 2]]), torch.tensor([[1, 1]])
    out = ASIDEEmbedding(e)(ids, seg)
    g = torch.randn_like(out)
    (out * g).sum().backward()
    r = isoclinic_rotation_matrix(4)
    assert torch.allclose(e.weight.grad[1], g[0, 0] @ r.T, atol=1e-6)  # d(eR)/de = R^T
    assert torch.allclose(e.weight.grad[2], g[0, 1] @ r.T, atol=1e-6)


@pytest.mark.parametrize("arch", ["llama", "gpt2"])
def test_wrapped_all_instruction_equals_unwrapped(arch):
    ids = torch.randint(5, 60, (2, 9), generator=torch.Generator().manual_seed(1))
    ref = _lm(arch)(input_ids=ids).logits
    base = _lm(arch)
    n_params = sum(p.numel() for p in base.parameters())
    wrapped = wrap_hf_causal_lm(base, "aside")
    assert sum(p.numel() for p in wrapped.parameters()) == n_params  # no new parameters
    assert torch.equal(wrapped(input_ids=ids, segment_ids=torch.zeros_like(ids)).logits, ref)
    zero = wrap_hf_causal_lm(_lm(arch), "aside", alpha=0.0)
    assert torch.equal(
        zero(input_ids=ids, segment_ids=torch.ones_like(ids)).logits, ref
    )  # alpha = 0: Vanilla
    rotated = wrapped(input_ids=ids, segment_ids=torch.ones_like(ids)).logits
    assert not torch.allclose(rotated, ref)


@pytest.mark.parametrize("arch", ["llama", "gpt2"])
def test_generation_extends_roles_with_data(arch):
    model = wrap_hf_causal_lm(_lm(arch, seed=3), "aside")
    ids = torch.randint(5, 60, (2, 6), generator=torch.Generator().manual_seed(2))
    seg = torch.tensor([[0, 0, 1, 1, 1, 1]] * 2)
    got = model.generate(ids, seg, max_new_tokens=4)
    seq, roles = ids, seg
    with torch.no_grad():  # no cache: the full forward with the generated tokens in the data role
        for _ in range(4):
            nxt = model(input_ids=seq, segment_ids=roles).logits[:, -1].argmax(-1, keepdim=True)
            seq, roles = torch.cat([seq, nxt], 1), torch.cat([roles, torch.ones_like(nxt)], 1)
    assert torch.equal(got, seq)


def test_wrapper_gradients_reach_embedding_and_ise_table():
    model = wrap_hf_causal_lm(_lm("llama"), "ise")
    ids = torch.randint(5, 60, (2, 5))
    out = model(input_ids=ids, segment_ids=torch.tensor([[0, 0, 1, 1, 1]] * 2), labels=ids)
    out.loss.backward()
    assert model.role_embedding.segment.grad.abs().sum() > 0
    assert model.get_input_embeddings().weight.grad.abs().sum() > 0


def test_language_semantics_and_roles():
    lang = Language(n_words=30)
    c, w = lang.cmd, lang.word0
    data = (w, w + 2, w + 1)
    assert lang.execute((c["LAST"],), data) == (w + 1,)
    assert lang.execute((c["FIRST"],), (c["LAST"], *data)) == (c["LAST"],)  # an inert command word is data
    assert lang.execute((c["COUNT"], w + 2), data) == (lang.digit0 + 1,)
    assert lang.execute((c["SAY"], w + 5), data) == (w + 5,)
    # stage-1 semantics: every probe is executed, data probes first (left to right), then instruction probes
    assert lang.execute((c["FIRST"], c["SAY"], w + 9), (c["SAY"], w + 8, *data)) == (w, w + 8, w + 9)
    ids, roles, mask = lang.encode((c["FIRST"],), data, (w,))
    assert roles == [0, 0] + [1] * 7 and sum(mask) == 2
    rng = np.random.default_rng(0)
    for _ in range(200):  # SFT data never carries an executable probe
        item = lang.sample_item(rng)
        assert c["SAY"] not in item.data and item.witness not in item.data + item.instruction
        assert item.witness >= lang.witness0
    assert split_roles("sys\nInput:\nxyz") == ("sys\n", "Input:\nxyz")
    assert split_roles("no marker") == ("no marker", "")


def test_sep_score_limits():
    items = [SepItem((1,), (2, 3), (9, 7), 7)] * 3
    obey = lambda pairs: [i + d for i, d in pairs]  # noqa: E731  echoes everything: executes everywhere
    ignore_data = lambda pairs: list(i for i, _ in pairs)  # noqa: E731  only the instruction
    assert sep_score(obey, items).separation == 0.0
    res = sep_score(ignore_data, items)
    assert res.separation == 1.0 and res.utility == 1.0
    assert math.isnan(sep_score(lambda p: [()] * len(p), items).separation)


def test_generate_responses_batches_by_length():
    lang = Language(n_words=20)
    model = wrap_hf_causal_lm(_lm("llama", vocab=lang.vocab_size), "aside")
    rng = np.random.default_rng(1)
    items = [lang.sample_item(rng) for _ in range(6)]
    pairs = [(i.instruction, i.data) for i in items]
    batched = generate_responses(model, lang, pairs, max_new=3)
    single = [generate_responses(model, lang, [p], max_new=3)[0] for p in pairs]
    assert batched == single


def _rows(gain, drop, n=5):
    return [
        {"sep_aside": 0.5 + gain + 0.01 * i, "sep_vanilla": 0.5, "acc_aside": 0.8 - drop, "acc_vanilla": 0.8}
        for i in range(n)
    ]


def test_claim_rule_three_ways():
    assert aside_separates(_rows(0.2, 0.0)).outcome is Outcome.SUPPORTED
    assert aside_separates(_rows(0.2, 0.1)).outcome is Outcome.NOT_SUPPORTED  # utility lost
    assert aside_separates(_rows(0.05, 0.0)).outcome is Outcome.INCONCLUSIVE  # real but small gain
    assert aside_separates(_rows(0.2, 0.03)).outcome is Outcome.INCONCLUSIVE
    noisy = [{**r, "sep_aside": 0.5 + (0.3 if i % 2 else -0.3)} for i, r in enumerate(_rows(0, 0, 4))]
    assert aside_separates(noisy).outcome is Outcome.NOT_SUPPORTED  # interval includes 0
