"""How Transformers Learn Causal Structures In-Context: Explainable Mechanism Meets Theoretical Guarantee.

ICLR 2026, OpenReview bpF8zgSt41 (no arXiv id or official code found). A task is a fixed Markov kernel pi on
[d]; a context is L examples and one query of length H that share a random parent tree (pa(h) uniform on the
earlier positions). The package holds the generator, exact Bayesian model averaging over the parent tree and
structure-blind / plug-in baselines (:mod:`.causal_mc`), the two-layer disentangled transformer with two-axis
relative positions, its hand-built BMA construction and a standard-transformer ablation (:mod:`.model`),
training and evaluation (:mod:`.train`), and the harness experiment (:mod:`.experiment`).
"""

from iclr26.mechanisms.icl_causal_structure.causal_mc import (
    bma,
    bma_direct,
    bma_predict,
    check_kernel,
    kl_divergence,
    log_loss,
    map_parent_predict,
    oracle_predict,
    previous_parent_predict,
    sample_contexts,
    sample_task,
    uniform_parent_predict,
    unigram_predict,
)
from iclr26.mechanisms.icl_causal_structure.claim_check import bma_claim_decider
from iclr26.mechanisms.icl_causal_structure.model import (
    DisentangledRPETransformer,
    StandardRPETransformer,
    column_softmax_error,
    construct_bma_transformer,
    row_softmax_error,
    softmax_columns,
)
from iclr26.mechanisms.icl_causal_structure.train import TrainConfig, evaluate, parent_selection_loss, train

__all__ = [
    "DisentangledRPETransformer",
    "StandardRPETransformer",
    "TrainConfig",
    "bma",
    "bma_claim_decider",
    "bma_direct",
    "bma_predict",
    "check_kernel",
    "column_softmax_error",
    "construct_bma_transformer",
    "evaluate",
    "kl_divergence",
    "log_loss",
    "map_parent_predict",
    "oracle_predict",
    "parent_selection_loss",
    "previous_parent_predict",
    "row_softmax_error",
    "sample_contexts",
    "sample_task",
    "softmax_columns",
    "train",
    "uniform_parent_predict",
    "unigram_predict",
]
