"""Bad input to the ICL causal-structure generator, BMA and model (OpenReview bpF8zgSt41)."""

import torch

from iclr26.mechanisms.icl_causal_structure import (
    DisentangledRPETransformer,
    bma_predict,
    column_softmax_error,
    sample_contexts,
    sample_task,
)

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
]
