"""Reproduction of "HyperPrune: Learning Semi-Structured Sparsity for LLMs via Shared and Context-Aware
Hypernetwork" (Lu Sun, Jun Sakuma; ICLR 2026, OpenReview lqjQs2lVNm).

A small hypernetwork shared by all decoder blocks, conditioned on layer and component embeddings, outputs logits
over each weight group's admissible n:m patterns; it is trained block by block on the local reconstruction error
with a continual-learning regulariser and the paper's feature-outlier term (the kept weight energy weighted by
each input channel's second moment, subtracted from the loss). Magnitude, Wanda, SparseGPT and a
MaskLLM-lite baseline are written here for comparison. Works on any Hugging Face causal LM (``nn.Linear`` or
GPT-2 ``Conv1D`` projections).
"""

from iclr26.inference.hyperprune.baselines import (
    magnitude_prune,
    maskllm_lite_prune,
    sparsegpt_matrix,
    sparsegpt_prune,
    wanda_prune,
    wanda_scores,
)
from iclr26.inference.hyperprune.layers import (
    block_linears,
    find_blocks,
    get_weight,
    run_sequential,
    set_weight,
)
from iclr26.inference.hyperprune.masks import (
    anneal_tau,
    apply_nm_mask,
    gumbel_pattern_mask,
    is_nm_sparse,
    nm_mask_from_scores,
    nm_patterns,
    pattern_logits_from_scores,
)
from iclr26.inference.hyperprune.pruner import (
    OUTLIER_REGS,
    BlockRecord,
    HyperNetwork,
    HyperPruner,
    group_features,
    outlier_retention,
    reconstruction_error,
)

__all__ = [
    "OUTLIER_REGS",
    "BlockRecord",
    "HyperNetwork",
    "HyperPruner",
    "anneal_tau",
    "apply_nm_mask",
    "block_linears",
    "find_blocks",
    "get_weight",
    "group_features",
    "gumbel_pattern_mask",
    "is_nm_sparse",
    "magnitude_prune",
    "maskllm_lite_prune",
    "nm_mask_from_scores",
    "nm_patterns",
    "outlier_retention",
    "pattern_logits_from_scores",
    "reconstruction_error",
    "run_sequential",
    "set_weight",
    "sparsegpt_matrix",
    "sparsegpt_prune",
    "wanda_prune",
    "wanda_scores",
]
