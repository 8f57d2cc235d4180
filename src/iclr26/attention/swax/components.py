"""SWAX's mixers in the component registry: sliding-window attention with RoPE and the mLSTM (both backends)."""

from __future__ import annotations

from iclr26.attention.swax import MLSTMLayer, SlidingWindowAttention
from iclr26.lab.registry import register

_SEQ_LENS = (6, 11, 13)
for _name, _cls, _case in (
    ("swa-w5", SlidingWindowAttention, lambda d_model: SlidingWindowAttention(d_model, n_heads=2, window=5)),
    ("swa-w1", SlidingWindowAttention, lambda d_model: SlidingWindowAttention(d_model, n_heads=4, window=1)),
    ("mlstm-parallel", MLSTMLayer, lambda d_model: MLSTMLayer(d_model, n_heads=2)),
    ("mlstm-recurrent", MLSTMLayer, lambda d_model: MLSTMLayer(d_model, n_heads=2, backend="recurrent")),
):
    register("mixer", _name, _cls, _case, paper="swax", seq_lens=_SEQ_LENS)
