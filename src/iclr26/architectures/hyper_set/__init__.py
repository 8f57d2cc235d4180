"""Hyper-SET: Designing Transformers via Hyperspherical Energy Minimization (Hu, Zou, Xu; ICLR 2026).

arXiv 2502.11646, OpenReview FinhjyDgYA. Public API: :class:`HyperSETBlock` (one energy-descent iteration with
``energy_attn`` / ``energy_ff``), :class:`HyperSET` (recurrent-depth model, ``n_iter`` override,
``return_trajectory``), :class:`StepSizeNet`, :class:`DepthwiseLoRA`, the baselines (:class:`VanillaTransformer`,
:class:`CRATE`, :class:`EnergyTransformer`) and the data (:func:`digit_patches`, :func:`generate_sudoku`).
"""

from iclr26.architectures.hyper_set.baselines import CRATE, EnergyTransformer, VanillaTransformer
from iclr26.architectures.hyper_set.data import (
    count_solutions,
    digit_patches,
    generate_sudoku,
    is_solution,
    sudoku_dataset,
)
from iclr26.architectures.hyper_set.model import (
    DepthwiseLoRA,
    HyperSET,
    HyperSETBlock,
    StepSizeNet,
    average_angle,
    effective_rank,
)

__all__ = [
    "CRATE",
    "DepthwiseLoRA",
    "EnergyTransformer",
    "HyperSET",
    "HyperSETBlock",
    "StepSizeNet",
    "VanillaTransformer",
    "average_angle",
    "count_solutions",
    "digit_patches",
    "effective_rank",
    "generate_sudoku",
    "is_solution",
    "sudoku_dataset",
]
