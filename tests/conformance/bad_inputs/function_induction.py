"""Bad input to the function-induction prompts, path patching, ablation and model (arXiv 2507.09875)."""

import numpy as np
import torch

from iclr26.lab.transformer import Site
from iclr26.mechanisms.function_induction import (
    FIModelConfig,
    TransformerLensAdapter,
    Vocab,
    ablate_heads,
    addition_prompts,
    bootstrap_relative_effect,
    build_model,
    contrast_pairs,
    induction_scores,
    logit_diff,
    naive_logit_effect,
    offset_profile,
    path_patch,
    path_patch_scan,
    relative_effect,
    sample_training_batch,
    shift_prompts,
    task_pairs,
    train_model,
)

_CFG = FIModelConfig(d_model=8, n_layers=2, n_heads=2, shots=2, steps=1, batch=2)
_MODEL = build_model(_CFG, 0)
_B, _C, _YB, _YC = contrast_pairs(2, 2, seed=0)
_B1, _C1, _, _ = contrast_pairs(2, 1, seed=0)
_METRIC = logit_diff(_YB, _YC)
_R = [Site("resid_final", pos=-1)]

CASES = [
    (lambda: path_patch(_MODEL, _B, _C1, (0, 0), _R, _METRIC), ValueError, ["same token length", "17", "11"]),
    (lambda: path_patch_scan(_MODEL, _B1, _C, _R, _METRIC), ValueError, ["same token length", "11", "17"]),
    (lambda: ablate_heads(_MODEL, _C, [(0, 0)], _B1), ValueError, ["same token length"]),
    (lambda: path_patch(_MODEL, _B, _C, (5, 0), _R, _METRIC), ValueError, ["head", "layer", "(5, 0)"]),
    (lambda: path_patch(_MODEL, _B, _C, "head", _R, _METRIC), ValueError, ["sender", "'head'"]),
    (lambda: path_patch_scan(_MODEL, _B, _C, [], _METRIC), ValueError, ["receivers", "none"]),
    (lambda: path_patch_scan(_MODEL, _B, _C, [Site("z", 1)], _METRIC), ValueError, ["receiver", "hook_z"]),
    (lambda: ablate_heads(_MODEL, _C, [(0, 0)], "zero"), ValueError, ["source", "'mean'", "'zero'"]),
    (lambda: logit_diff(torch.tensor([1, 2]), torch.tensor([1])), ValueError, ["y_base", "y_cont", "shapes"]),
    (lambda: relative_effect(1.0, 2.0, 2.0), ValueError, ["corrupt and clean", "equal"]),
    (
        lambda: bootstrap_relative_effect(torch.zeros(3, 4), torch.zeros(5), torch.ones(5)),
        ValueError,
        ["f_cont", "n_prompts"],
    ),
    (lambda: naive_logit_effect(_MODEL, (0, 3), _C, [_C]), ValueError, ["head", "(0, 3)"]),
    (lambda: offset_profile(torch.zeros(3)), ValueError, ["heat", "2-D"]),
    (
        lambda: induction_scores(_MODEL, torch.zeros(2, 4, dtype=torch.long)),
        ValueError,
        ["tokens", "1 + 2 * half"],
    ),
    (lambda: TransformerLensAdapter(object()), TypeError, ["tl_model", "HookedTransformer"]),
    (lambda: Vocab().token("%"), ValueError, ["unknown symbol", "'%'"]),
    (lambda: Vocab().token(100), ValueError, ["number 100", "0..99"]),
    (lambda: Vocab().decode([500]), ValueError, ["token id 500", "0..129"]),
    (lambda: Vocab(n_letters=30), ValueError, ["n_letters", "<= 26"]),
    (lambda: contrast_pairs(0, 2), ValueError, ["n", ">= 1"]),
    (lambda: contrast_pairs(2, 2, max_operand=60), ValueError, ["max_operand=60", "outside"]),
    (lambda: task_pairs("caesar", 2, 2), ValueError, ["task", "'caesar'", "off_by_one"]),
    (lambda: task_pairs("base8", 2, 2, seed=-1), ValueError, ["seed", ">= 0"]),
    (lambda: addition_prompts(np.zeros((2, 3)), 0), ValueError, ["operands", "(n, shots + 1, 2)"]),
    (lambda: addition_prompts(np.zeros((1, 2, 2), int), 1, base=8), ValueError, ["base-8", "delta=1"]),
    (lambda: addition_prompts(np.zeros((1, 2, 2), int), 0, base=16), ValueError, ["base", "8 or 10", "16"]),
    (lambda: shift_prompts(np.zeros((1, 2), int), 1, "colours"), ValueError, ["domain", "'colours'"]),
    (lambda: shift_prompts(np.full((1, 2), 99), 1), ValueError, ["delta=1", "outside"]),
    (lambda: sample_training_batch(2, 2, None), TypeError, ["rng", "Generator"]),
    (lambda: sample_training_batch(0, 2, np.random.default_rng(0)), ValueError, ["batch", ">= 1"]),
    (lambda: FIModelConfig(lr=float("nan")), ValueError, ["lr", "finite"]),
    (lambda: FIModelConfig(max_operand=60), ValueError, ["max_operand", "<= 48"]),
    (lambda: FIModelConfig(steps=0), ValueError, ["steps", ">= 1"]),
    (lambda: build_model(None), TypeError, ["cfg", "FIModelConfig"]),
    (lambda: train_model(_CFG, -1), ValueError, ["seed", ">= 0"]),
]
