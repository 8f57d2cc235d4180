"""Hilbert-guided local attention: "Hilbert-Guided Sparse Local Attention" (ICLR 2026; arXiv 2511.05832).

Image tokens are reordered along a generalized Hilbert curve so that 2-D local windows and neighbourhoods become
contiguous runs of the 1-D sequence; local masks then leave more tiles of the attention matrix empty, which
block-sparse kernels (FlexAttention) skip.
"""

from iclr26.attention.hilbert_attention.attention import (
    GlobalAttention,
    HilbertSlideAttention,
    HilbertWindowAttention,
    NeighborhoodAttention2d,
    SwinWindowAttention,
    hilbert_slide_attention,
    hilbert_window_attention,
    masked_reference,
    neighborhood_attention_2d,
    rpb_bias,
    rpb_index,
    swin_window_attention,
)
from iclr26.attention.hilbert_attention.curve import (
    curve_index,
    from_curve,
    gilbert_order,
    rowmajor_order,
    to_curve,
)
from iclr26.attention.hilbert_attention.masks import (
    BlockSparseAttention,
    block_sparsity,
    block_stats,
    local_mask,
)

__all__ = [
    "BlockSparseAttention",
    "GlobalAttention",
    "HilbertSlideAttention",
    "HilbertWindowAttention",
    "NeighborhoodAttention2d",
    "SwinWindowAttention",
    "block_sparsity",
    "block_stats",
    "curve_index",
    "from_curve",
    "gilbert_order",
    "hilbert_slide_attention",
    "hilbert_window_attention",
    "local_mask",
    "masked_reference",
    "neighborhood_attention_2d",
    "rowmajor_order",
    "rpb_bias",
    "rpb_index",
    "swin_window_attention",
    "to_curve",
]
