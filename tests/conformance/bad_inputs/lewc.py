"""Bad input to LEWC's merging, calibration, LMC curves, LEWC fit and weight matching."""

import torch
from torch import nn

from iclr26.optim.lewc import (
    calibrate_temperature,
    lewc_fit,
    lmc_curve,
    make_mlp,
    merge_linear,
    nll,
    weight_matching_permute,
)

NARROW, WIDE = make_mlp(4, 3, 1), make_mlp(4, 3, 2)
DEEP = make_mlp(4, 3, 1, depth=2)
X, Y = torch.randn(8, 4), torch.randint(0, 3, (8,))
CONV = nn.Sequential(nn.Conv1d(1, 2, 3), nn.ReLU(), nn.Flatten(), nn.Linear(4, 3))

CASES = [
    (lambda: merge_linear(NARROW, WIDE, 0.5), ValueError, ["shape mismatch", "model_a", "model_b"]),
    (lambda: merge_linear(NARROW, DEEP, 0.5), ValueError, ["architecture mismatch"]),
    (lambda: merge_linear(NARROW, NARROW, -0.1), ValueError, ["lambda", "[0, 1]"]),
    (
        lambda: nll(torch.zeros(2, 3), torch.zeros(2, dtype=torch.long), temperature=0.0),
        ValueError,
        ["temperature"],
    ),
    (
        lambda: calibrate_temperature(torch.zeros(0, 3), torch.zeros(0, dtype=torch.long)),
        ValueError,
        ["empty"],
    ),
    (
        lambda: lmc_curve(NARROW, NARROW, {"test": (X, Y), "cal": (X[:0], Y[:0])}),
        ValueError,
        ["'cal'", "empty"],
    ),
    (lambda: lewc_fit(NARROW, WIDE, 0.5, X), ValueError, ["shape mismatch"]),
    (lambda: weight_matching_permute(CONV, CONV), ValueError, ["MLP", "Conv1d"]),
]
