"""Denoising-Heads: Mechanism of Task-oriented Information Removal in In-context Learning.

Cho, Yang, Minegishi, Inoue; arXiv 2509.21012, ICLR 2026 (OpenReview VAv1rrPR1A). A library analogue: a tiny
GPT trained on a synthetic multi-task ICL family, a learned low-rank filter that steers its zero-shot query
states to one task, the off-subspace ratio of zero-shot vs few-shot states, and a per-head ablation scan that
finds the heads doing the task-oriented removal ("denoising heads").
"""

from iclr26.mechanisms.icl_info_removal import inforemoval
from iclr26.mechanisms.icl_info_removal.inforemoval import (
    HeadScan,
    LowRankFilter,
    alignment,
    head_means,
    head_scan,
    hidden_states,
    learn_filter,
    metrics,
    off_subspace_ratio,
    pca_filter,
    random_filter,
    run_ablated,
    run_filtered,
    selectivity,
)
from iclr26.mechanisms.icl_info_removal.model import GPTConfig, build_model, train_icl_model
from iclr26.mechanisms.icl_info_removal.task import (
    ICLBatch,
    TaskFamily,
    icl_prompts,
    make_task_family,
    training_sequences,
)

__all__ = [
    "GPTConfig",
    "HeadScan",
    "ICLBatch",
    "LowRankFilter",
    "TaskFamily",
    "alignment",
    "build_model",
    "head_means",
    "head_scan",
    "hidden_states",
    "icl_prompts",
    "inforemoval",
    "learn_filter",
    "make_task_family",
    "metrics",
    "off_subspace_ratio",
    "pca_filter",
    "random_filter",
    "run_ablated",
    "run_filtered",
    "selectivity",
    "train_icl_model",
    "training_sequences",
]
