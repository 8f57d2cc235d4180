"""Equilibrium Language Models (ELM), ICLR 2026, OpenReview lqJT6xmuH3.

A contiguous group of decoder layers of a causal LM is replaced by one weight-shared layer iterated to a fixed
point (``z_{k+1} = T_phi(W [z_k ; x] + b)``), trained by stochastic Jacobian-free backprop against the dense
model, with a One-Step KV cache for decoding and GPPO (a PPO-clipped policy) to choose the group's start.
"""

from iclr26.inference.equilibrium_lm.baselines import (
    LinearGroup,
    block_influence,
    drop_group,
    group_activations,
    linear_replacement,
    single_layer_replacement,
)
from iclr26.inference.equilibrium_lm.evaluation import (
    arithmetic_items,
    cached_decode_loss,
    exact_match,
    kv_bytes_per_token,
)
from iclr26.inference.equilibrium_lm.fixed_point import (
    FixedPointBlock,
    count_parameters,
    decoder_layers,
    find_fixed_point_block,
    make_elm,
    replace_group,
)
from iclr26.inference.equilibrium_lm.gppo import GPPOPolicy, GPPOSearch
from iclr26.inference.equilibrium_lm.reference import one_step_reference_decode
from iclr26.inference.equilibrium_lm.training import DistillTrainer, ELMTrainer, lm_weight

__all__ = [
    "DistillTrainer",
    "ELMTrainer",
    "FixedPointBlock",
    "GPPOPolicy",
    "GPPOSearch",
    "LinearGroup",
    "arithmetic_items",
    "block_influence",
    "cached_decode_loss",
    "count_parameters",
    "decoder_layers",
    "drop_group",
    "exact_match",
    "find_fixed_point_block",
    "group_activations",
    "kv_bytes_per_token",
    "linear_replacement",
    "lm_weight",
    "make_elm",
    "one_step_reference_decode",
    "replace_group",
    "single_layer_replacement",
]
