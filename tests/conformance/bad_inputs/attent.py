"""Bad input to the AtteNT selector, its schedules and learners (arXiv 2602.20461)."""

import torch
from torch import nn

from iclr26.optim.attent import (
    AtteNTCycle,
    AttentionClassifier,
    AtteNTSampler,
    ConstantRatio,
    CostMeter,
    FullDataSampler,
    LinearRatio,
    RandomSubsetSampler,
    StepRatio,
    causal_lm_loss_score,
    causal_lm_score,
    classification_loss_score,
    classification_score,
    digits_patches,
    gumbel_topk_indices,
    regression_loss_score,
    regression_score,
    sequence_property_data,
    sequence_property_labels,
    topk_indices,
    train_learner,
)

NAN, INF = float("nan"), float("inf")


def _train(**kw):
    args = {"epochs": 1, "batch_size": 4} | kw
    sampler = args.pop("sampler", FullDataSampler(8))
    return train_learner(nn.Linear(3, 2), (_X, _Y), (_X, _Y), sampler, **args)


_X, _Y = torch.randn(8, 3), torch.randint(0, 2, (8,))


def _sampler(score_fn=classification_score, data=(_X, _Y), **kw):
    return AtteNTSampler(nn.Linear(3, 2), data, score_fn, ConstantRatio(0.5), **kw)


CASES = [
    (lambda: ConstantRatio(0.0), ValueError, ["ratio", "(0, 1]"]),
    (lambda: ConstantRatio(1.5), ValueError, ["ratio", "(0, 1]"]),
    (lambda: StepRatio(start=-0.1), ValueError, ["start", "(0, 1]"]),
    (lambda: StepRatio(0.1, every=0), ValueError, ["every", ">= 1"]),
    (lambda: LinearRatio(0.1, ramp=0), ValueError, ["ramp", ">= 1"]),
    (lambda: _sampler(interval=0), ValueError, ["interval", ">= 1"]),
    (lambda: _sampler(data=(torch.zeros(0, 3), torch.zeros(0).long())), ValueError, ["empty", "pool"]),
    (lambda: RandomSubsetSampler(0, ConstantRatio(0.5)), ValueError, ["empty", "pool"]),
    (lambda: _sampler(score_fn=lambda out, y: out).refresh(0), ValueError, ["score_fn", "shape"]),
    (
        lambda: _sampler(score_fn=lambda out, y: torch.full((len(y),), float("nan"))).refresh(0),
        ValueError,
        ["score_fn", "NaN"],
    ),
    (lambda: _sampler(candidate_pool=100), ValueError, ["candidate_pool", "pool size"]),
    (lambda: topk_indices(torch.ones(3), 4), ValueError, ["k", "number of scores"]),
    (lambda: AttentionClassifier(2, 4, patch_dim=3, vocab=5), ValueError, ["exactly one", "patch_dim"]),
    (lambda: StepRatio(0.1, 1, INF), ValueError, ["factor", "finite"]),
    (lambda: CostMeter(per_trained=NAN), ValueError, ["per_trained", "finite"]),
    (lambda: CostMeter(trained=-1), ValueError, ["trained", ">= 0"]),
    (
        lambda: classification_score(torch.zeros(3, 2), torch.tensor([0, 5, 1])),
        ValueError,
        ["targets", "[0, 2)"],
    ),
    (
        lambda: classification_score(torch.zeros(3, 2), torch.tensor([0, -1, 1])),
        ValueError,
        ["targets", "[0, 2)"],
    ),
    (
        lambda: classification_score(torch.zeros(3, 2).long(), torch.zeros(3).long()),
        TypeError,
        ["logits", "floating"],
    ),
    (lambda: causal_lm_score(torch.zeros(2, 3, 4), torch.full((2, 3), 9)), ValueError, ["targets", "[0, 4)"]),
    (lambda: causal_lm_score(torch.zeros(2, 3, 4), torch.zeros(2, 3)), TypeError, ["targets", "integer"]),
    (
        lambda: causal_lm_score(torch.zeros(2, 3, 4), torch.zeros(2, 3).long(), ignore_index=1.5),
        ValueError,
        ["ignore_index", "int"],
    ),
    (
        lambda: regression_score(torch.zeros(3).long(), torch.zeros(3).long()),
        TypeError,
        ["outputs", "floating"],
    ),
    (lambda: topk_indices(torch.tensor([float("nan"), 1.0]), 1), ValueError, ["scores", "NaN"]),
    (
        lambda: AttentionClassifier(2, 4, d_model=8, n_heads=2, vocab=5)(torch.full((2, 4), 9)),
        ValueError,
        ["x", "[0, 5)"],
    ),
    (lambda: digits_patches(-1), ValueError, ["seed", ">= 0"]),
    (lambda: digits_patches(0, n_test=0), ValueError, ["n_test", ">= 10"]),
    (lambda: sequence_property_data(10, 10, -1), ValueError, ["seed", ">= 0"]),
    (lambda: sequence_property_labels(torch.zeros(2, 3)), TypeError, ["tokens", "integer"]),
    (lambda: _train(lr=INF), ValueError, ["lr", "finite"]),
    (lambda: _train(lr=NAN), ValueError, ["lr", "finite"]),
    (lambda: _train(weight_decay=NAN), ValueError, ["weight_decay", "finite"]),
    (lambda: _train(clip=-1.0), ValueError, ["clip", ">= 0"]),
    (lambda: _train(sampler=None), TypeError, ["sampler", "SubsetSampler"]),
    (lambda: _train(sampler=FullDataSampler(20)), ValueError, ["sampler", "pool of 20"]),
    (lambda: AtteNTCycle(0), ValueError, ["epochs", ">= 1"]),
    (lambda: AtteNTCycle(21, cycles=0), ValueError, ["cycles", ">= 1"]),
    (lambda: AtteNTCycle(21, initial_ratio=0.0), ValueError, ["initial_ratio", "(0, 1]"]),
    (lambda: AtteNTCycle(21, final_ratio=1.2), ValueError, ["final_ratio", "(0, 1]"]),
    (
        lambda: AtteNTCycle(21, initial_ratio=0.8, final_ratio=0.2),
        ValueError,
        ["final_ratio", ">= initial_ratio"],
    ),
    (lambda: AtteNTCycle(21, ratio_schedule="exp"), ValueError, ["ratio_schedule", "cosine"]),
    (lambda: AtteNTCycle(21, interval_schedule="step"), ValueError, ["interval_schedule", "fixed"]),
    (lambda: AtteNTCycle(21, initial_interval=0), ValueError, ["initial_interval", ">= 1"]),
    (lambda: AtteNTCycle(21, initial_interval=3, max_interval=2), ValueError, ["max_interval", ">= 3"]),
    (lambda: AtteNTCycle(21, 10, initial_interval=1)(21), ValueError, ["t", "n_epochs=21"]),
    (lambda: AtteNTCycle(21).ratio_at(10), ValueError, ["cycle", "< cycles=10"]),
    (lambda: _sampler(selection="medium"), ValueError, ["selection", "hard"]),
    (lambda: _sampler(soft_normalization="tanh"), ValueError, ["soft_normalization", "softmax"]),
    (
        lambda: AtteNTSampler(nn.Linear(3, 2), (_X, _Y), classification_loss_score, AtteNTCycle(5, 2), 2),
        ValueError,
        ["interval", "AtteNTCycle"],
    ),
    (
        lambda: classification_loss_score(torch.zeros(3, 2), torch.tensor([0, 2, 1])),
        ValueError,
        ["targets", "[0, 2)"],
    ),
    (lambda: regression_loss_score(torch.zeros(3, 2), torch.zeros(3, 1)), ValueError, ["one shape"]),
    (
        lambda: causal_lm_loss_score(torch.zeros(2, 3, 4), torch.zeros(2, 3).long(), reduction="sum"),
        ValueError,
        ["reduction", "positions"],
    ),
    (lambda: gumbel_topk_indices(torch.ones(3), 1, 0), TypeError, ["generator", "torch.Generator"]),
    (
        lambda: gumbel_topk_indices(torch.ones(3), 1, torch.Generator(), "tanh"),
        ValueError,
        ["normalization", "softmax"],
    ),
]
