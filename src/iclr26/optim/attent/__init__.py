"""AtteNT: Nonparametric Teaching of Attention Learners (arXiv 2602.20461, OpenReview ZXsHMy1hmX, ICLR 2026).

Greedy functional-gradient example selection (the teacher keeps the pool examples whose loss gradient with
respect to the learner's output is largest, on a growing-ratio curriculum), its baselines, cost accounting in
forward-pass units, and tiny attention learners (ViT-like digits, a synthetic sequence-property task).
"""

from iclr26.optim.attent.learners import (
    AttentionClassifier,
    TrainHistory,
    digits_patches,
    sequence_property_data,
    sequence_property_labels,
    train_learner,
)
from iclr26.optim.attent.selection import (
    AtteNTSampler,
    ConstantRatio,
    CostMeter,
    FullDataSampler,
    LinearRatio,
    RandomSubsetSampler,
    RatioSchedule,
    ScoreFn,
    StepRatio,
    SubsetSampler,
    causal_lm_score,
    classification_score,
    default_step_ratio,
    n_selected,
    regression_score,
    topk_indices,
)

__all__ = [
    "AtteNTSampler",
    "AttentionClassifier",
    "ConstantRatio",
    "CostMeter",
    "FullDataSampler",
    "LinearRatio",
    "RandomSubsetSampler",
    "RatioSchedule",
    "ScoreFn",
    "StepRatio",
    "SubsetSampler",
    "TrainHistory",
    "causal_lm_score",
    "classification_score",
    "default_step_ratio",
    "digits_patches",
    "n_selected",
    "regression_score",
    "sequence_property_data",
    "sequence_property_labels",
    "topk_indices",
    "train_learner",
]
