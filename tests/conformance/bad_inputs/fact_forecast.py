"""Bad input to the FACT model, its grid pieces and the sensor-grid generator (OpenReview j3gNYqrHtl)."""

import torch

from iclr26.architectures.fact_forecast import (
    FACT,
    DConvBlock2d,
    make_grid_diffusion,
    ordering,
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
