"""TOSS: "Token-level Data Selection for Safe LLM Fine-tuning" (Li et al., ICLR 2026, arXiv 2603.01185).

Each response token of a fine-tuning set is scored by the loss difference between a utility-oriented and a
safety-degraded reference model; the riskiest fraction rho is dropped from the fine-tuning loss. Here: scoring,
selection (global or per sample), selective SFT, TOSS-Pro, the baselines (sample filtering, random drop,
first-k masking; plain SFT and data mixing are ``masked_sft`` with no mask) and a synthetic instruction world.

Example
-------
>>> import numpy as np, torch
>>> from iclr26.agents.toss import World, risk_scores, select, token_losses
>>> from iclr26.agents.toss.world import VOCAB_SIZE
>>> from iclr26.lab.tinylm import TinyLMConfig, build_model
>>> model = build_model(TinyLMConfig(arch="gpt2", d_model=32, n_layers=1, n_heads=2, seq_len=48), VOCAB_SIZE)
>>> data = World().custom_set(np.random.default_rng(0), 20)
>>> losses = token_losses(model, data)
>>> masks = select(risk_scores(losses, losses), 0.2)  # identical references: all scores 0
>>> sum(int((~m).sum()) for m in masks) == int(0.2 * sum(len(x) for x in losses))
True
"""

from iclr26.agents.toss.core import (
    TOSSPro,
    check_same_vocab,
    fine_tune,
    first_k_masks,
    generate,
    masked_loss,
    masked_sft,
    random_masks,
    risk_scores,
    sample_filter_masks,
    select,
    token_losses,
)
from iclr26.agents.toss.world import Example, World, is_refusal

__all__ = [
    "Example",
    "TOSSPro",
    "World",
    "check_same_vocab",
    "fine_tune",
    "first_k_masks",
    "generate",
    "is_refusal",
    "masked_loss",
    "masked_sft",
    "random_masks",
    "risk_scores",
    "sample_filter_masks",
    "select",
    "token_losses",
]
