"""The rank-generalized linear-attention core: chunk form == step oracle, special cases == their own equations."""

import itertools

import pytest
import torch

from iclr26.lab.linear_attention import (
    delta_product_terms,
    delta_rule_terms,
    gla_terms,
    rank_generalized_chunk,
    rank_generalized_recurrence,
)

D = torch.float64


def random_inputs(r_ab, r_kv, t=13, b=2, h=2, dk=4, dv=3, seed=0):
    gen = torch.Generator().manual_seed(seed)

    def rnd(*shape, s=1.0):
        return torch.randn(*shape, generator=gen, dtype=D) * s

    return {
        "q": rnd(b, t, h, dk),
        "k": rnd(b, t * r_kv, h, dk),
        "v": rnd(b, t * r_kv, h, dv),
        "a": rnd(b, t * r_ab, h, dk, s=0.3),
        "b": rnd(b, t * r_ab, h, dk, s=0.3),
        "log_f": -torch.rand(b, t, h, dk, generator=gen, dtype=D) * 2,
        "initial_state": rnd(b, h, dk, dv),
    }


def rel(x, y):
    return float((x - y).abs().max() / y.abs().max().clamp_min(1e-30))


@pytest.mark.parametrize(("r_ab", "r_kv", "chunk"), list(itertools.product([0, 1, 2, 3], [1, 2], [1, 4, 16])))
def test_chunk_equals_recurrence(r_ab, r_kv, chunk):
    x = random_inputs(r_ab, r_kv, t=13)  # 13 is not a multiple of 4 or 16
    o1, s1 = rank_generalized_recurrence(**x, r_ab=r_ab, r_kv=r_kv, scale=0.8)
    o2, s2 = rank_generalized_chunk(**x, r_ab=r_ab, r_kv=r_kv, scale=0.8, chunk_size=chunk)
    assert rel(o2, o1) < 1e-10 and rel(s2, s1) < 1e-10


def test_tiny_decays_do_not_overflow():
    x = random_inputs(2, 1, t=20)
    x["log_f"] = x["log_f"] * 200  # f down to e^-400 per step
    o1, _ = rank_generalized_recurrence(**x, r_ab=2, r_kv=1)
    o2, _ = rank_generalized_chunk(**x, r_ab=2, r_kv=1, chunk_size=16)
    assert torch.isfinite(o2).all() and rel(o2, o1) < 1e-10


def explicit(q, steps, s0):
    """o_t = S_t^T q_t with S_t = P_t S_{t-1} + W_t given materialized (P_t, W_t) per (batch, head)."""
    s, outs = s0, []
    for t, (p, w) in enumerate(steps):
        s = p @ s + w
        outs.append(torch.einsum("bhk,bhkv->bhv", q[:, t], s))
    return torch.stack(outs, 1), s


def test_gla_is_the_diagonal_recurrence():
    x = random_inputs(0, 1)
    terms = gla_terms(x["k"], x["v"], x["log_f"])
    o, s = rank_generalized_chunk(x["q"], **terms, initial_state=x["initial_state"], chunk_size=4)
    steps = [
        (torch.diag_embed(x["log_f"][:, t].exp()), x["k"][:, t, :, :, None] * x["v"][:, t, :, None, :])
        for t in range(13)
    ]
    o_ref, s_ref = explicit(x["q"], steps, x["initial_state"])
    assert rel(o, o_ref) < 1e-12 and rel(s, s_ref) < 1e-12


def test_gated_delta_rule_matches_materialized_transition():
    x = random_inputs(1, 1)
    kh = torch.nn.functional.normalize(x["k"], dim=-1)
    beta = torch.rand(2, 13, 2, dtype=D) * 2
    log_alpha = -torch.rand(2, 13, 2, dtype=D)
    terms = delta_rule_terms(kh, x["v"], beta, log_alpha)
    o, s = rank_generalized_chunk(x["q"], **terms, initial_state=x["initial_state"], chunk_size=4)
    eye = torch.eye(4, dtype=D)
    steps = []
    for t in range(13):
        kk = kh[:, t, :, :, None] * kh[:, t, :, None, :]
        p = log_alpha[:, t, :, None, None].exp() * (eye - beta[:, t, :, None, None] * kk)
        steps.append((p, beta[:, t, :, None, None] * kh[:, t, :, :, None] * x["v"][:, t, :, None, :]))
    o_ref, s_ref = explicit(x["q"], steps, x["initial_state"])
    assert rel(o, o_ref) < 1e-12 and rel(s, s_ref) < 1e-12


def test_delta_product_is_two_householder_steps():
    x = random_inputs(2, 2)
    k1, k2 = (torch.nn.functional.normalize(torch.randn(2, 13, 2, 4, dtype=D), dim=-1) for _ in range(2))
    v1, v2 = torch.randn(2, 13, 2, 3, dtype=D), torch.randn(2, 13, 2, 3, dtype=D)
    b1, b2 = torch.rand(2, 13, 2, dtype=D) * 2, torch.rand(2, 13, 2, dtype=D) * 2
    log_alpha = -torch.rand(2, 13, 2, dtype=D)
    terms = delta_product_terms(k1, k2, v1, v2, b1, b2, log_alpha)
    o, s = rank_generalized_chunk(x["q"], **terms, initial_state=x["initial_state"], chunk_size=4)
    state, outs = x["initial_state"], []
    eye = torch.eye(4, dtype=D)
    for t in range(13):

        def house(kk, bb, t=t):
            return eye - bb[:, t, :, None, None] * kk[:, t, :, :, None] * kk[:, t, :, None, :]

        state = log_alpha[:, t, :, None, None].exp() * state
        state = house(k1, b1) @ state + b1[:, t, :, None, None] * k1[:, t, :, :, None] * v1[:, t, :, None, :]
        state = house(k2, b2) @ state + b2[:, t, :, None, None] * k2[:, t, :, :, None] * v2[:, t, :, None, :]
        outs.append(torch.einsum("bhk,bhkv->bhv", x["q"][:, t], state))
    assert rel(o, torch.stack(outs, 1)) < 1e-12 and rel(s, state) < 1e-12


def test_split_sequence_carrying_the_state_equals_one_pass():
    x = random_inputs(2, 1, t=20)
    full, s_full = rank_generalized_chunk(**x, r_ab=2, r_kv=1, chunk_size=4)

    def part(sl_t, sl_ab):
        return {
            "q": x["q"][:, sl_t],
            "k": x["k"][:, sl_t],
            "v": x["v"][:, sl_t],
            "a": x["a"][:, sl_ab],
            "b": x["b"][:, sl_ab],
            "log_f": x["log_f"][:, sl_t],
        }

    o1, s1 = rank_generalized_chunk(
        **part(slice(0, 7), slice(0, 14)), r_ab=2, r_kv=1, initial_state=x["initial_state"], chunk_size=4
    )
    o2, s2 = rank_generalized_chunk(**part(slice(7, 20), slice(14, 40)), r_ab=2, r_kv=1, initial_state=s1)
    assert rel(torch.cat([o1, o2], 1), full) < 1e-12 and rel(s2, s_full) < 1e-12


def test_gradcheck_chunk_form():
    x = random_inputs(2, 1, t=8, b=1, h=1, dk=4, dv=4)
    names = ["q", "k", "v", "a", "b", "log_f"]
    args = tuple(x[n].clone().requires_grad_(True) for n in names)

    def fn(*ts):
        return rank_generalized_chunk(*ts, r_ab=2, r_kv=1, chunk_size=4, initial_state=x["initial_state"])

    assert torch.autograd.gradcheck(fn, args)


def test_half_precision_is_upcast_with_a_warning():
    x = {k: v.half() for k, v in random_inputs(1, 1).items()}
    with pytest.warns(UserWarning, match="upcast"):
        o, _ = rank_generalized_chunk(**x, r_ab=1, r_kv=1)
    assert o.dtype == torch.float32


@pytest.mark.parametrize(
    ("change", "word"),
    [
        ({"a": torch.zeros(2, 12, 2, 4, dtype=D)}, "T\\*r_ab"),
        ({"log_f": torch.full((2, 13, 2, 4), 0.1, dtype=D)}, "log_f"),
        ({"k": torch.zeros(2, 13, 3, 4, dtype=D)}, "k must have shape"),
        ({"initial_state": torch.zeros(2, 2, 4, 4, dtype=D)}, "initial_state"),
    ],
)
def test_bad_inputs_name_the_problem(change, word):
    x = random_inputs(1, 1) | change
    with pytest.raises(ValueError, match=word):
        rank_generalized_chunk(**x, r_ab=1, r_kv=1)


def test_bad_ranks_and_chunk_size():
    x = random_inputs(1, 1)
    with pytest.raises(ValueError, match="r_ab"):
        rank_generalized_recurrence(**x, r_ab=-1, r_kv=1)
    with pytest.raises(ValueError, match="r_kv"):
        rank_generalized_recurrence(**x, r_ab=1, r_kv=0)
    with pytest.raises(ValueError, match="chunk_size"):
        rank_generalized_chunk(**x, r_ab=1, r_kv=1, chunk_size=0)
    with pytest.raises(ValueError, match="beta"):
        delta_rule_terms(x["k"], x["v"], torch.full((2, 13, 2), 2.5, dtype=D))
