"""Bad input to the FACT model, its grid pieces and the sensor-grid generator (OpenReview j3gNYqrHtl)."""

import numpy as np
import torch

from iclr26.architectures.fact_forecast import (
    FACT,
    AttnBlock,
    DConvBlock2d,
    DLinear,
    FACTAttn,
    FrequencyBranch,
    InceptionDW,
    ITransformer,
    PatchTST,
    TSMixerLite,
    evaluate,
    grid_side,
    make_grid_diffusion,
    ordering,
    pad_to_grid,
    prepare,
    saved_activation_bytes,
    step_time,
    time_marks,
    train_forecaster,
    unpad_from_grid,
)

_M = FACT(12, 4, 5, d_model=8, d_ff=8, dilations=[1])

CASES = [
    (lambda: _M(torch.randn(2, 10, 5)), ValueError, ["seq_len", "L=10"]),
    (lambda: _M(torch.randn(2, 12, 6)), ValueError, ["n_vars", "N=6"]),
    (lambda: FACT(12, 4, 5, dilations=[]), ValueError, ["dilations", "empty"]),
    (lambda: FACT(12, 4, 5, num_kernels=0), ValueError, ["num_kernels"]),
    (lambda: FACT(12, 4, 5, core=1.5), ValueError, ["core"]),
    (lambda: DConvBlock2d(4, 4, n_dilations=0), ValueError, ["n_dilations"]),
    (lambda: unpad_from_grid(torch.randn(1, 2, 3, 3), 10), ValueError, ["n_vars"]),
    (lambda: make_grid_diffusion(1, 100), ValueError, ["S"]),
    (lambda: ordering(10, "spiral"), ValueError, ["kind"]),
]

_NAN = float("nan")
_DATA = prepare(make_grid_diffusion(3, 300), 12, 4)


def _m9():
    return FACT(12, 4, 9, n_mark=2, d_model=8, d_ff=8, dilations=[1])


CASES += [
    (lambda: FACT(True, 4, 5), ValueError, ["seq_len", "True"]),
    (lambda: FACT(12, 4, 5, n_mark=1.5), ValueError, ["n_mark", "1.5"]),
    (lambda: FACT(12, 4, 5, d_ff=0), ValueError, ["d_ff", ">= 1"]),
    (lambda: FACT(12, 4, 5, num_kernels=True), ValueError, ["num_kernels", "True"]),
    (lambda: FACT(12, 4, 5, dropout=2.0), ValueError, ["dropout", "[0, 1]"]),
    (lambda: FACT(12, 4, 5, use_norm="no"), TypeError, ["use_norm", "bool"]),
    (lambda: _M(torch.zeros(2, 12, 5, dtype=torch.long)), TypeError, ["x", "floating"]),
    (lambda: _M(torch.full((2, 12, 5), _NAN)), ValueError, ["x", "finite"]),
    (lambda: _M(torch.zeros(0, 12, 5)), ValueError, ["x", "B >= 1"]),
    (lambda: _m9()(torch.zeros(2, 12, 9), torch.full((2, 12, 2), _NAN)), ValueError, ["x_mark", "finite"]),
    (lambda: _m9()(torch.zeros(2, 12, 9), np.zeros((2, 12, 2))), TypeError, ["x_mark", "torch.Tensor"]),
    (
        lambda: FACTAttn(12, 4, 5, d_model=8, d_ff=8, dilations=[1], n_heads=0),
        ValueError,
        ["n_heads", ">= 1"],
    ),
    (lambda: AttnBlock(8, 8)(torch.zeros(2, 7, 5)), ValueError, ["h", "D=8"]),
    (lambda: DConvBlock2d(0, 8), ValueError, ["d_model", ">= 1"]),
    (lambda: DConvBlock2d(4, 4)(torch.zeros(2, 3, 5)), ValueError, ["h", "D=4"]),
    (lambda: InceptionDW(4, dilation=1.5), ValueError, ["dilation", "1.5"]),
    (lambda: InceptionDW(4)(torch.zeros(2, 3, 5, 5)), ValueError, ["z", "C=4"]),
    (lambda: FrequencyBranch(8, [3], []), TypeError, ["amp_blocks", "Module"]),
    (lambda: FrequencyBranch(8, [], [])(torch.zeros(2, 6, 5)), ValueError, ["h", "D=8"]),
    (lambda: grid_side(True), ValueError, ["n_vars", "True"]),
    (lambda: pad_to_grid(np.zeros((2, 3, 5))), TypeError, ["h", "torch.Tensor"]),
    (lambda: unpad_from_grid(torch.zeros(1, 2, 3, 3), 1.5), ValueError, ["n_vars", "1.5"]),
    (lambda: make_grid_diffusion(3, 10, kappa=_NAN), ValueError, ["kappa", "nan"]),
    (lambda: make_grid_diffusion(3, 10, noise=float("inf")), ValueError, ["noise", "finite"]),
    (lambda: make_grid_diffusion(3, 10, seed=-1), ValueError, ["seed", ">= 0"]),
    (lambda: make_grid_diffusion(3, 10, n_sources=100), ValueError, ["n_sources", "S*S=9"]),
    (lambda: make_grid_diffusion(3, 10, switch_days=(5, 2)), ValueError, ["switch_days high", ">= 5"]),
    (lambda: make_grid_diffusion(3, 10, dynamic="no"), TypeError, ["dynamic", "bool"]),
    (lambda: ordering(1.5), ValueError, ["n_vars", "1.5"]),
    (lambda: ordering(5, "permuted", seed=-1), ValueError, ["seed", ">= 0"]),
    (lambda: time_marks(-1), ValueError, ["T", ">= 1"]),
    (lambda: prepare(np.full((400, 9), _NAN), 12, 4), ValueError, ["data", "finite"]),
    (lambda: prepare(make_grid_diffusion(3, 300), 0, 4), ValueError, ["seq_len", ">= 1"]),
    (
        lambda: prepare(make_grid_diffusion(3, 300), 12, 4, order=np.zeros(9, int)),
        ValueError,
        ["order", "permutation"],
    ),
    (lambda: _DATA.split_starts("dev"), ValueError, ["split", "dev"]),
    (lambda: _DATA.split_starts("train", 0), ValueError, ["stride", ">= 1"]),
    (lambda: _DATA.windows(torch.tensor([1000])), ValueError, ["starts", "1000"]),
    (lambda: _DATA.windows(torch.tensor([1.5])), TypeError, ["starts", "integer"]),
    (lambda: train_forecaster(_m9(), _DATA, 2, lr=_NAN), ValueError, ["lr", "nan"]),
    (lambda: train_forecaster(_m9(), _DATA, 2, batch=0), ValueError, ["batch", ">= 1"]),
    (lambda: train_forecaster(_m9(), None, 2), TypeError, ["data", "ForecastData"]),
    (lambda: evaluate(None, _DATA), TypeError, ["model", "Module"]),
    (lambda: step_time(_m9(), 2, 12, 9, 2, steps=0), ValueError, ["steps", ">= 1"]),
    (lambda: saved_activation_bytes(_m9(), 2, 12, 9, -1), ValueError, ["n_mark", ">= 0"]),
    (lambda: ITransformer(0, 4, 5), ValueError, ["seq_len", ">= 1"]),
    (lambda: ITransformer(12, 4, 5, d_model=8, n_heads=3), ValueError, ["d_model", "n_heads"]),
    (
        lambda: ITransformer(12, 4, 5, n_mark=2, d_model=8, n_heads=2)(
            torch.zeros(2, 12, 5), torch.zeros(2, 12, 3)
        ),
        ValueError,
        ["x_mark", "shape"],
    ),
    (lambda: DLinear(12, 4, 5, kernel=0), ValueError, ["kernel", ">= 1"]),
    (lambda: PatchTST(12, 4, 5, stride=0), ValueError, ["stride", ">= 1"]),
    (lambda: TSMixerLite(12, 4, 5)(torch.zeros(2, 12, 5, dtype=torch.long)), TypeError, ["x", "floating"]),
]
