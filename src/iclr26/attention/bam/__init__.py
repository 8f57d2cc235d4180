"""BAM: Bayesian Attention Mechanism, a probabilistic framework for positional encoding and length extrapolation.

Bianchessi, Aguirre, Barros, Kupssinskü; ICLR 2026 (OpenReview dXJB9O8fLd, arXiv 2505.22842).

A positional score added to attention logits is a log-prior over relative position: NoPE is the uniform prior,
ALiBi a Laplace prior. BAM learns a generalized-Gaussian prior per head (:class:`GGDPrior`) and combines it with
Scalable-Softmax (:func:`bias_attention` with ``ssmax_scale``). :data:`SCHEMES` builds one backbone per
positional encoding (NoPE, sinusoidal, RoPE, ALiBi, Laplace, BAM; each with or without SSMax).
"""

from iclr26.attention.bam.attention import bias_attention, ssmax_mod
from iclr26.attention.bam.data import PasskeyData
from iclr26.attention.bam.encodings import (
    SinusoidalPositions,
    alibi_score_bias,
    apply_rope,
    rope_cos_sin,
    sinusoidal_table,
)
from iclr26.attention.bam.mixer import PEAttention
from iclr26.attention.bam.prior import (
    GGDPrior,
    alibi_slopes,
    ggd_bias,
    legacy_ggd_bias,
    legacy_to_readme,
)
from iclr26.attention.bam.schemes import SCHEMES, PositionalScheme, extra_parameters, get_scheme

__all__ = [
    "SCHEMES",
    "GGDPrior",
    "PEAttention",
    "PasskeyData",
    "PositionalScheme",
    "SinusoidalPositions",
    "alibi_score_bias",
    "alibi_slopes",
    "apply_rope",
    "bias_attention",
    "extra_parameters",
    "get_scheme",
    "ggd_bias",
    "legacy_ggd_bias",
    "legacy_to_readme",
    "rope_cos_sin",
    "sinusoidal_table",
    "ssmax_mod",
]
