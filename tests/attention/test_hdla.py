"""Oracle tests of HDLA (OpenReview HVFjzaQeig): the rank-2 decay, its limits, the mixers and the claim rule.

Chunk == recurrence across ranks, chunk sizes and ragged lengths, gradcheck of the core and half-precision upcast
are covered by tests/lab/test_linear_attention.py (the shared core).
"""

from dataclasses import replace

import pytest
import torch
import torch.nn.functional as F

from iclr26.attention.hdla import (
    DeltaNetMixer,
    DeltaProductMixer,
    GatedDeltaNetMixer,
    GLAMixer,
    HDLAAttention,
    hdla_decay_terms,
    rank_generalized_chunk,
    rank_generalized_recurrence,
    transition_matrices,
)
from iclr26.attention.hdla.claim_check import LEARNED_PRECONDITION, hdla_mqar_decider
from iclr26.attention.hdla.experiment import EXPERIMENT, MIXERS, matched_d_mlp
from iclr26.harness.claims import Outcome
from iclr26.lab.linear_attention import gla_terms

D64 = torch.float64


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


def random_terms(b=2, t=7, h=2, d=5, seed=0, beta_range=(0.0, 2.0)):
    g = gen(seed)
    kh = F.normalize(torch.randn(b, t, h, d, generator=g, dtype=D64), dim=-1)
    f = torch.rand(b, t, h, d, generator=g, dtype=D64) * 0.9 + 0.05
    lo, hi = beta_range
    beta = lo + (hi - lo) * torch.rand(b, t, h, generator=g, dtype=D64)
    q = torch.randn(b, t, h, d, generator=g, dtype=D64)
    v = torch.randn(b, t, h, d, generator=g, dtype=D64)
    return q, kh, v, f, beta


def householder(kh, beta):
    eye = torch.eye(kh.shape[-1], dtype=kh.dtype)
    return eye - beta[..., None, None] * kh[..., :, None] * kh[..., None, :]


def test_diagonal_plus_rank2_equals_materialized_hdh():
    _, kh, _, f, beta = random_terms(t=9, d=6)
    a, b = hdla_decay_terms(kh, f, beta)
    h = householder(kh, beta)
    expected = h @ torch.diag_embed(f) @ h
    got = transition_matrices(f.log(), a, b, r_ab=2)
    torch.testing.assert_close(got, expected, rtol=0, atol=1e-12)


def test_sabotage_dropping_the_beta_squared_term_breaks_the_identity():
    _, kh, _, f, beta = random_terms()
    a, b = hdla_decay_terms(kh, f, beta)
    bt = beta[..., None]
    broken = a.clone()
    broken[:, 1::2] = -bt * f * kh  # a_2 without the beta^2 (k^T D k) k correction
    h = householder(kh, beta)
    err = (transition_matrices(f.log(), broken, b, r_ab=2) - h @ torch.diag_embed(f) @ h).abs().max()
    assert err > 1e-3


def test_recurrence_matches_dense_hdh_state_update():
    q, kh, v, f, beta = random_terms(t=6)
    a, b = hdla_decay_terms(kh, f, beta)
    o, s = rank_generalized_chunk(q, kh, v, a, b, f.log(), r_ab=2, r_kv=1, chunk_size=4)
    p = householder(kh, beta) @ torch.diag_embed(f) @ householder(kh, beta)
    state = torch.zeros(2, 2, 5, 5, dtype=D64)
    outs = []
    for t in range(q.shape[1]):
        state = p[:, t] @ state + kh[:, t, :, :, None] * v[:, t, :, None, :]
        outs.append(torch.einsum("bhk,bhkv->bhv", q[:, t], state))
    torch.testing.assert_close(o, torch.stack(outs, 1), rtol=1e-10, atol=1e-12)
    torch.testing.assert_close(s, state, rtol=1e-10, atol=1e-12)


def test_beta_zero_is_gla_exactly():
    q, kh, v, f, _ = random_terms(t=11)
    a, b = hdla_decay_terms(kh, f, torch.zeros(kh.shape[:3], dtype=D64))
    o, s = rank_generalized_recurrence(q, kh, v, a, b, f.log(), r_ab=2, r_kv=1)
    o_gla, s_gla = rank_generalized_recurrence(q, **gla_terms(kh, v, f.log()))
    assert torch.equal(o, o_gla) and torch.equal(s, s_gla)
    o_c, _ = rank_generalized_chunk(q, kh, v, a, b, f.log(), r_ab=2, r_kv=1, chunk_size=4)
    torch.testing.assert_close(o_c, o_gla, rtol=1e-10, atol=1e-12)


def test_unit_decay_gives_rank1_dplr():
    q, kh, v, _, beta = random_terms(t=8)
    ones = torch.ones_like(kh)
    a, b = hdla_decay_terms(kh, ones, beta)
    c = (2 * beta - beta**2)[..., None, None]
    eye = torch.eye(kh.shape[-1], dtype=D64)
    expected = eye - c * kh[..., :, None] * kh[..., None, :]
    torch.testing.assert_close(transition_matrices(ones.log(), a, b, r_ab=2), expected, rtol=0, atol=1e-12)
    a1 = -(2 * beta - beta**2)[..., None] * kh  # P = I + k a1^T: one rank-1 term
    o2, s2 = rank_generalized_chunk(q, kh, v, a, b, ones.log(), r_ab=2, r_kv=1, chunk_size=4)
    o1, s1 = rank_generalized_chunk(q, kh, v, a1, kh, ones.log(), r_ab=1, r_kv=1, chunk_size=4)
    torch.testing.assert_close(o2, o1, rtol=1e-10, atol=1e-12)
    torch.testing.assert_close(s2, s1, rtol=1e-10, atol=1e-12)


def test_transition_is_symmetric_with_bounded_spectrum():
    torch.manual_seed(0)
    mixer = HDLAAttention(d_model=12, n_heads=3).double()
    with torch.no_grad():
        mixer.beta_proj.weight.mul_(4.0)  # spread beta over (0, 2)
    x = torch.randn(3, 10, 12, generator=gen(1), dtype=D64)
    p = mixer.transition_matrices(x)
    torch.testing.assert_close(p, p.transpose(-1, -2), rtol=0, atol=1e-13)
    eig = torch.linalg.eigvalsh(p)
    assert eig.min() > -1 and eig.max() < 1
    # congruence of a positive diagonal: P = H D H is positive semidefinite
    assert eig.min() > -1e-12
    f_max = F.logsigmoid(mixer.f_proj(x)).exp().unflatten(-1, (3, 4)).amax(-1)
    assert (torch.linalg.matrix_norm(p, ord=2) <= f_max + 1e-12).all()
    beta = 2 * torch.sigmoid(mixer.beta_proj(x))
    assert beta.min() < 0.5 and beta.max() > 1.5  # both Householder regimes were exercised


MODULES = {
    "hdla": lambda: HDLAAttention(12, 2, chunk_size=4),
    "hdla-bounded": lambda: HDLAAttention(12, 2, chunk_size=4, lower_bound=0.5, use_offset=True),
    "gla": lambda: GLAMixer(12, 2, chunk_size=4),
    "gdn": lambda: GatedDeltaNetMixer(12, 2, chunk_size=4, allow_neg_eigval=True),
    "deltanet": lambda: DeltaNetMixer(12, 2, chunk_size=4),
    "deltaproduct": lambda: DeltaProductMixer(12, 2, chunk_size=4),
    "hdla-conv": lambda: HDLAAttention(12, 2, chunk_size=4, use_offset=True, conv_size=4),
    "gdn-conv": lambda: GatedDeltaNetMixer(12, 2, chunk_size=4, allow_neg_eigval=True, conv_size=4),
    "deltaproduct-conv": lambda: DeltaProductMixer(12, 2, chunk_size=4, conv_size=3),
}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_step_decoding_equals_parallel_pass(name):
    torch.manual_seed(0)
    mixer = MODULES[name]().double()
    x = torch.randn(2, 9, 12, generator=gen(2), dtype=D64)
    full = mixer(x)
    state, outs = None, []
    for t in range(x.shape[1]):
        y, state = mixer.step(x[:, t], state)
        outs.append(y)
    torch.testing.assert_close(torch.stack(outs, 1), full, rtol=1e-9, atol=1e-10)
    _, s_full = mixer(x, return_state=True)
    torch.testing.assert_close(state, s_full, rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize(
    "name", ["hdla", "gdn", "deltaproduct", "hdla-conv", "gdn-conv", "deltaproduct-conv"]
)
def test_split_sequence_carrying_the_state_equals_one_pass(name):
    torch.manual_seed(0)
    mixer = MODULES[name]().double()
    x = torch.randn(2, 13, 12, generator=gen(3), dtype=D64)
    full, s_full = mixer(x, return_state=True)
    y1, s1 = mixer(x[:, :6], return_state=True)
    y2, s2 = mixer(x[:, 6:], state=s1, return_state=True)
    torch.testing.assert_close(torch.cat([y1, y2], 1), full, rtol=1e-9, atol=1e-10)
    torch.testing.assert_close(s2, s_full, rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("cls", [HDLAAttention, GatedDeltaNetMixer, DeltaProductMixer])
def test_short_conv_with_a_unit_last_tap_is_the_plain_mixer_and_is_causal(cls):
    torch.manual_seed(0)
    plain = cls(12, 2, chunk_size=4).double()
    conv = cls(12, 2, chunk_size=4, conv_size=4).double()
    missing = conv.load_state_dict(plain.state_dict(), strict=False).missing_keys
    assert missing == ["conv_weight"]
    x = torch.randn(2, 11, 12, generator=gen(6), dtype=D64)
    with torch.no_grad():
        conv.conv_weight.zero_()
        conv.conv_weight[:, -1] = 1.0  # out_t = z_t
    torch.testing.assert_close(conv(x), plain(x), rtol=1e-12, atol=1e-12)
    with torch.no_grad():
        conv.conv_weight.normal_(generator=gen(7))
    y = conv(x)
    x2 = x.clone()
    x2[:, 6] += 1.0
    y2 = conv(x2)
    torch.testing.assert_close(y2[:, :6], y[:, :6], rtol=0, atol=0)  # nothing leaks backwards
    assert (y2[:, 6:9] - y[:, 6:9]).abs().amax() > 1e-6  # the next taps see it


def test_conv_state_is_a_checked_pair():
    mixer = HDLAAttention(8, 2, conv_size=3)
    x = torch.randn(1, 3, 8)
    with pytest.raises(ValueError, match="pair"):
        mixer(x, state=torch.zeros(1, 2, 4, 4))
    with pytest.raises(ValueError, match="conv_cache"):
        mixer(x, state=(torch.zeros(1, 2, 4, 4), torch.zeros(1, 3, 24)))
    y, (s, cache) = mixer(x, return_state=True)
    assert s.shape == (1, 2, 4, 4) and cache.shape == (1, 2, 24)


def test_residual_branches_start_small_and_every_mixer_gets_the_same_conv():
    from iclr26.attention.hdla.experiment import build_model

    cfg = EXPERIMENT.configs["quick"]
    small = build_model("hdla", cfg, cfg.d_mlp, 0)
    plain = build_model("hdla", replace(cfg, residual_init_scale=1.0), cfg.d_mlp, 0)
    for a, b in zip(small.blocks, plain.blocks):
        torch.testing.assert_close(a.attn.o_proj.weight, cfg.residual_init_scale * b.attn.o_proj.weight)
        torch.testing.assert_close(a.mlp.W_down.weight, cfg.residual_init_scale * b.mlp.W_down.weight)
        torch.testing.assert_close(a.attn.q_proj.weight, b.attn.q_proj.weight)
    # every mixer of every budget gets the same convolution
    for c in EXPERIMENT.configs.values():
        assert {build_model(n, c, c.d_mlp, 0).blocks[0].attn.conv_size for n in c.mixers} == {c.conv_size}


def test_baseline_transitions_match_their_definitions():
    torch.manual_seed(0)
    x = torch.randn(1, 5, 12, generator=gen(4), dtype=D64)
    gdn = GatedDeltaNetMixer(12, 2).double()
    k = F.normalize(F.silu(gdn.k_proj(x)).unflatten(-1, (2, 6)), dim=-1)
    beta = torch.sigmoid(gdn.beta_proj(x))
    alpha = torch.exp(-gdn.A_log.exp() * F.softplus(gdn.alpha_proj(x) + gdn.dt_bias))
    expected = alpha[..., None, None] * householder(k, beta)
    torch.testing.assert_close(gdn.transition_matrices(x), expected, rtol=0, atol=1e-12)
    gla = GLAMixer(12, 2).double()
    f = torch.sigmoid(gla.f_proj(x)).unflatten(-1, (2, 6))
    torch.testing.assert_close(gla.transition_matrices(x), torch.diag_embed(f), rtol=0, atol=1e-12)


def test_gradcheck_through_decay_terms_and_chunk():
    q, kh, v, f, beta = random_terms(b=1, t=8, h=1, d=4, seed=5)
    logit = torch.logit(f).requires_grad_(True)
    beta = beta.requires_grad_(True)

    def fn(logit, beta):
        ff = torch.sigmoid(logit)
        a, b = hdla_decay_terms(kh, ff, beta)
        return rank_generalized_chunk(q, kh, v, a, b, ff.log(), r_ab=2, r_kv=1, chunk_size=4)[0]

    assert torch.autograd.gradcheck(fn, (logit, beta), eps=1e-6, atol=1e-6)


def test_parameters_matched_and_states_equal():
    cfg = EXPERIMENT.configs["quick"]
    for name in MIXERS:
        _, n, target = matched_d_mlp(name, cfg)
        assert abs(n - target) <= 0.02 * target, name
    sizes = {MIXERS[name](64, 2, 32).state_size for name in MIXERS}
    assert sizes == {2 * 32 * 32}


def test_mixer_rejects_score_bias_and_bad_state():
    mixer = HDLAAttention(8, 2)
    x = torch.randn(1, 3, 8)
    with pytest.raises(ValueError, match="score_bias"):
        mixer(x, torch.zeros(2, 3, 3))
    with pytest.raises(ValueError, match="state"):
        mixer(x, state=torch.zeros(1, 2, 3, 4))
    with pytest.raises(ValueError, match="x_t"):
        mixer.step(x)


def rows(a, b, chance=1 / 64):
    return [{"acc_h": x, "acc_g": y, "acc_best_above_chance": max(x, y) - chance} for x, y in zip(a, b)]


def test_claim_rule_supported_not_supported_inconclusive():
    decide = hdla_mqar_decider("acc_h", "acc_g")
    assert decide(rows([0.60, 0.65, 0.62], [0.50, 0.52, 0.55])).outcome is Outcome.SUPPORTED
    # the whole interval lies below the claimed 3 points
    assert decide(rows([0.50, 0.52, 0.48], [0.51, 0.53, 0.49])).outcome is Outcome.NOT_SUPPORTED
    assert decide(rows([0.52, 0.60, 0.49], [0.50, 0.52, 0.51])).outcome is Outcome.INCONCLUSIVE  # noisy
    assert decide(rows([0.995, 1.0, 0.999], [0.99, 0.995, 0.992])).outcome is Outcome.INCONCLUSIVE  # ceiling
    assert decide(rows([0.60], [0.50])).outcome is Outcome.INCONCLUSIVE  # one seed


def test_claim_negative_mean_with_a_wide_interval_is_inconclusive_not_refuted():
    """The brief refuted on mean <= 0; an interval that still reaches +3 points no longer refutes."""
    decide = hdla_mqar_decider("acc_h", "acc_g")
    verdict = decide(rows([0.40, 0.70, 0.45], [0.50, 0.52, 0.55]))
    assert verdict.estimate < 0 and verdict.interval[1] > 0.03
    assert verdict.outcome is Outcome.INCONCLUSIVE


def test_claim_floor_is_not_reproduced_and_learned_models_are_judged():
    claim = next(c for c in EXPERIMENT.claims if c.id == "hdla-beats-gdn-mqar")
    assert claim.preconditions == (LEARNED_PRECONDITION,)
    chance = 1 / 64

    def claim_rows(a, b):
        return [
            {"acc_hdla": x, "acc_gated_deltanet": y, "acc_best_above_chance": max(x, y) - chance}
            for x, y in zip(a, b)
        ]

    floor = claim.judge(claim_rows([0.03, 0.05, 0.04], [0.02, 0.02, 0.03]))
    assert floor.outcome is Outcome.NOT_REPRODUCED and "acc_best_above_chance" in floor.explanation
    # one seed at the floor is enough
    one = claim.judge(claim_rows([0.60, 0.65, 0.03], [0.50, 0.52, 0.02]))
    assert one.outcome is Outcome.NOT_REPRODUCED
    # learned: a real verdict, in both directions
    assert claim.judge(claim_rows([0.60, 0.65, 0.62], [0.50, 0.52, 0.55])).outcome is Outcome.SUPPORTED
    assert claim.judge(claim_rows([0.30, 0.32, 0.28], [0.50, 0.52, 0.49])).outcome is Outcome.NOT_SUPPORTED
    # HDLA learned and GDN did not: still a judged (winning) comparison
    assert claim.judge(claim_rows([0.30, 0.35, 0.33], [0.02, 0.03, 0.02])).outcome is Outcome.SUPPORTED
