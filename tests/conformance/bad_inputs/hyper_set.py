"""Bad input to the Hyper-SET block, model, step-size net and Sudoku generator (arXiv 2502.11646)."""

import torch

from iclr26.architectures.hyper_set import (
    HyperSET,
    HyperSETBlock,
    StepSizeNet,
    count_solutions,
    generate_sudoku,
)


def _model():
    return HyperSET(8, 2, 2, 10, 16, in_features=4, time_emb=8)


_BLOCK = HyperSETBlock(8, 2)
_X = torch.zeros(2, 3, 8)

CASES = [
    (lambda: HyperSETBlock(10, 3), ValueError, ["d_model", "divisible", "n_heads"]),
    (lambda: HyperSET(8, 2, 0, 10, 16, in_features=4), ValueError, ["n_iter", ">= 1"]),
    (lambda: _model()(torch.zeros(2, 16, 4), n_iter=0), ValueError, ["n_iter", ">= 1"]),
    (lambda: _BLOCK(torch.zeros(3, 8), 0.1, 0.1), ValueError, ["x", "3-D"]),
    (lambda: _BLOCK(_X, torch.zeros(2, 3, 4), 0.1), ValueError, ["alpha", "shape"]),
    (lambda: _BLOCK(_X, 0.1, torch.zeros(2, 4, 8)), ValueError, ["beta", "shape"]),
    (lambda: _BLOCK.energy_attn(torch.zeros(2, 3, 5)), ValueError, ["d_model"]),
    (lambda: HyperSETBlock(8, 2, attention="cosine"), ValueError, ["attention"]),
    (lambda: HyperSETBlock(8, 2, ff_act="tanh"), ValueError, ["ff_act"]),
    (lambda: _model()(torch.zeros(2, 15, 4)), ValueError, ["x", "shape"]),
    (lambda: StepSizeNet(8, 16, variant="video"), ValueError, ["variant"]),
    (lambda: HyperSET(8, 2, 2.5, 10, 16, in_features=4), TypeError, ["n_iter", "int"]),
    (lambda: generate_sudoku(3, 0, givens=(10, 20)), ValueError, ["givens"]),
    (lambda: count_solutions([0] * 80), ValueError, ["81 cells"]),
]
