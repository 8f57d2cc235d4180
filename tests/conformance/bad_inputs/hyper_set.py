"""Bad input to the Hyper-SET block, model, step-size net and Sudoku generator (arXiv 2502.11646)."""

import numpy as np
import torch

from iclr26.architectures.hyper_set import (
    CRATE,
    DepthwiseLoRA,
    EnergyTransformer,
    HyperSET,
    HyperSETBlock,
    StepSizeNet,
    VanillaTransformer,
    average_angle,
    count_solutions,
    digit_patches,
    effective_rank,
    generate_sudoku,
    is_solution,
    sudoku_dataset,
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

_NAN = float("nan")


def _sudoku():
    return HyperSET(8, 2, 2, 9, 81, task="sudoku", vocab_size=10, time_emb=8)


CASES += [
    (lambda: HyperSETBlock(8, 2, use_rmsnorm="no"), TypeError, ["use_rmsnorm", "bool"]),
    (lambda: _BLOCK(_X, _NAN, 0.1), ValueError, ["alpha", "nan"]),
    (lambda: _BLOCK(torch.zeros(2, 3, 8, dtype=torch.long), 0.1, 0.1), TypeError, ["x", "floating"]),
    (lambda: _BLOCK(_X, 0.1, 0.1, delta_w=torch.zeros(3, 3)), ValueError, ["delta_w", "shape"]),
    (lambda: _BLOCK.ff_update(_X, torch.zeros(3, 3)), ValueError, ["delta_wf", "shape"]),
    (lambda: _BLOCK.attn_update(torch.zeros(2, 3, 5)), ValueError, ["x", "d_model=8"]),
    (lambda: _BLOCK.stats(torch.zeros(2, 3, 5)), ValueError, ["x", "d_model=8"]),
    (lambda: StepSizeNet(8, 16)(torch.zeros(5), _X), ValueError, ["c_t", "shape"]),
    (lambda: DepthwiseLoRA(8, 8, 2, alpha=_NAN), ValueError, ["alpha", "nan"]),
    (lambda: _model()(torch.full((2, 16, 4), _NAN)), ValueError, ["x", "finite"]),
    (lambda: _model()(torch.zeros(2, 16, 4, dtype=torch.long)), TypeError, ["x", "floating"]),
    (lambda: _sudoku()(torch.full((2, 81), 12)), ValueError, ["x (Sudoku cells)", "[0, 10)"]),
    (lambda: _sudoku()(torch.zeros(2, 81, dtype=torch.bool)), TypeError, ["x", "integer"]),
    (
        lambda: _model()(torch.zeros(2, 16, 4), return_trajectory="yes"),
        TypeError,
        ["return_trajectory", "bool"],
    ),
    (lambda: HyperSET(8, 2, 2, 10, 16, in_features=4, lora_rank=-1), ValueError, ["lora_rank", ">= 0"]),
    (lambda: HyperSET(8, 2, 2, 10, 16, in_features=4, input_cond="no"), TypeError, ["input_cond", "bool"]),
    (lambda: CRATE(8, 2, 1, 0, 16, in_features=4), ValueError, ["n_classes", ">= 1"]),
    (lambda: EnergyTransformer(8, 2, 1, 10, 0, in_features=4), ValueError, ["n_tokens", ">= 1"]),
    (lambda: VanillaTransformer(8, 2, 1, 10, 16, in_features=4, shared="no"), TypeError, ["shared", "bool"]),
    (
        lambda: VanillaTransformer(8, 2, 2, 10, 16, in_features=4)(torch.zeros(2, 16, 4), n_iter=5),
        ValueError,
        ["n_iter", "weight-shared"],
    ),
    (lambda: effective_rank(torch.zeros(4)), ValueError, ["u", "2 dimensions"]),
    (lambda: effective_rank(torch.full((3, 4), _NAN)), ValueError, ["u", "finite"]),
    (lambda: average_angle(torch.ones(1, 4)), ValueError, ["u", "two rows"]),
    (lambda: generate_sudoku(1, -1), ValueError, ["seed", ">= 0"]),
    (lambda: generate_sudoku(1, 0, givens=(36.5, 40)), ValueError, ["givens low", "36.5"]),
    (lambda: count_solutions([0] * 81, 1.5), ValueError, ["limit", "1.5"]),
    (lambda: count_solutions([1.5] + [0] * 80), ValueError, ["grid", "0..9"]),
    (lambda: is_solution(np.ones(81), np.ones(5)), ValueError, ["puzzle", "81 cells"]),
    (lambda: digit_patches(-1), ValueError, ["seed", ">= 0"]),
    (lambda: digit_patches(0, test_size=1.5), ValueError, ["test_size", "(0, 1)"]),
    (lambda: digit_patches(0, patch=True), ValueError, ["patch", "True"]),
    (lambda: sudoku_dataset(0, 1, 0), ValueError, ["n_train", ">= 1"]),
]
