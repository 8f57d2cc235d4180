"""Mixing Mechanisms: How Language Models Retrieve Bound Entities In-Context (Gur-Arieh, Geva, Geiger).

arXiv 2510.06182, ICLR 2026 (OpenReview UJ2UUjT2ko). Binding-task prompts and counterfactuals, last-token
residual-stream interchange interventions on the shared hookable transformer, a tiny GPT trained from scratch on
binding lists, and the positional / lexical / reflexive mixture causal model with its JS-divergence fit.
"""

from iclr26.mechanisms.entity_binding.binding import (
    VOCAB_A,
    VOCAB_B,
    VOCAB_SIZE,
    BindingPrompt,
    Counterfactual,
    candidate_distribution,
    clean_accuracy,
    interchange,
    make_counterfactual,
    make_prompts,
    sample_training_batch,
)
from iclr26.mechanisms.entity_binding.causal_model import MECHANISMS, MixCausalModel, agreement, js_divergence
from iclr26.mechanisms.entity_binding.gpt import GPTConfig, build_gpt, train_binding_gpt

__all__ = [
    "MECHANISMS",
    "VOCAB_A",
    "VOCAB_B",
    "VOCAB_SIZE",
    "BindingPrompt",
    "Counterfactual",
    "GPTConfig",
    "MixCausalModel",
    "agreement",
    "build_gpt",
    "candidate_distribution",
    "clean_accuracy",
    "interchange",
    "js_divergence",
    "make_counterfactual",
    "make_prompts",
    "sample_training_batch",
    "train_binding_gpt",
]
