"""Bad input to HyperPrune's n:m primitives, pruner and baselines (OpenReview lqjQs2lVNm)."""

import torch
from torch import nn
from transformers import GPT2Config, GPT2LMHeadModel

from iclr26.inference.hyperprune import (
    HyperPruner,
    get_weight,
    is_nm_sparse,
    magnitude_prune,
    nm_patterns,
    sparsegpt_matrix,
    wanda_prune,
)


def _gpt2(n_embd: int = 16) -> GPT2LMHeadModel:
    torch.manual_seed(0)
    return GPT2LMHeadModel(
        GPT2Config(
            vocab_size=50, n_embd=n_embd, n_layer=1, n_head=2, n_positions=16, bos_token_id=0, eos_token_id=0
        )
    )


IDS = torch.randint(0, 50, (2, 8), generator=torch.Generator().manual_seed(0))

CASES = [
    (lambda: nm_patterns(4, 4), ValueError, ["n must satisfy", "n < m"]),
    (lambda: nm_patterns(2, 1), ValueError, ["m must be"]),
    (lambda: is_nm_sparse(torch.ones(3, 6), 2, 4), ValueError, ["in_features", "not divisible by m"]),
    (lambda: magnitude_prune(_gpt2(18), 2, 4), ValueError, ["in_features", "not divisible"]),
    (lambda: HyperPruner(_gpt2(), 3, 3, IDS), ValueError, ["n must satisfy"]),
    (
        lambda: HyperPruner(_gpt2(), 2, 4, torch.zeros(0, 8, dtype=torch.long)),
        ValueError,
        ["calib_ids", "non-empty"],
    ),
    (lambda: HyperPruner(_gpt2(), 2, 4, None), ValueError, ["calib_ids", "required"]),
    (lambda: wanda_prune(_gpt2(), [[1, 2, 3, 4]]), TypeError, ["calib_ids", "torch.Tensor"]),
    (lambda: get_weight(nn.ReLU()), TypeError, ["module", "nn.Linear"]),
    (lambda: magnitude_prune(nn.Sequential(nn.ModuleList([nn.ReLU()]))), ValueError, ["non-linear"]),
    (lambda: HyperPruner(_gpt2(), 2, 4, IDS, steps_per_block=-1), ValueError, ["steps_per_block"]),
    (lambda: HyperPruner(_gpt2(), 2, 4, IDS, row_fraction=0.0), ValueError, ["row_fraction"]),
    (lambda: sparsegpt_matrix(torch.ones(2, 8), torch.eye(4)), ValueError, ["gram"]),
]
