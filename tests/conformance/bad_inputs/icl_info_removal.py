"""Bad input to the denoising-heads reproduction's public API (arXiv 2509.21012)."""

import torch

from iclr26.lab.transformer import Transformer
from iclr26.mechanisms.icl_info_removal import (
    LowRankFilter,
    head_scan,
    icl_prompts,
    make_task_family,
    off_subspace_ratio,
    run_ablated,
    run_filtered,
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
]
