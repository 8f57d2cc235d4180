"""AtteNT: Nonparametric Teaching of Attention Learners (arXiv 2602.20461, OpenReview ZXsHMy1hmX, ICLR 2026).

The AtteNT teacher as released (Jianghui-Wang/AttenNT): score the pool by per-example loss, train on the
highest-loss fraction for a few epochs of each cycle and on the full pool for the rest, the fraction rising
over the cycles (:class:`AtteNTCycle`, :class:`AtteNTSampler`); the GraNT gradient-norm curriculum this package
first used (:func:`grant_sampler`); baselines, cost accounting in forward-pass units, and tiny attention learners
(ViT-like digits, a synthetic sequence-property task).
"""

from iclr26.optim.attent.learners import (
    AttentionClassifier,
    TrainHistory,
    digits_patches,
    sequence_property_data,
    sequence_property_labels,
    train_learner,
)
from iclr26.optim.attent.schedules import (
    AtteNTCycle,
    ConstantRatio,
    CycleEpoch,
    LinearRatio,
    RatioSchedule,
    StepRatio,
    default_step_ratio,
    n_selected,
)
from iclr26.optim.attent.scores import (
    ScoreFn,
    causal_lm_loss_score,
    causal_lm_score,
    classification_loss_score,
    classification_score,
    regression_loss_score,
    regression_score,
)
from iclr26.optim.attent.selection import (
    AtteNTSampler,
    CostMeter,
    FullDataSampler,
    RandomSubsetSampler,
    SubsetSampler,
    grant_sampler,
    gumbel_topk_indices,
    topk_indices,
)

__all__ = [
    "AtteNTCycle",
    "AtteNTSampler",
    "AttentionClassifier",
    "ConstantRatio",
    "CostMeter",
    "CycleEpoch",
    "FullDataSampler",
    "LinearRatio",
    "RandomSubsetSampler",
    "RatioSchedule",
    "ScoreFn",
    "StepRatio",
    "SubsetSampler",
    "TrainHistory",
    "causal_lm_loss_score",
    "causal_lm_score",
    "classification_loss_score",
    "classification_score",
    "default_step_ratio",
    "digits_patches",
    "grant_sampler",
    "gumbel_topk_indices",
    "n_selected",
    "regression_loss_score",
    "regression_score",
    "sequence_property_data",
    "sequence_property_labels",
    "topk_indices",
    "train_learner",
]
