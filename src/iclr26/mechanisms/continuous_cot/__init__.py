"""Emergence of Superposition: training dynamics of chain of continuous thought (Zhu et al., ICLR 2026).

arXiv 2509.23365, OpenReview lsJwX9Jf5u. Public API: the ProsQA-like reachability generator
(:func:`make_prosqa_like`, :func:`bfs_layers`, :func:`build_instance`), the Coconut wrapper with its stage
curriculum (:class:`CoconutWrapper`, :class:`TrainConfig`, :func:`train`, :func:`evaluate_accuracy`), and the
measurements: index-matching logit (:func:`track_index_matching_logit`), thought superposition
(:func:`thought_superposition`) and the answer-logit split into mu_A / mu_R (:func:`answer_logit_decomposition`).
"""

from iclr26.mechanisms.continuous_cot.claim_check import (
    accuracy_gap_decider,
    bounded_mu_decider,
    mu_plateau_stats,
    superposition_decider,
)
from iclr26.mechanisms.continuous_cot.coconut import (
    METHODS,
    CoconutOutput,
    CoconutWrapper,
    IndexMatching,
    TrainConfig,
    answer_logit_decomposition,
    capture_attention,
    evaluate_accuracy,
    make_model,
    stage_loss,
    thought_superposition,
    track_index_matching_logit,
    train,
)
from iclr26.mechanisms.continuous_cot.reachability import (
    SPECIALS,
    ReachabilityData,
    bfs_layers,
    build_instance,
    make_prosqa_like,
    reshuffle,
    special_id,
    vocab_size,
)

__all__ = [
    "METHODS",
    "SPECIALS",
    "CoconutOutput",
    "CoconutWrapper",
    "IndexMatching",
    "ReachabilityData",
    "TrainConfig",
    "accuracy_gap_decider",
    "answer_logit_decomposition",
    "bfs_layers",
    "bounded_mu_decider",
    "build_instance",
    "capture_attention",
    "evaluate_accuracy",
    "make_model",
    "make_prosqa_like",
    "mu_plateau_stats",
    "reshuffle",
    "special_id",
    "stage_loss",
    "superposition_decider",
    "thought_superposition",
    "track_index_matching_logit",
    "train",
    "vocab_size",
]
