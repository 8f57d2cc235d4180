"""Local Linear Attention (LLA): an optimal interpolation of linear and softmax attention for test-time regression.

Zuo, Yin, Zeng, Li, Zhu, Wang; arXiv 2510.01450, OpenReview WGpzi489XY (ICLR 2026).

Attention read as test-time regression: softmax attention is a local-constant (Nadaraya-Watson) fit of the values
on the keys, linear attention a global linear one; LLA fits a kernel-weighted linear model per query and returns
its intercept, which amounts to softmax attention with corrected (possibly negative) weights.
"""

from iclr26.attention.lla.estimators import global_ridge, linear_attention, lla, nadaraya_watson
from iclr26.attention.lla.layers import (
    GatedDeltaNetMixer,
    LinearAttentionMixer,
    LocalLinearAttention,
    gated_deltanet_mixer,
    linear_attention_mixer,
    lla_mixer,
)
from iclr26.attention.lla.local_linear import (
    KERNELS,
    RIDGES,
    SOLVERS,
    kernel_scores,
    lla_weights,
    local_linear_attention,
    ridge_coefficients,
)

__all__ = [
    "KERNELS",
    "RIDGES",
    "SOLVERS",
    "GatedDeltaNetMixer",
    "LinearAttentionMixer",
    "LocalLinearAttention",
    "gated_deltanet_mixer",
    "global_ridge",
    "kernel_scores",
    "linear_attention",
    "linear_attention_mixer",
    "lla",
    "lla_mixer",
    "lla_weights",
    "local_linear_attention",
    "nadaraya_watson",
    "ridge_coefficients",
]
