"""Bad input to the AtteNT selector, its schedules and learners (arXiv 2602.20461)."""

import torch
from torch import nn

from iclr26.optim.attent import (
    AttentionClassifier,
    AtteNTSampler,
    ConstantRatio,
    LinearRatio,
    RandomSubsetSampler,
    StepRatio,
    classification_score,
    topk_indices,
)

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
]
