"""Bad input to BAM's prior, bias attention, mixer and scheme registry (arXiv 2505.22842)."""

import torch

from iclr26.attention.bam import (
    GGDPrior,
    PasskeyData,
    PEAttention,
    alibi_score_bias,
    apply_rope,
    bias_attention,
    extra_parameters,
    get_scheme,
    ggd_bias,
    legacy_to_readme,
    rope_cos_sin,
    sinusoidal_table,
    ssmax_mod,
)

Q = torch.randn(1, 4, 6, 8)
P = torch.arange(6)
G = torch.Generator().manual_seed(0)
NAN, INF = float("nan"), float("inf")

CASES = [
    (lambda: GGDPrior(4, init_shape=-1.0), ValueError, ["negative", "beta", "allow_increasing"]),
    (lambda: GGDPrior(4, init_shape="sampled"), ValueError, ["allow_increasing"]),
    (lambda: GGDPrior(4, init_scale=-2.0), ValueError, ["init_scale", "> 0"]),
    (lambda: GGDPrior(4, init_scale=True), ValueError, ["init_scale", "float"]),
    (lambda: GGDPrior(4, init_shape=NAN), ValueError, ["init_shape", "finite"]),
    (lambda: GGDPrior(0), ValueError, ["n_heads"]),
    (lambda: GGDPrior(4)(P, P, causal=False), ValueError, ["non-causal", "causal-only"]),
    (lambda: GGDPrior(4)(P.float(), P), ValueError, ["q_pos", "integer"]),
    (lambda: bias_attention(Q, Q, Q, GGDPrior(2)), ValueError, ["n_heads", "mismatch"]),
    (
        lambda: bias_attention(Q, Q, Q, None, ssmax_scale=torch.ones(3)),
        ValueError,
        ["ssmax_scale", "n_heads"],
    ),
    (lambda: bias_attention(Q, Q, Q, None, chunk_size=0), ValueError, ["chunk_size"]),
    (lambda: PEAttention(8, 2, pe="bam", prior=GGDPrior(4)), ValueError, ["prior", "n_heads"]),
    (
        lambda: PEAttention(8, 2, pe="bam", causal=False, prior=GGDPrior(2)),
        ValueError,
        ["non-causal", "causal-only"],
    ),
    (lambda: PEAttention(8, 2, pe="xpos"), ValueError, ["pe"]),
    (lambda: get_scheme("kerple"), ValueError, ["unknown", "scheme"]),
    (lambda: GGDPrior(4, eps=INF), ValueError, ["eps", "finite"]),
    (lambda: GGDPrior(4, init_scale=INF), ValueError, ["init_scale", "finite"]),
    (lambda: PEAttention(8, 2, d_head=0), ValueError, ["d_head", ">= 1"]),
    (lambda: PEAttention(8, 2, d_head=2.5), ValueError, ["d_head", "int"]),
    (lambda: PEAttention(8, 2, chunk_size=0), ValueError, ["chunk_size", ">= 1"]),
    (lambda: PEAttention(8, 2, pe="rope", rope_base=NAN), ValueError, ["rope_base", "finite"]),
    (lambda: PasskeyData(concentration=INF), ValueError, ["concentration", "finite"]),
    (lambda: PasskeyData(seed=-1), ValueError, ["seed", ">= 0"]),
    (lambda: PasskeyData(n_digits=True), ValueError, ["n_digits", "int"]),
    (lambda: PasskeyData().episodes(0, 32, G), ValueError, ["n", ">= 1"]),
    (
        lambda: PasskeyData().episodes(2, 32, G, depths=torch.tensor([NAN, 0.5])),
        ValueError,
        ["depths", "[0, 1]"],
    ),
    (lambda: PasskeyData().filler(-1, 5, G), ValueError, ["n", ">= 0"]),
    (lambda: PasskeyData().train_batch(4, 32, G, p_passkey=NAN), ValueError, ["p_passkey", "[0, 1]"]),
    (lambda: PasskeyData().train_batch(0, 32, G), ValueError, ["batch", ">= 1"]),
    (lambda: sinusoidal_table(-1, 4), ValueError, ["seq", ">= 0"]),
    (lambda: sinusoidal_table(3, 4, NAN), ValueError, ["base", "finite"]),
    (lambda: rope_cos_sin(torch.arange(3), 4, 0.0), ValueError, ["base", "> 0"]),
    (lambda: rope_cos_sin(torch.arange(3), 6.0), ValueError, ["d_head", "int"]),
    (lambda: rope_cos_sin(torch.arange(3), 5), ValueError, ["d_head", "even"]),
    (lambda: rope_cos_sin(torch.zeros(2, 3).long(), 4), ValueError, ["positions", "1-D"]),
    (
        lambda: apply_rope(torch.ones(1, 1, 3, 6), *rope_cos_sin(torch.arange(3), 4)),
        ValueError,
        ["cos", "broadcast"],
    ),
    (lambda: alibi_score_bias(torch.ones(2), torch.rand(3), P), TypeError, ["q_pos", "integer"]),
    (lambda: bias_attention(Q.long(), Q.long(), Q.long()), TypeError, ["q", "floating-point"]),
    (lambda: bias_attention(Q, torch.randn(1, 4, 6, 4), Q), ValueError, ["k", "like q"]),
    (lambda: bias_attention(Q, Q, torch.randn(1, 4, 5, 8)), ValueError, ["v", "like k"]),
    (lambda: bias_attention(Q, Q, Q, ssmax_scale=NAN), ValueError, ["ssmax_scale", "finite"]),
    (lambda: bias_attention(Q, Q, Q, ssmax_scale="2"), TypeError, ["ssmax_scale", "float"]),
    (lambda: bias_attention(Q, Q, Q, torch.full((4, 6, 6), NAN)), ValueError, ["bias", "NaN"]),
    (lambda: ssmax_mod(torch.ones(2), q_offset=-1), ValueError, ["q_offset", ">= 0"]),
    (
        lambda: ggd_bias(torch.arange(3.0), torch.zeros(1), torch.ones(1), eps=NAN),
        ValueError,
        ["eps", "finite"],
    ),
    (lambda: legacy_to_readme(torch.zeros(2), torch.ones(3)), ValueError, ["theta_scale", "broadcast"]),
    (lambda: extra_parameters(None, 2, 2), TypeError, ["model", "nn.Module"]),
    (lambda: get_scheme("bam").build_model(10, 32, 16, 2, 2, chunk_size=0), ValueError, ["chunk_size"]),
]
