"""Bad input to the SWAX components (arXiv 2509.24552)."""

import torch

from iclr26.attention.swax import (
    MLSTMLayer,
    SlidingWindowAttention,
    StochasticWindowSampler,
    SWAXModel,
    apply_rope,
    mlstm_parallel,
)

_Q = torch.zeros(1, 1, 4, 2)

CASES = [
    (lambda: SlidingWindowAttention(8, 2, window=0), ValueError, ["window", ">= 1"]),
    (lambda: SlidingWindowAttention(8, 2, window=2.5), ValueError, ["window", "integer"]),
    (lambda: SlidingWindowAttention(8, 2, window=4)(torch.zeros(1, 3, 8), window=-1), ValueError, ["window"]),
    (lambda: StochasticWindowSampler((16, 12.5)), ValueError, ["choices[1]", "integer"]),
    (lambda: StochasticWindowSampler((16, 128), (0.5, 0.6)), ValueError, ["probs", "sum to 1"]),
    (lambda: StochasticWindowSampler((16, 128), anneal_last_frac=0.1), ValueError, ["total_steps"]),
    (lambda: SWAXModel(4, 16, 2, pattern="SMX", vocab_size=8), ValueError, ["pattern", "'S'", "'M'"]),
    (lambda: SWAXModel(4, 18, 4, vocab_size=8), ValueError, ["d_model", "divisible", "heads"]),
    (lambda: MLSTMLayer(10, 3), ValueError, ["d_model", "divisible"]),
    (lambda: SlidingWindowAttention(6, 2, window=4), ValueError, ["RoPE", "even", "d_head"]),
    (lambda: apply_rope(torch.zeros(2, 3), torch.arange(2)), ValueError, ["RoPE", "even"]),
    (lambda: mlstm_parallel(_Q, _Q, _Q, torch.zeros(1, 1, 3), torch.zeros(1, 1, 4)), ValueError, ["i_pre"]),
    (
        lambda: SWAXModel(2, 8, 2, vocab_size=5).step(torch.zeros(1, 2, dtype=torch.long), []),
        ValueError,
        ["tokens"],
    ),
]
