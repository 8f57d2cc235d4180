"""Oracle tests of BAM (arXiv 2505.22842): the GGD prior, bias attention with SSMax, the scheme registry."""

import math

import pytest
import torch
from statsmodels.stats.proportion import confint_proportions_2indep, proportion_confint
from transformers.models.bloom.modeling_bloom import build_alibi_tensor
from transformers.models.llama.modeling_llama import apply_rotary_pos_emb

from iclr26.attention.bam import (
    SCHEMES,
    GGDPrior,
    PasskeyData,
    PEAttention,
    alibi_slopes,
    apply_rope,
    bias_attention,
    extra_parameters,
    get_scheme,
    ggd_bias,
    legacy_ggd_bias,
    legacy_to_readme,
    rope_cos_sin,
)
from iclr26.attention.bam.claim_check import extrapolation_decider, newcombe_interval, wilson_interval
from iclr26.harness.claims import Outcome
from iclr26.lab.flex import alibi_bias, attention, causal, log_n_scaling

H = 4


def qkv(b=2, h=H, t=9, d=8, seed=0, dtype=torch.float64):
    g = torch.Generator().manual_seed(seed)
    return tuple(torch.randn(b, h, t, d, generator=g, dtype=dtype) for _ in range(3))


def reference(q, k, v, bias=None, s=None, on_prior=True, is_causal=True):
    """Step-by-step dense reference of the (SSMax) score with an additive bias."""
    t_q, t_k = q.shape[2], k.shape[2]
    scores = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    g = torch.zeros(1, 1, t_q, t_k, dtype=q.dtype) if bias is None else bias
    if s is not None:
        n = torch.arange(1, t_q + 1, dtype=q.dtype)[:, None] if is_causal else torch.tensor(float(t_k))
        mult = s.view(1, -1, 1, 1) * torch.log(n)
        scores = mult * (scores + g) if on_prior else mult * scores + g
    else:
        scores = scores + g
    if is_causal:
        scores = scores.masked_fill(torch.ones(t_q, t_k, dtype=torch.bool).triu(1), float("-inf"))
    return torch.softmax(scores, -1) @ v


def pos(t):
    return torch.arange(t)


# ------------------------------------------------------------------------------------------------- prior


def test_beta_one_is_alibi_within_m_eps():
    prior = GGDPrior(H, init_scale="alibi", init_shape=1.0).double()
    bias = prior(pos(16), pos(16))
    ref = alibi_bias(alibi_slopes(H), 16, 16).double()
    m = alibi_slopes(H).double().view(1, H, 1, 1)
    assert ((bias - ref).abs() <= m * 1e-5 * (1 + 1e-9)).all()
    assert not torch.allclose(bias, ref, atol=0, rtol=0)  # the eps offset is really there


def test_beta_zero_is_nope():
    prior = GGDPrior(H, init_scale=1.7, init_shape=0.0)
    bias = prior(pos(9), pos(9))
    assert torch.allclose(bias, torch.full_like(bias, -1.7))
    q, k, v = qkv(dtype=torch.float32)
    torch.testing.assert_close(
        bias_attention(q, k, v, prior), bias_attention(q, k, v, None), atol=1e-6, rtol=0
    )


def test_bias_depends_only_on_offset():
    prior = GGDPrior(H, init_scale="lognormal", init_shape="linspace")
    a = prior(torch.arange(0, 7), torch.arange(0, 11))
    b = prior(torch.arange(100, 107), torch.arange(100, 111))
    torch.testing.assert_close(a, b)


@pytest.mark.parametrize("beta", [0.0, 0.5, 1.0, 2.0, 3.0])
def test_gradients_finite_including_delta_zero(beta):
    prior = GGDPrior(H, init_scale=0.3, init_shape=beta, train_loc=True).double()
    prior(pos(6), pos(6)).sum().backward()
    for p in (prior.theta_alpha, prior.theta_beta, prior.theta_mu):
        assert p.grad is not None and torch.isfinite(p.grad).all()
    assert prior.theta_beta.grad.abs().sum() > 0


def test_gradcheck_prior():
    prior = GGDPrior(3, init_scale="lognormal", init_shape="linspace", train_loc=True).double()
    with torch.no_grad():
        prior.theta_mu.uniform_(-0.3, 0.3, generator=torch.Generator().manual_seed(0))
    delta = torch.arange(-6.0, 1.0, dtype=torch.float64)

    def fn(alpha, beta, theta_mu):
        mu = torch.exp(theta_mu) - torch.exp(-theta_mu)
        return ggd_bias(delta[None], alpha[:, None], beta[:, None], mu[:, None])

    args = tuple(
        p.detach().clone().requires_grad_() for p in (prior.theta_alpha, prior.theta_beta, prior.theta_mu)
    )
    assert torch.autograd.gradcheck(fn, args)
    # the module computes the same function
    full = prior(pos(7), pos(7))[0, :, 6, :]  # query 6 sees delta = -6..0
    torch.testing.assert_close(full, fn(*args).detach())


def test_legacy_parameterisation_maps_exactly():
    g = torch.Generator().manual_seed(1)
    s, b = (
        torch.randn(H, 1, generator=g, dtype=torch.float64),
        torch.rand(H, 1, generator=g, dtype=torch.float64) * 3,
    )
    delta = torch.arange(-20.0, 1.0, dtype=torch.float64)[None]
    alpha, beta, eps = legacy_to_readme(s, b)
    torch.testing.assert_close(
        ggd_bias(delta, alpha, beta, 0.0, eps), legacy_ggd_bias(delta, s, b), rtol=1e-12, atol=0
    )
    # with the README's fixed eps the two forms differ (a reparameterisation, not an identity)
    assert not torch.allclose(ggd_bias(delta, alpha, beta), legacy_ggd_bias(delta, s, b), rtol=1e-12, atol=0)


def test_extra_parameter_count():
    for name, per_prior, ssmax in (("bam", 2, False), ("bam-ssmax", 2, True), ("laplace-ssmax", 1, True)):
        for n_layers in (1, 3):
            model = get_scheme(name).build_model(10, 8, d_model=16, n_layers=n_layers, n_heads=H)
            nope = get_scheme("nope").build_model(10, 8, d_model=16, n_layers=n_layers, n_heads=H)
            expect = per_prior * H + (H * n_layers if ssmax else 0)
            total = sum(p.numel() for p in model.parameters() if p.requires_grad)
            assert (
                total - sum(p.numel() for p in nope.parameters())
                == expect
                == extra_parameters(model, n_layers, H)
            )
    assert sum(p.numel() for p in GGDPrior(H, train_loc=True).parameters()) == 3 * H


# ------------------------------------------------------------------------------------- bias attention


def test_plain_bias_attention_matches_sdpa():
    q, k, v = qkv()
    ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    torch.testing.assert_close(bias_attention(q, k, v), ref)


@pytest.mark.parametrize("on_prior", [True, False])
@pytest.mark.parametrize("is_causal", [True, False])
def test_ssmax_with_prior_matches_reference(on_prior, is_causal):
    q, k, v = qkv()
    prior = GGDPrior(H, init_scale="lognormal", init_shape="linspace", causal=False).double()
    s = torch.tensor([0.5, 1.0, 1.5, 2.0], dtype=torch.float64)
    bias = prior(pos(9), pos(9), causal=is_causal)
    got = bias_attention(q, k, v, prior if is_causal else bias, s, on_prior, causal=is_causal)
    torch.testing.assert_close(got, reference(q, k, v, bias, s, on_prior, is_causal))


def test_ssmax_single_key_row_is_value():
    q, k, v = qkv(t=5)
    out = bias_attention(q, k, v, GGDPrior(H).double(), ssmax_scale=3.0)
    torch.testing.assert_close(out[:, :, 0], v[:, :, 0])  # n = 1: log 1 = 0
    one = bias_attention(q[:, :, :1], k[:, :, :1], v[:, :, :1], None, ssmax_scale=2.0)
    torch.testing.assert_close(one, v[:, :, :1])


def test_beta_zero_with_ssmax_is_nope_ssmax():
    q, k, v = qkv(dtype=torch.float32)
    prior = GGDPrior(H, init_scale=2.0, init_shape=0.0)
    s = torch.tensor([1.0, 0.5, 2.0, 1.3])
    torch.testing.assert_close(
        bias_attention(q, k, v, prior, s), bias_attention(q, k, v, None, s), atol=1e-6, rtol=0
    )


def test_chunked_equals_unchunked_at_512():
    q, k, v = qkv(b=1, t=512, d=8, dtype=torch.float32)
    prior = GGDPrior(H, init_scale="alibi", init_shape="linspace")
    s = torch.tensor([1.0, 0.7, 1.2, 0.9])
    full = bias_attention(q, k, v, prior, s)
    for chunk in (64, 100):
        torch.testing.assert_close(
            bias_attention(q, k, v, prior, s, chunk_size=chunk), full, atol=1e-5, rtol=0
        )
    dense = prior(pos(512), pos(512))
    torch.testing.assert_close(
        bias_attention(q, k, v, dense, s, False, chunk_size=128),
        bias_attention(q, k, v, dense, s, False),
        atol=1e-5,
        rtol=0,
    )


def test_mixer_chunked_equals_unchunked():
    torch.manual_seed(0)
    mixer = PEAttention(16, 2, pe="bam", ssmax=True, prior=GGDPrior(2, "alibi", 1.0))
    x = torch.randn(1, 130, 16)
    full = mixer(x)
    mixer.chunk_size = 32
    torch.testing.assert_close(mixer(x), full, atol=1e-5, rtol=0)


def test_sabotage_chunk_without_query_offset_breaks_oracle():
    """Chunking with the lab's log_n_scaling but without its q_offset counts n from each chunk's start: oracle fails."""
    q, k, v = qkv(b=1, t=64, dtype=torch.float32)
    full = attention(q, k, v, score_mod=log_n_scaling(1.0), mask_mod=causal)
    parts = [
        attention(
            q[:, :, a : a + 16],
            k[:, :, : a + 16],
            v[:, :, : a + 16],
            score_mod=log_n_scaling(1.0),
            mask_mod=lambda b, h, qi, ki, a=a: qi + a >= ki,
        )
        for a in range(0, 64, 16)
    ]
    assert not torch.allclose(torch.cat(parts, 2), full, atol=1e-3)
    torch.testing.assert_close(bias_attention(q, k, v, None, 1.0, chunk_size=16), full, atol=1e-5, rtol=0)


# ---------------------------------------------------------------------------------- encodings, registry


def test_rope_matches_transformers_and_is_relative():
    q, k, _ = qkv(d=8)
    cos, sin = rope_cos_sin(pos(9), 8, dtype=torch.float64)
    ref_q, ref_k = apply_rotary_pos_emb(q, k, cos[None], sin[None])
    torch.testing.assert_close(apply_rope(q, cos, sin), ref_q)
    torch.testing.assert_close(apply_rope(k, cos, sin), ref_k)
    x, y = torch.randn(2, 8, dtype=torch.float64)
    c1, s1 = rope_cos_sin(torch.tensor([3, 1]), 8, dtype=torch.float64)
    c2, s2 = rope_cos_sin(torch.tensor([10, 8]), 8, dtype=torch.float64)
    d1 = apply_rope(x, c1[0], s1[0]) @ apply_rope(y, c1[1], s1[1])
    d2 = apply_rope(x, c2[0], s2[0]) @ apply_rope(y, c2[1], s2[1])
    torch.testing.assert_close(d1, d2)


@pytest.mark.parametrize("n_heads", [4, 8, 6])
def test_alibi_slopes_match_bloom(n_heads):
    ref = build_alibi_tensor(torch.ones(1, 2, dtype=torch.long), n_heads, torch.float32)[:, 0, 1]
    torch.testing.assert_close(alibi_slopes(n_heads), ref)


def test_registry_shares_one_backbone():
    names = {
        f"{p}{s}" for p in ("nope", "sinusoidal", "rope", "alibi", "laplace", "bam") for s in ("", "-ssmax")
    }
    assert names <= set(SCHEMES)
    ref = get_scheme("nope").build_model(10, 16, d_model=16, n_layers=2, n_heads=2, init_seed=3)
    ref_sd = ref.state_dict()
    for name in names:
        model = SCHEMES[name].build_model(10, 16, d_model=16, n_layers=2, n_heads=2, init_seed=3)
        sd = model.state_dict()
        shared = [k for k in sd if k in ref_sd]
        assert len(shared) == len(ref_sd)  # every backbone weight exists, same shape and same init
        for key in shared:
            torch.testing.assert_close(sd[key], ref_sd[key], msg=f"{name}: {key}")
        assert all(".prior." in k or "ssmax" in k or "slopes" in k for k in sd if k not in ref_sd)
        assert model(torch.zeros(1, 16, dtype=torch.long)).shape == (1, 16, 10)
    bam = get_scheme("bam-ssmax").build_model(10, 16, d_model=16, n_layers=2, n_heads=2)
    assert bam.blocks[0].attn.prior is bam.blocks[1].attn.prior  # global prior shared by the layers


def test_passkey_episode_layout():
    data = PasskeyData(seed=0)
    batch = data.episodes(3, 40, torch.Generator().manual_seed(0), depths=torch.tensor([0.0, 0.5, 1.0]))
    for i in range(3):
        seq = torch.cat([batch.inputs[i], batch.targets[i, -1:]])
        start = int((seq == data.key).nonzero())
        assert seq[start + 1 : start + 5].tolist() == batch.digits[i].tolist() == seq[-4:].tolist()
        assert seq[start + 5] == data.end_key and seq[-5] == data.ask
    assert int((torch.cat([batch.inputs[0, :1]]) == data.key).sum()) == 1  # depth 0: key block first
    fill = data.filler(2, 200, torch.Generator().manual_seed(1))
    probs = torch.diff(data.cdf, dim=1, prepend=torch.zeros(data.n_filler, 1, dtype=torch.float64))
    assert (probs[fill[:, :-1], fill[:, 1:]] > 0).all()


# --------------------------------------------------------------------------------------------- claim check


def test_wilson_and_newcombe_match_statsmodels():
    lo, hi = wilson_interval(17, 40)
    ref = proportion_confint(17, 40, method="wilson")
    assert abs(lo - ref[0]) < 1e-9 and abs(hi - ref[1]) < 1e-9
    lo, hi = newcombe_interval(50, 64, 30, 64)
    ref = confint_proportions_2indep(50, 64, 30, 64, method="newcomb", compare="diff")
    assert abs(lo - ref[0]) < 1e-9 and abs(hi - ref[1]) < 1e-9


def rows(bam, alibi, rope, ratio=1.0, n=32, seeds=2):
    return [
        {
            "m_acc_claim": bam,
            "a_acc_claim": alibi,
            "r_acc_claim": rope,
            "m_n_claim": n,
            "a_n_claim": n,
            "r_n_claim": n,
            "loss_ratio_x1": ratio,
        }
        for _ in range(seeds)
    ]


def test_decider_outcomes():
    decide = extrapolation_decider("m", ("a", "r"))
    assert decide(rows(0.9, 0.2, 0.1)).outcome == Outcome.SUPPORTED
    assert decide(rows(0.9, 0.2, 0.1, ratio=1.2)).outcome == Outcome.NOT_SUPPORTED
    assert decide(rows(0.3, 0.5, 0.1)).outcome == Outcome.NOT_SUPPORTED
    assert decide(rows(0.6, 0.5, 0.1)).outcome == Outcome.INCONCLUSIVE  # below 80%
    assert decide(rows(0.9, 0.8, 0.1)).outcome == Outcome.INCONCLUSIVE  # gap < 20 points
    assert decide(rows(0.9, 0.2, 0.1, seeds=1)).outcome == Outcome.INCONCLUSIVE  # one seed is not enough
    assert decide(rows(0.9, 0.2, float("nan"))).outcome == Outcome.INCONCLUSIVE  # shared guard
    rows_win = decide.synthesize(rows(0.1, 0.5, 0.4, n=4))
    assert decide(rows_win).outcome == Outcome.SUPPORTED


def _claim_rows(acc_x1, accs_claim, loss=3.3, seeds=3):
    """Rows with every metric the extrapolation claim declares (acc_claim = (bam, alibi, rope))."""
    out = []
    for _ in range(seeds):
        row = {"loss_ratio_x1": 1.0, "bam_ssmax_acc_x1": acc_x1, "max_acc_claim": max(accs_claim)}
        for s, a in zip(("bam_ssmax", "alibi", "rope"), accs_claim):
            row |= {f"{s}_acc_claim": a, f"{s}_n_claim": 32.0, f"{s}_loss_x1": loss}
        out.append(row)
    return out


def test_extrapolation_claim_preconditions():
    from iclr26.attention.bam.experiment import EXPERIMENT

    claim = next(c for c in EXPERIMENT.claims if c.id == "bam-passkey-extrapolation")
    # the earlier quick run: nobody solves an episode at 32x -> a floor effect, not a refutation
    assert claim.judge(_claim_rows(0.3, (0.0, 0.0, 0.0))).outcome == Outcome.NOT_REPRODUCED
    # BAM never learned retrieval at 1x
    assert claim.judge(_claim_rows(0.0, (0.0, 0.2, 0.1))).outcome == Outcome.NOT_REPRODUCED
    # a model at the uniform-guess loss did not learn the filler
    assert claim.judge(_claim_rows(0.9, (0.9, 0.2, 0.1), loss=4.2)).outcome == Outcome.NOT_REPRODUCED
    # learned models give real verdicts
    assert claim.judge(_claim_rows(0.9, (0.9, 0.2, 0.1))).outcome == Outcome.SUPPORTED
    assert claim.judge(_claim_rows(0.9, (0.1, 0.3, 0.0))).outcome == Outcome.NOT_SUPPORTED
    assert claim.judge(_claim_rows(0.9, (0.6, 0.3, 0.0))).outcome == Outcome.INCONCLUSIVE


def test_loss_claim_preconditions():
    from iclr26.attention.bam.experiment import EXPERIMENT

    claim = next(c for c in EXPERIMENT.claims if c.id == "bam-comparable-loss")
    good = [{**r, "loss_ratio_x1": v} for r, v in zip(_claim_rows(0.9, (0.0, 0.0, 0.0)), (0.98, 0.99, 1.0))]
    assert claim.judge(good).outcome == Outcome.SUPPORTED
    bad = [{**r, "loss_ratio_x1": v} for r, v in zip(_claim_rows(0.9, (0.0, 0.0, 0.0)), (1.2, 1.21, 1.22))]
    assert claim.judge(bad).outcome == Outcome.NOT_SUPPORTED
    untrained = [{**r, "rope_loss_x1": 4.3} for r in good]
    assert claim.judge(untrained).outcome == Outcome.NOT_REPRODUCED


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: GGDPrior(H, init_shape=-0.5), "negative beta"),
        (lambda: GGDPrior(H, init_scale=0.0), "init_scale must be a finite float > 0"),
        (lambda: GGDPrior(H)(pos(3), pos(3), causal=False), "non-causal"),
        (lambda: GGDPrior(H)(torch.arange(3.0), pos(3)), "integer"),
        (lambda: bias_attention(*qkv(), GGDPrior(3)), "n_heads"),
    ],
)
def test_bad_inputs(call, words):
    with pytest.raises(ValueError, match=words):
        call()


def test_prior_as_flex_score_mod_matches_dense_bias():
    from iclr26.lab.flex import additive_bias

    q, k, v = qkv()
    prior = GGDPrior(H, init_scale="lognormal", init_shape="linspace").double()
    out = attention(q, k, v, score_mod=additive_bias(prior.score_fn()), mask_mod=causal)
    torch.testing.assert_close(out, bias_attention(q, k, v, prior))
    block = prior(torch.arange(4, 9), torch.arange(9))
    fn = prior.score_fn(q_offset=4)
    torch.testing.assert_close(
        fn(torch.arange(H).view(1, H, 1, 1), pos(5).view(1, 1, 5, 1), pos(9).view(1, 1, 1, 9)), block
    )


def test_mixer_adds_a_model_score_bias():
    torch.manual_seed(0)
    x = torch.randn(1, 6, 16, dtype=torch.float64)
    extra = torch.randn(2, 6, 6, dtype=torch.float64)
    for pe in ("nope", "bam"):
        mixer = PEAttention(16, 2, pe=pe, ssmax=True).double()
        q, k, v = (getattr(mixer, f"W_{n}")(x).view(1, 6, 2, 8).transpose(1, 2) for n in "qkv")
        bias = extra[None] if pe == "nope" else mixer.prior(pos(6), pos(6)) + extra
        ref = reference(q, k, v, bias, mixer.ssmax_scale.detach())
        torch.testing.assert_close(mixer(x, extra), mixer.W_o(ref.transpose(1, 2).reshape(1, 6, 16)))
