"""Bad input to BAM's prior, bias attention, mixer and scheme registry (arXiv 2505.22842)."""

import torch

from iclr26.attention.bam import GGDPrior, PEAttention, bias_attention, get_scheme

Q = torch.randn(1, 4, 6, 8)
P = torch.arange(6)

CASES = [
    (lambda: GGDPrior(4, init_shape=-1.0), ValueError, ["negative", "beta", "allow_increasing"]),
    (lambda: GGDPrior(4, init_shape="sampled"), ValueError, ["allow_increasing"]),
    (lambda: GGDPrior(4, init_scale=-2.0), ValueError, ["init_scale", "positive"]),
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
]
