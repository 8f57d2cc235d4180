"""SWAX mixers (arXiv 2509.24552): sliding-window attention with RoPE and the mLSTM (parallel and recurrent)."""

from iclr26.attention.swax import MLSTMLayer, SlidingWindowAttention

MIXERS = {
    "swa-w5": lambda d_model: SlidingWindowAttention(d_model, n_heads=2, window=5),
    "swa-w1": lambda d_model: SlidingWindowAttention(d_model, n_heads=4, window=1),
    "mlstm-parallel": lambda d_model: MLSTMLayer(d_model, n_heads=2),
    "mlstm-recurrent": lambda d_model: MLSTMLayer(d_model, n_heads=2, backend="recurrent"),
}
SEQ_LENS = (6, 11, 13)
