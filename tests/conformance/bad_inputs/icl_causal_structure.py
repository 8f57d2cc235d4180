"""Bad input to the ICL causal-structure generator, BMA and model (OpenReview bpF8zgSt41)."""

import torch

from iclr26.mechanisms.icl_causal_structure import (
    DisentangledRPETransformer,
    TrainConfig,
    bma_predict,
    column_softmax_error,
    construct_bma_transformer,
    evaluate,
    kl_divergence,
    log_loss,
    parent_selection_loss,
    sample_contexts,
    sample_task,
    train,
    unigram_predict,
)

NAN, INF = float("nan"), float("inf")

PI = torch.tensor([[0.5, 0.5], [0.2, 0.8]], dtype=torch.float64)
TOK = torch.zeros(2, 3, 4, dtype=torch.long)

CASES = [
    (lambda: sample_task(1), ValueError, ["d", ">= 2"]),
    (lambda: sample_task(3, alpha=0.0), ValueError, ["alpha", "> 0"]),
    (lambda: sample_task(3, eps=1.0), ValueError, ["eps", "[0, 1)"]),
    (lambda: sample_task(3, eps=-0.1), ValueError, ["eps"]),
    (lambda: sample_contexts(PI, 4, 3, 1), ValueError, ["H", ">= 2"]),
    (lambda: sample_contexts(PI, 4, 0, 5), ValueError, ["L", ">= 1"]),
    (lambda: sample_contexts(torch.ones(2, 2), 4, 2, 3), ValueError, ["pi", "row-stochastic"]),
    (lambda: bma_predict(TOK, torch.ones(2, 2)), ValueError, ["pi", "row-stochastic"]),
    (lambda: bma_predict(TOK + 2, PI), ValueError, ["tokens", "[0, d=2)"]),
    (lambda: bma_predict(TOK.float(), PI), TypeError, ["tokens", "integer"]),
    (lambda: DisentangledRPETransformer(2, 2, 3)(TOK), ValueError, ["tokens", "shape"]),
    (lambda: column_softmax_error(torch.zeros(3, 3), PI), ValueError, ["W", "shape"]),
    (lambda: TrainConfig(lr=INF), ValueError, ["lr", "finite"]),
    (lambda: TrainConfig(lr=NAN), ValueError, ["lr", "finite"]),
    (lambda: TrainConfig(steps=0), ValueError, ["steps", ">= 1"]),
    (lambda: TrainConfig(log_every=0), ValueError, ["log_every", ">= 1"]),
    (lambda: TrainConfig(schedule="linear"), ValueError, ["schedule", "cosine"]),
    (lambda: TrainConfig(warmup=-1), ValueError, ["warmup", ">= 0"]),
    (
        lambda: train(DisentangledRPETransformer(2, 1, 3), PI, TrainConfig(steps=1), -1, 1, 3),
        ValueError,
        ["seed", ">= 0"],
    ),
    (lambda: train(None, PI, TrainConfig(steps=1), 0, 1, 3), TypeError, ["model", "nn.Module"]),
    (lambda: evaluate(DisentangledRPETransformer(2, 1, 3), PI, 0, 0, 1, 3), ValueError, ["n", ">= 1"]),
    (lambda: sample_task(3, alpha=True), ValueError, ["alpha", "float"]),
    (lambda: DisentangledRPETransformer(2, 1, 3, init_scale=NAN), ValueError, ["init_scale", "finite"]),
    (lambda: DisentangledRPETransformer(2, 1, 3, init_seed=-1), ValueError, ["init_seed", ">= 0"]),
    (lambda: construct_bma_transformer(PI, 1, 3, rpe_scale=INF), ValueError, ["rpe_scale", "finite"]),
    (lambda: unigram_predict(TOK, PI, prior=INF), ValueError, ["prior", "finite"]),
    (
        lambda: parent_selection_loss(torch.ones(2, 3, 3), torch.full((2, 3), 5)),
        ValueError,
        ["parents", "< 3"],
    ),
    (
        lambda: parent_selection_loss(torch.ones(2, 3, 3).long(), torch.zeros(2, 3).long()),
        TypeError,
        ["attn", "floating"],
    ),
    (lambda: log_loss(torch.ones(2, 3, 2) / 2, torch.full((2, 3), 4)), ValueError, ["targets", "[0, 2)"]),
    (lambda: kl_divergence(torch.ones(2, 3), torch.ones(2, 4)), ValueError, ["q", "shape"]),
]
