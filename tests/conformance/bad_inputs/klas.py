"""Bad input to KLAS stitching, least squares, similarity and selection."""

import numpy as np
import torch
from torch import nn

from iclr26.inference.klas import (
    StitchedNet,
    fit_stitch_ls,
    kl_similarity_matrix,
    make_anchor,
    select_stitches,
)

A = make_anchor("mixer", 8, 3, seed=0)
A5 = make_anchor("mixer", 8, 3, seed=0, n_classes=5)
X = torch.rand(16, 64)

CASES = [
    (lambda: StitchedNet(A, A, 4, 1, nn.Linear(8, 8)), ValueError, ["i must", "depth"]),
    (lambda: StitchedNet(A, A, 1, 7, nn.Linear(8, 8)), ValueError, ["j must", "depth"]),
    (lambda: StitchedNet(A, A5, 1, 1, nn.Linear(8, 8)), ValueError, ["head classes"]),
    (lambda: fit_stitch_ls(torch.randn(5, 3), torch.randn(6, 3)), ValueError, ["H_a", "H_b"]),
    (lambda: kl_similarity_matrix(A, A, X, T=0.0), ValueError, ["T must"]),
    (lambda: select_stitches(np.zeros((2, 2)), np.ones((2, 2)), 0), ValueError, ["n_bins"]),
    (lambda: make_anchor("vit", 8, 3, seed=0), ValueError, ["family"]),
]
