"""Bad input to PHAT, its attention, period pieces and the shared time-series generator (arXiv 2602.00654)."""

import numpy as np
import torch

from iclr26.architectures.phat import PHAT, PNAttention, detect_periods, fold, periodic_distance, unfold
from iclr26.lab.timeseries import make_heterogeneous_periodic, make_windows, train_forecaster

_M = PHAT(16, 4, 3, d_model=8, n_heads=2)

CASES = [
    (lambda: PNAttention(12, 3), ValueError, ["n_heads", "even"]),
    (lambda: PNAttention(10, 4), ValueError, ["d_model", "divisible"]),
    (lambda: PHAT(16, 4, 0), ValueError, ["n_vars", "C"]),
    (lambda: PHAT(16, 4, 3, top_k=9), ValueError, ["top_k", "L/2"]),
    (lambda: detect_periods(torch.randn(2, 16, 3), k=9), ValueError, ["k", "L/2"]),
    (lambda: PHAT(16, 0, 3), ValueError, ["horizon", ">= 1"]),
    (lambda: _M(torch.full((2, 16, 3), float("nan"))), ValueError, ["x", "finite"]),
    (lambda: _M(torch.zeros(2, 15, 3)), ValueError, ["x", "shape"]),
    (lambda: PHAT(16, 4, 3, bucket_mode="none"), ValueError, ["bucket_mode", "period"]),
    (lambda: PHAT(16, 4, 3, fold_layout="rows"), ValueError, ["fold_layout", "paper"]),
    (lambda: PHAT(16, 4, 3, gating=True), ValueError, ["attention flag", "gating"]),
    (lambda: PNAttention(8, 2, negative=1), TypeError, ["negative", "bool"]),
    (lambda: fold(torch.zeros(1, 4, 2), 0), ValueError, ["P", ">= 1"]),
    (lambda: unfold(torch.zeros(1, 2, 2, 3), 5), ValueError, ["length"]),
    (lambda: periodic_distance(3, cyclic="yes"), TypeError, ["cyclic", "bool"]),
    (lambda: detect_periods(torch.zeros(2, 16, 0)), ValueError, ["x", "C >= 1"]),
    (lambda: make_heterogeneous_periodic(6, 100, groups=3, periods=(12, 24)), ValueError, ["periods", "3"]),
    (lambda: make_heterogeneous_periodic(6, 100, corr=1.5), ValueError, ["corr"]),
    (lambda: make_windows(np.zeros((30, 2)), 20, 5), ValueError, ["too few"]),
    (
        lambda: train_forecaster(_M, make_windows(np.ones((200, 3)), 16, 4), schedule="cosine"),
        ValueError,
        ["schedule", "type3"],
    ),
]
