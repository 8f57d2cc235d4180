"""Bad input to the entity-binding prompts, counterfactuals, interventions and causal model (arXiv 2510.06182)."""

import numpy as np
import torch

from iclr26.mechanisms.entity_binding import (
    GPTConfig,
    MixCausalModel,
    agreement,
    build_gpt,
    interchange,
    make_counterfactual,
    make_prompts,
    sample_training_batch,
    train_binding_gpt,
)

_T3 = np.array([[0, 1, 2], [0, 1, 2]])

_O3 = make_prompts(3, 1, 0, seed=0)[0]
_O2 = make_prompts(2, 1, 0, seed=0)[0]
_MODEL = build_gpt(GPTConfig(d_model=8, n_layers=1, n_heads=1, n_max=3, filler_max=0), seed=0)

CASES = [
    (lambda: make_prompts(1, 1, 0), ValueError, ["n", ">= 2"]),
    (lambda: make_prompts(4, 0, 0), ValueError, ["q", ">= 1 and <= 4"]),
    (lambda: make_prompts(4, 5, 0), ValueError, ["q", ">= 1 and <= 4"]),
    (lambda: make_prompts(4, 1, 0, vocab_A=[30, 31, 32]), ValueError, ["vocab_A", "at least"]),
    (lambda: make_prompts(4, 1, 0, vocab_B=[300, 301]), ValueError, ["vocab_B", "at least"]),
    (lambda: make_prompts(3, 1, 7), ValueError, ["template"]),
    (lambda: make_counterfactual(_O2), ValueError, ["n >= 3", "three distinct targets"]),
    (lambda: make_counterfactual(_O3, mode="swap"), ValueError, ["mode"]),
    (lambda: make_counterfactual("prompt"), TypeError, ["BindingPrompt"]),
    (lambda: interchange(_MODEL, _O3, _O3, 5), ValueError, ["layer"]),
    (lambda: interchange(_MODEL, [_O3, _O3], [_O3], 0), ValueError, ["pair"]),
    (lambda: MixCausalModel(1), ValueError, ["n", ">= 2"]),
    (lambda: MixCausalModel(4, ("semantic",)), ValueError, ["mechanisms"]),
    (lambda: MixCausalModel(3).predict(np.array([[0, 1, 5]])), ValueError, ["targets", "0..2"]),
    (lambda: agreement([0.5, 0.6], [0.5, 0.5]), ValueError, ["sum to 1"]),
    (lambda: make_prompts(3, 1, 0, seed=-1), ValueError, ["seed", ">= 0"]),
    (lambda: make_prompts(3, 1, 0, seed=1.5), TypeError, ["seed", "int"]),
    (lambda: make_counterfactual(_O3, seed=-1), ValueError, ["seed", ">= 0"]),
    (lambda: GPTConfig(lr=float("inf")), ValueError, ["lr", "finite"]),
    (lambda: GPTConfig(lr=float("nan")), ValueError, ["lr", "finite"]),
    (lambda: GPTConfig(weight_decay=-1.0), ValueError, ["weight_decay", ">= 0"]),
    (lambda: GPTConfig(n_min=5, n_max=3), ValueError, ["n_max", ">= 5"]),
    (lambda: GPTConfig(steps=0), ValueError, ["steps", ">= 1"]),
    (lambda: build_gpt(GPTConfig(), -1), ValueError, ["seed", ">= 0"]),
    (lambda: build_gpt(None), TypeError, ["cfg", "GPTConfig"]),
    (lambda: train_binding_gpt(GPTConfig(), -1), ValueError, ["seed", ">= 0"]),
    (lambda: sample_training_batch(2, 3, None), TypeError, ["rng", "Generator"]),
    (lambda: sample_training_batch(0, 3, np.random.default_rng(0)), ValueError, ["batch", ">= 1"]),
    (
        lambda: MixCausalModel(3).fit(torch.full((2, 3), 1 / 3), _T3, lr=float("inf")),
        ValueError,
        ["lr", "finite"],
    ),
    (lambda: MixCausalModel(3).predict(np.array([[0.5, 1, 2]])), TypeError, ["targets", "integer"]),
]
