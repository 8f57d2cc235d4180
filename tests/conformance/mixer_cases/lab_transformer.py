"""The lab's softmax attention, so the battery is known to pass on the reference mixer."""

from iclr26.lab.transformer import MultiHeadAttention

MIXERS = {
    "softmax-causal": lambda d_model: MultiHeadAttention(
        d_model, n_heads=2, d_head=d_model // 2, causal=True
    ),
    "softmax-bidirectional": lambda d_model: MultiHeadAttention(d_model, 2, d_model // 2, causal=False),
}
NONCAUSAL = {"softmax-bidirectional"}
