"""LLA's mixers in the component registry: local linear attention (materialised, blockwise, RBF) and baselines."""

from __future__ import annotations

from iclr26.attention.lla import GatedDeltaNetMixer, LinearAttentionMixer, LocalLinearAttention
from iclr26.lab.registry import register

_SEQ_LENS = (9, 17, 50)
for _name, _cls, _case in (
    ("lla", LocalLinearAttention, lambda d_model: LocalLinearAttention(d_model, n_heads=4)),
    (
        "lla-blockwise-cg",
        LocalLinearAttention,
        lambda d_model: LocalLinearAttention(d_model, n_heads=2, block_size=8, solver="cg"),
    ),
    (
        "lla-rbf-scaled",
        LocalLinearAttention,
        lambda d_model: LocalLinearAttention(d_model, n_heads=2, kernel="rbf", ridge="scaled"),
    ),
    ("linear-attention", LinearAttentionMixer, lambda d_model: LinearAttentionMixer(d_model, n_heads=2)),
    ("gated-deltanet", GatedDeltaNetMixer, lambda d_model: GatedDeltaNetMixer(d_model, n_heads=2)),
):
    register("mixer", _name, _cls, _case, paper="lla", seq_lens=_SEQ_LENS)
