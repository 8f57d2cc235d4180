"""Bad input to the denoising-heads reproduction's public API (arXiv 2509.21012)."""

import torch

from iclr26.lab.transformer import Transformer
from iclr26.mechanisms.icl_info_removal import (
    GPTConfig,
    LowRankFilter,
    alignment,
    build_model,
    head_means,
    head_scan,
    hidden_states,
    icl_prompts,
    learn_filter,
    make_task_family,
    off_subspace_ratio,
    pca_filter,
    random_filter,
    run_ablated,
    run_filtered,
    selectivity,
    train_icl_model,
    training_sequences,
)

_FAM = make_task_family(n_inputs=8, n_tasks=2, n_labels=2, seed=0)
_MODEL = Transformer(vocab_size=_FAM.vocab_size, seq_len=5, d_model=8, n_layers=2, n_heads=2, init_seed=0)
_TOK = torch.zeros(2, 3, dtype=torch.long)
_GEN = torch.Generator().manual_seed(0)

CASES = [
    (lambda: LowRankFilter(8, 9), ValueError, ["rank", "r"]),
    (lambda: LowRankFilter(8, 0), ValueError, ["rank", "r"]),
    (lambda: run_ablated(_MODEL, _TOK, [(2, 0)], "zero"), ValueError, ["layer"]),
    (lambda: run_ablated(_MODEL, _TOK, [(0, 5)], "zero"), ValueError, ["head"]),
    (lambda: run_ablated(_MODEL, _TOK, [(0, 0)], "median"), ValueError, ["ablation"]),
    (lambda: run_filtered(_MODEL, _TOK, 7, LowRankFilter(8, 2)), ValueError, ["layer"]),
    (lambda: icl_prompts(_FAM, 2, 1, _GEN, label_condition="maybe"), ValueError, ["label_condition"]),
    (lambda: make_task_family(n_inputs=4, n_labels=8), ValueError, ["n_labels"]),
    (
        lambda: off_subspace_ratio(torch.ones(3, 8), torch.ones(4, 2), torch.zeros(8)),
        ValueError,
        ["hidden", "U"],
    ),
    (lambda: head_scan(_MODEL, _TOK), TypeError, ["prompts", "ICLBatch"]),
    (lambda: GPTConfig(lr=float("inf")), ValueError, ["lr", "finite"]),
    (lambda: GPTConfig(lr=float("nan")), ValueError, ["lr", "finite"]),
    (lambda: GPTConfig(weight_decay=-1.0), ValueError, ["weight_decay", ">= 0"]),
    (lambda: GPTConfig(steps=0), ValueError, ["steps", ">= 1"]),
    (lambda: build_model(GPTConfig(), _FAM, -1), ValueError, ["init_seed", ">= 0"]),
    (lambda: build_model(None, _FAM, 0), TypeError, ["cfg", "GPTConfig"]),
    (lambda: train_icl_model(GPTConfig(), _FAM, -1), ValueError, ["seed", ">= 0"]),
    (lambda: make_task_family(8, 2, 2, seed=-1), ValueError, ["seed", ">= 0"]),
    (lambda: training_sequences(_FAM, 2, 2, None), TypeError, ["generator", "Generator"]),
    (lambda: icl_prompts(_FAM, 2, 1, None), TypeError, ["generator", "Generator"]),
    (
        lambda: learn_filter(_MODEL, _TOK, torch.zeros(2).long(), 0, 2, torch.zeros(8), lr=float("inf")),
        ValueError,
        ["lr", "finite"],
    ),
    (
        lambda: learn_filter(_MODEL, _TOK, torch.zeros(2).long(), 0, 2, torch.zeros(8), seed=-1),
        ValueError,
        ["seed", ">= 0"],
    ),
    (lambda: random_filter(8, 2, torch.zeros(8), None), TypeError, ["generator", "Generator"]),
    (lambda: pca_filter(torch.full((4, 8), float("nan")), 2, torch.zeros(8)), ValueError, ["hidden", "NaN"]),
    (lambda: hidden_states(_MODEL, _TOK, 0, pos=99), ValueError, ["pos", "<= 2"]),
    (lambda: head_means(_MODEL, _TOK, pos=1.5), ValueError, ["pos", "int"]),
    (lambda: run_filtered(_MODEL, _TOK, 0, None), TypeError, ["filt", "LowRankFilter"]),
    (lambda: selectivity(torch.rand(4, 3), _FAM.label_sets(), 0), ValueError, ["label_sets", "vocab"]),
    (
        lambda: selectivity(torch.full((4, _FAM.vocab_size), float("nan")), _FAM.label_sets(), 0),
        ValueError,
        ["probs", "NaN"],
    ),
    (
        lambda: alignment(torch.randn(4, 8), torch.randn(3, 8), torch.zeros(8), torch.zeros(8)),
        ValueError,
        ["filtered_zero", "shape"],
    ),
]
