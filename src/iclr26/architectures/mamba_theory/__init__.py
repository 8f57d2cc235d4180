"""Mamba-GD theory: "A Theoretical Analysis of Mamba's Training Dynamics: Filtering Relevant Features for
Generalization in State Space Models" (Shandirasegaran, Li, Zhang, Wang, Zhang; ICLR 2026; arXiv 2602.12499,
OpenReview hvpKqEYJjj).

A reconstructed one-layer selective SSM (scalar input-dependent gate, selective recurrence, fixed-sign ReLU head)
trained by GD on majority-voting and locality-structured token data, with the gate-alignment diagnostics the
theory predicts, and two baselines (frozen-gate SSM, softmax-attention pooling).
"""

from iclr26.architectures.mamba_theory.data import (
    SequenceData,
    locality_labels,
    majority_labels,
    make_locality_data,
    make_majority_data,
    orthonormal_patterns,
)
from iclr26.architectures.mamba_theory.model import AttentionClassifier, SelectiveSSMClassifier
from iclr26.architectures.mamba_theory.train import TrainResult, classification_error, train_gd

__all__ = [
    "AttentionClassifier",
    "SelectiveSSMClassifier",
    "SequenceData",
    "TrainResult",
    "classification_error",
    "locality_labels",
    "majority_labels",
    "make_locality_data",
    "make_majority_data",
    "orthonormal_patterns",
    "train_gd",
]
