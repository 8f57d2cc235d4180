"""Bad input to the Hilbert local-attention API (arXiv 2511.05832)."""

import torch

from iclr26.attention.hilbert_attention import (
    BlockSparseAttention,
    HilbertWindowAttention,
    block_stats,
    from_curve,
    gilbert_order,
    hilbert_slide_attention,
    hilbert_window_attention,
    local_mask,
)

X = torch.zeros(1, 2, 64, 4)
MASK = torch.ones(64, 64, dtype=torch.bool)

CASES = [
    (lambda: hilbert_window_attention(X, 7, 9, 16), ValueError, ["H*W", "N"]),
    (lambda: from_curve(torch.zeros(1, 10, 3), 3, 3), ValueError, ["H*W", "N"]),
    (lambda: hilbert_window_attention(X, 8, 8, 24), ValueError, ["window_tokens", "divide"]),
    (lambda: hilbert_slide_attention(X, 8, 8, 8), ValueError, ["kernel_tokens", "odd"]),
    (lambda: hilbert_slide_attention(X, 8, 8, 65), ValueError, ["kernel_tokens", "<= N"]),
    (lambda: block_stats(MASK, 0), ValueError, ["block size", ">= 1"]),
    (lambda: BlockSparseAttention(MASK, block=0), ValueError, ["block size", ">= 1"]),
    (lambda: HilbertWindowAttention(8, 2, 8, 8, 16)(torch.zeros(2, 64, 8)), ValueError, ["4-D", "x"]),
    (lambda: local_mask(gilbert_order(4, 4), "diagonal", 4), ValueError, ["kind", "one of"]),
    (lambda: gilbert_order(0, 4), ValueError, ["H", ">= 1"]),
    (lambda: local_mask(gilbert_order(4, 4), "neighborhood", 4), ValueError, ["size", "odd"]),
]
