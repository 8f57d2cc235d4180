"""Bad input to KLAS stitching, least squares, similarity and selection."""

import numpy as np
import torch
from torch import nn

from iclr26.inference.klas import (
    StitchedNet,
    TinyCNN,
    TinyMixer,
    candidate_flops,
    cka_similarity_matrix,
    count_flops,
    digits_data,
    fit_stitch_ls,
    kl_similarity_matrix,
    linear_cka,
    make_anchor,
    noisy_digits_data,
    pareto_auc,
    random_scores,
    select_stitches,
    snnet_scores,
    train_anchor,
)

NAN, INF = float("nan"), float("inf")
Y = torch.zeros(16, dtype=torch.long)

A = make_anchor("mixer", 8, 3, seed=0)
A5 = make_anchor("mixer", 8, 3, seed=0, n_classes=5)
X = torch.rand(16, 64)

CASES = [
    (lambda: StitchedNet(A, A, 4, 1, nn.Linear(8, 8)), ValueError, ["i (", "depth", "<= 3"]),
    (lambda: StitchedNet(A, A, 1, 7, nn.Linear(8, 8)), ValueError, ["j (", "depth", "<= 3"]),
    (lambda: StitchedNet(A, A5, 1, 1, nn.Linear(8, 8)), ValueError, ["head classes"]),
    (lambda: fit_stitch_ls(torch.randn(5, 3), torch.randn(6, 3)), ValueError, ["H_a", "H_b"]),
    (lambda: kl_similarity_matrix(A, A, X, T=0.0), ValueError, ["T must"]),
    (lambda: select_stitches(np.zeros((2, 2)), np.ones((2, 2)), 0), ValueError, ["n_bins"]),
    (lambda: make_anchor("vit", 8, 3, seed=0), ValueError, ["family"]),
    (lambda: StitchedNet(A, A, True, 1, nn.Linear(8, 8)), ValueError, ["i", "int"]),
    (lambda: StitchedNet(A, A, 1, 1, nn.Linear(4, 8)), ValueError, ["stitch", "width"]),
    (lambda: TinyCNN(0, 2), ValueError, ["width", ">= 1"]),
    (lambda: TinyCNN(4, -1), ValueError, ["depth", ">= 1"]),
    (lambda: TinyMixer(4, 2, n_classes=0), ValueError, ["n_classes", ">= 2"]),
    (lambda: TinyMixer(4, 2)(torch.rand(2, 10)), ValueError, ["x", "(B >= 1, 64)"]),
    (lambda: TinyMixer(4, 2)(torch.ones(2, 64).long()), TypeError, ["x", "floating-point"]),
    (lambda: make_anchor("mixer", 2.5, 2, 0), ValueError, ["width", "int"]),
    (lambda: make_anchor("mixer", 4, 2, -1), ValueError, ["seed", ">= 0"]),
    (lambda: count_flops(None, X), TypeError, ["module", "nn.Module"]),
    (lambda: count_flops(nn.Identity(), torch.tensor(1.0)), ValueError, ["example", "at least one sample"]),
    (lambda: candidate_flops(A, A, torch.rand(2, 10)), ValueError, ["x", "64"]),
    (lambda: cka_similarity_matrix(A, A, None), TypeError, ["calib_loader"]),
    (lambda: kl_similarity_matrix(A, A, X, T=INF), ValueError, ["T must", "finite"]),
    (lambda: kl_similarity_matrix(A, A, X, ridge=NAN), ValueError, ["ridge", "finite"]),
    (lambda: fit_stitch_ls(torch.randn(5, 3), torch.randn(5, 3), INF), ValueError, ["ridge", "finite"]),
    (lambda: fit_stitch_ls(torch.full((5, 3), NAN), torch.randn(5, 3)), ValueError, ["H_a", "NaN"]),
    (lambda: fit_stitch_ls(torch.randn(0, 3), torch.randn(0, 3)), ValueError, ["H_a", "at least one row"]),
    (lambda: fit_stitch_ls(torch.ones(5, 3).long(), torch.ones(5, 3).long()), TypeError, ["H_a", "floating"]),
    (lambda: linear_cka(np.full((4, 2), NAN), np.ones((4, 2))), ValueError, ["X", "finite"]),
    (lambda: linear_cka(np.ones(4), np.ones(4)), ValueError, ["X", "(n >= 2, d)"]),
    (lambda: pareto_auc([1, 2], [NAN, 0.6], 0, 3), ValueError, ["acc", "finite"]),
    (lambda: pareto_auc([1, 2], [0.5, 0.6], 0, INF), ValueError, ["f_hi", "finite"]),
    (lambda: pareto_auc([], [], 0, 3), ValueError, ["flops", "non-empty"]),
    (lambda: random_scores((2, 2), None), TypeError, ["rng", "Generator"]),
    (lambda: random_scores((-1, 2), np.random.default_rng(0)), ValueError, ["shape[0]", ">= 0"]),
    (lambda: select_stitches(np.zeros((2, 2)), np.ones((2, 2)), True), ValueError, ["n_bins", "int"]),
    (lambda: select_stitches(np.zeros((2, 2)), np.ones((2, 2)), 2, (NAN, 1)), ValueError, ["flops_range[0]"]),
    (lambda: snnet_scores(2.5, 3), ValueError, ["n_a", "int"]),
    (lambda: digits_data(-1), ValueError, ["seed", ">= 0"]),
    (lambda: digits_data(0, True), ValueError, ["n_train", "int"]),
    (lambda: noisy_digits_data(0, 10, 10, noise=NAN), ValueError, ["noise", "finite"]),
    (lambda: noisy_digits_data(0, 10, 10, shift=5), ValueError, ["shift", ">= 0 and <= 4"]),
    (lambda: noisy_digits_data(0, 10, 0), ValueError, ["n_test", ">= 1"]),
    (lambda: train_anchor(TinyMixer(4, 1), X, Y, 1, 0, lr=INF), ValueError, ["lr", "finite"]),
    (lambda: train_anchor(TinyMixer(4, 1), X, Y, 1, 0, batch=0), ValueError, ["batch", ">= 1"]),
    (lambda: train_anchor(TinyMixer(4, 1), X, Y, -1, 0), ValueError, ["epochs", ">= 1"]),
    (lambda: train_anchor(TinyMixer(4, 1), X, torch.full((16,), 20), 1, 0), ValueError, ["y", "[0, 10)"]),
    (lambda: train_anchor(TinyMixer(4, 1), X, Y[:10], 1, 0), ValueError, ["y", "shape"]),
    (lambda: train_anchor(None, X, Y, 1, 0), TypeError, ["model", "nn.Module"]),
    (
        lambda: train_anchor(TinyMixer(4, 1), X, Y, 1, 0, schedule="cosine"),
        ValueError,
        ["schedule", "one of"],
    ),
]
