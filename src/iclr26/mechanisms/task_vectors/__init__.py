"""Understanding Task Vectors in In-Context Learning: Emergence, Functionality, and Limitations.

Dong, Jiang, Zhu, Ning; ICLR 2026; arXiv 2506.09048, OpenReview CLBVilFk7N. A constrained linear-attention
transformer on triplet regression prompts (x, ->, y), task-vector extraction/injection and the risks
R_0, R_1, R_n, R_TV; a small softmax GPT on base / inverse / bijection / copy mapping prompts.
"""

from iclr26.mechanisms.task_vectors.discrete import (
    TASK_TYPES,
    MapPool,
    evaluate_discrete,
    make_gpt,
    map_pool,
    map_prompts,
    train_gpt,
)
from iclr26.mechanisms.task_vectors.linear import (
    FORMATS,
    ICLBatch,
    LinearAttentionTransformer,
    arrow_positions,
    copies_prompt,
    linear_icl_data,
    normalized_risk,
    prompt_length,
    rank_share,
    zero_shot_prompt,
)
from iclr26.mechanisms.task_vectors.risks import LinearRisks, linear_risks, train_linear
from iclr26.mechanisms.task_vectors.vectors import ARROW_ID, extract, inject, multi_inject

__all__ = [
    "ARROW_ID",
    "FORMATS",
    "TASK_TYPES",
    "ICLBatch",
    "LinearAttentionTransformer",
    "LinearRisks",
    "MapPool",
    "arrow_positions",
    "copies_prompt",
    "evaluate_discrete",
    "extract",
    "inject",
    "linear_icl_data",
    "linear_risks",
    "make_gpt",
    "map_pool",
    "map_prompts",
    "multi_inject",
    "normalized_risk",
    "prompt_length",
    "rank_share",
    "train_gpt",
    "train_linear",
    "zero_shot_prompt",
]
