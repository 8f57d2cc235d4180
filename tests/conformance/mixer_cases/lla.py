"""LLA (arXiv 2510.01450): local linear attention (materialised and blockwise) and its recurrent baselines."""

from iclr26.attention.lla import GatedDeltaNetMixer, LinearAttentionMixer, LocalLinearAttention

MIXERS = {
    "lla": lambda d_model: LocalLinearAttention(d_model, n_heads=4),
    "lla-blockwise-cg": lambda d_model: LocalLinearAttention(d_model, n_heads=2, block_size=8, solver="cg"),
    "lla-rbf-scaled": lambda d_model: LocalLinearAttention(d_model, n_heads=2, kernel="rbf", ridge="scaled"),
    "linear-attention": lambda d_model: LinearAttentionMixer(d_model, n_heads=2),
    "gated-deltanet": lambda d_model: GatedDeltaNetMixer(d_model, n_heads=2),
}
SEQ_LENS = (9, 17, 50)
