"""Hybrid ZO/FO fine-tuning: "New Hybrid Fine-Tuning Paradigm for LLMs: Algorithm Design and Convergence
Analysis Framework".

Ma, Yu, Huang; arXiv 2604.09940 (ICLR 2026; OpenReview id not found).

The base network is updated with a memory-free zeroth-order (SPSA, MeZO-style) estimate while a PEFT module
(LoRA) is updated with ordinary backprop gradients on the same minibatch, with random-reshuffling minibatches.
This package holds the optimizers (:class:`HybridZOFO`, :class:`MeZO` and their shared SPSA functions), an
in-house LoRA (:class:`LoRALinear`, :class:`LoRADelta`, :func:`add_lora`; ``peft`` is not installed), the
reshuffling sampler, the two synthetic tasks and the tiny transformer classifier used by the experiment.
"""

from iclr26.optim.hybrid_zo_finetune.data import (
    ReshuffleLoader,
    key_sequences,
    task_a,
    task_b,
    task_b_mapping,
)
from iclr26.optim.hybrid_zo_finetune.finetune import (
    METHODS,
    PASS_COST,
    FinetuneSpec,
    accuracy,
    finetune,
    pretrain,
)
from iclr26.optim.hybrid_zo_finetune.lora import LoRADelta, LoRALinear, add_lora
from iclr26.optim.hybrid_zo_finetune.model import TinyClassifier
from iclr26.optim.hybrid_zo_finetune.zo import (
    HybridZOFO,
    MeZO,
    perturb_,
    spsa_projections,
    step_seed,
    zo_update_,
)

__all__ = [
    "METHODS",
    "PASS_COST",
    "FinetuneSpec",
    "HybridZOFO",
    "LoRADelta",
    "LoRALinear",
    "MeZO",
    "ReshuffleLoader",
    "TinyClassifier",
    "accuracy",
    "add_lora",
    "finetune",
    "key_sequences",
    "perturb_",
    "pretrain",
    "spsa_projections",
    "step_seed",
    "task_a",
    "task_b",
    "task_b_mapping",
    "zo_update_",
]
