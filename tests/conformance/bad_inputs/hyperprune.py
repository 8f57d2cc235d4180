"""Bad input to HyperPrune's n:m primitives, pruner and baselines (OpenReview lqjQs2lVNm)."""

import torch
from torch import nn
from transformers import GPT2Config, GPT2LMHeadModel

from iclr26.inference.hyperprune import (
    HyperNetwork,
    HyperPruner,
    anneal_tau,
    apply_nm_mask,
    block_linears,
    get_weight,
    group_features,
    gumbel_pattern_mask,
    is_nm_sparse,
    magnitude_prune,
    maskllm_lite_prune,
    nm_mask_from_scores,
    nm_patterns,
    outlier_retention,
    reconstruction_error,
    run_sequential,
    set_weight,
    sparsegpt_matrix,
    sparsegpt_prune,
    wanda_prune,
    wanda_scores,
)

NAN, INF = float("nan"), float("inf")
W = torch.randn(4, 8, generator=torch.Generator().manual_seed(1))
G = torch.eye(8)
PATS = nm_patterns(2, 4)


def _gpt2(n_embd: int = 16) -> GPT2LMHeadModel:
    torch.manual_seed(0)
    return GPT2LMHeadModel(
        GPT2Config(
            vocab_size=50, n_embd=n_embd, n_layer=1, n_head=2, n_positions=16, bos_token_id=0, eos_token_id=0
        )
    )


IDS = torch.randint(0, 50, (2, 8), generator=torch.Generator().manual_seed(0))

CASES = [
    (lambda: nm_patterns(4, 4), ValueError, ["n (< m", "n >= m keeps everything", "<= 3"]),
    (lambda: nm_patterns(2, 1), ValueError, ["m must be"]),
    (lambda: is_nm_sparse(torch.ones(3, 6), 2, 4), ValueError, ["in_features", "not divisible by m"]),
    (lambda: magnitude_prune(_gpt2(18), 2, 4), ValueError, ["in_features", "not divisible"]),
    (lambda: HyperPruner(_gpt2(), 3, 3, IDS), ValueError, ["n (< m", "<= 2"]),
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
    (lambda: anneal_tau(-1, 10), ValueError, ["step", ">= 0"]),
    (lambda: anneal_tau(20, 10), ValueError, ["step", "<= 9"]),
    (lambda: anneal_tau(0, 0), ValueError, ["total", ">= 1"]),
    (lambda: anneal_tau(1, 10, NAN), ValueError, ["tau_start", "finite"]),
    (lambda: anneal_tau(1, 10, 4.0, 0.0), ValueError, ["tau_end", "> 0"]),
    (lambda: apply_nm_mask(W, torch.rand(4, 8)), ValueError, ["mask", "0/1"]),
    (lambda: gumbel_pattern_mask(torch.zeros(2, 6), PATS, NAN), ValueError, ["tau", "finite"]),
    (lambda: gumbel_pattern_mask(torch.zeros(2, 6), PATS, INF), ValueError, ["tau", "finite"]),
    (
        lambda: gumbel_pattern_mask(torch.zeros(2, 6), PATS, 1.0, noise=torch.zeros(3)),
        ValueError,
        ["noise", "shape"],
    ),
    (lambda: gumbel_pattern_mask(torch.zeros(2, 6).long(), PATS, 1.0), TypeError, ["logits", "floating"]),
    (lambda: nm_mask_from_scores(torch.full((2, 4), NAN), 2, 4), ValueError, ["scores", "NaN"]),
    (lambda: group_features(W, torch.eye(3), 2, 4), ValueError, ["gram", "(8, 8)"]),
    (lambda: reconstruction_error(W, torch.ones(3, 3), G), ValueError, ["keep", "shape"]),
    (lambda: outlier_retention(W, torch.ones(3, 3), G), ValueError, ["keep", "shape"]),
    (lambda: outlier_retention(W, torch.ones_like(W), torch.eye(3)), ValueError, ["gram", "(8, 8)"]),
    (lambda: HyperPruner(_gpt2(), 2, 4, IDS, outlier_reg="wanda"), ValueError, ["outlier_reg", "'paper'"]),
    (lambda: wanda_scores(torch.ones(8), G), ValueError, ["weight", "2-D"]),
    (lambda: HyperNetwork(0, 6, 2), ValueError, ["m", ">= 2"]),
    (lambda: HyperNetwork(4, 6, 2, prior_scale=NAN), ValueError, ["prior_scale", "finite"]),
    (lambda: HyperPruner(_gpt2(), 2, 4, IDS, beta=INF), ValueError, ["beta", "finite"]),
    (lambda: HyperPruner(_gpt2(), 2, 4, IDS, lr=INF), ValueError, ["lr", "finite"]),
    (lambda: HyperPruner(_gpt2(), 2, 4, IDS, tau=(1.0,)), ValueError, ["tau", "pair"]),
    (lambda: HyperPruner(_gpt2(), 2, 4, IDS, tau=(-1.0, 0.1)), ValueError, ["tau[0]", "> 0"]),
    (lambda: HyperPruner(_gpt2(), 2, 4, IDS, replay=-1), ValueError, ["replay", ">= 0"]),
    (lambda: HyperPruner(_gpt2(), 2, 4, IDS, scorer=5, steps_per_block=0), TypeError, ["scorer", "callable"]),
    (lambda: HyperPruner(_gpt2(), 2, 4, torch.full((2, 8), 99)), ValueError, ["calib_ids", "[0, 50)"]),
    (
        lambda: HyperPruner(_gpt2(), 2, 4, torch.zeros(2, 40).long()),
        ValueError,
        ["calib_ids", "16 positions"],
    ),
    (lambda: wanda_prune(_gpt2(), torch.full((2, 8), -1)), ValueError, ["calib_ids", "[0, 50)"]),
    (lambda: sparsegpt_matrix(W, G, percdamp=NAN), ValueError, ["percdamp", "finite"]),
    (lambda: sparsegpt_matrix(W, G, blocksize=0), ValueError, ["blocksize", ">= 1"]),
    (lambda: sparsegpt_matrix(W, torch.full((8, 8), NAN)), ValueError, ["gram", "NaN"]),
    (lambda: sparsegpt_matrix(W, -G), ValueError, ["gram", "positive definite"]),
    (
        lambda: sparsegpt_matrix(W, G, prune_mask=torch.ones(3, 3, dtype=torch.bool)),
        ValueError,
        ["prune_mask", "shape"],
    ),
    (lambda: sparsegpt_prune(_gpt2(), IDS, blocksize=0), ValueError, ["blocksize", ">= 1"]),
    (lambda: maskllm_lite_prune(_gpt2(), IDS, steps=1, lr=INF), ValueError, ["lr", "finite"]),
    (lambda: maskllm_lite_prune(_gpt2(), IDS, steps=1, batch_size=0), ValueError, ["batch_size", ">= 1"]),
    (lambda: maskllm_lite_prune(_gpt2(), IDS, steps=1.5), ValueError, ["steps", "int"]),
    (lambda: maskllm_lite_prune(_gpt2(), IDS, steps=2, tau=(0.0, 0.0)), ValueError, ["tau[0]", "> 0"]),
    (lambda: block_linears(None), TypeError, ["block", "nn.Module"]),
    (lambda: set_weight(nn.Linear(2, 2), [1]), TypeError, ["weight", "torch.Tensor"]),
    (lambda: set_weight(nn.Linear(2, 2), torch.full((2, 2), NAN)), ValueError, ["weight", "NaN"]),
    (lambda: run_sequential(_gpt2(), IDS, None), TypeError, ["fn", "callable"]),
]
