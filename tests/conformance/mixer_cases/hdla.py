"""HDLA (OpenReview HVFjzaQeig) and its linear-attention baselines on the shared rank-generalized core."""

from iclr26.attention.hdla import (
    DeltaNetMixer,
    DeltaProductMixer,
    GatedDeltaNetMixer,
    GLAMixer,
    HDLAAttention,
)

MIXERS = {
    "hdla": lambda d_model: HDLAAttention(d_model, n_heads=2),
    "hdla-chunk4-bounded": lambda d_model: HDLAAttention(
        d_model, 2, chunk_size=4, lower_bound=0.3, use_offset=True
    ),
    "gated-deltanet": lambda d_model: GatedDeltaNetMixer(d_model, n_heads=2),
    "gla": lambda d_model: GLAMixer(d_model, n_heads=2),
    "deltanet": lambda d_model: DeltaNetMixer(d_model, n_heads=2, allow_neg_eigval=True),
    "deltaproduct2": lambda d_model: DeltaProductMixer(d_model, n_heads=2),
}
SEQ_LENS = (15, 17, 33)
