"""Bad input to the Hilbert local-attention API (arXiv 2511.05832)."""

import torch

from iclr26.attention.hilbert_attention import (
    BlockSparseAttention,
    GlobalAttention,
    HilbertWindowAttention,
    block_sparsity,
    block_stats,
    curve_index,
    from_curve,
    gilbert_order,
    hilbert_slide_attention,
    hilbert_window_attention,
    local_mask,
    masked_reference,
    neighborhood_attention_2d,
    rpb_bias,
    rpb_index,
    swin_window_attention,
)

X = torch.zeros(1, 2, 64, 4)
MASK = torch.ones(64, 64, dtype=torch.bool)
ORDER = gilbert_order(8, 8)
K3 = torch.zeros(1, 2, 64, 3)

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
    (lambda: hilbert_window_attention(X.long(), 8, 8, 16), TypeError, ["x", "floating-point"]),
    (lambda: hilbert_window_attention(X, 8, 8, 16, scale=float("nan")), ValueError, ["scale", "finite"]),
    (lambda: hilbert_slide_attention(X, 8, 8, 3, scale=-1.0), ValueError, ["scale", "> 0"]),
    (lambda: swin_window_attention(X, 8, 8, 4, k=K3), ValueError, ["k", "query dim"]),
    (lambda: neighborhood_attention_2d(X, 8, 8, 3, k=K3), ValueError, ["k", "query dim"]),
    (lambda: hilbert_window_attention(X, 8, 8, 16, v=X.long()), TypeError, ["v", "floating-point"]),
    (
        lambda: masked_reference(X, X, X, torch.ones(10, 10, dtype=torch.bool), ORDER, 8, 8),
        ValueError,
        ["mask", "(64, 64)"],
    ),
    (lambda: masked_reference(X, X, X, MASK, ORDER, 4, 4), ValueError, ["H*W", "N"]),
    (lambda: rpb_bias(torch.zeros(10, 2), ORDER, 8, 8), ValueError, ["rpb", "(225, 2)"]),
    (lambda: rpb_bias(torch.zeros(225, 2), ORDER + 100, 8, 8), ValueError, ["order", "inside the 8x8 grid"]),
    (lambda: rpb_index(ORDER.float(), ORDER, 8, 8), TypeError, ["coords_q", "integer"]),
    (lambda: rpb_index(ORDER, ORDER, 0, 8), ValueError, ["H", ">= 1"]),
    (lambda: rpb_index(ORDER[:, :1], ORDER, 8, 8), ValueError, ["coords_q", "(y, x)"]),
    (lambda: curve_index(ORDER.float(), 8, 8), TypeError, ["order", "integer"]),
    (lambda: curve_index(ORDER - 1, 8, 8), ValueError, ["order", "inside the 8x8 grid"]),
    (lambda: local_mask(ORDER - 10, "window", 4), ValueError, ["order", ">= 0"]),
    (lambda: block_sparsity(torch.ones(0, 0, dtype=torch.bool)), ValueError, ["mask", "empty"]),
    (lambda: BlockSparseAttention(MASK, 16)(X, K3, X), ValueError, ["k", "like q"]),
    (lambda: BlockSparseAttention(MASK, 16)(X.long(), X, X), TypeError, ["q", "floating-point"]),
    (lambda: GlobalAttention(8, 2, 4, 4)(torch.ones(1, 4, 4, 8).long()), TypeError, ["x", "floating-point"]),
]
