"""Bad input to LEWC's merging, calibration, LMC curves, LEWC fit and weight matching."""

import torch
from torch import nn

from iclr26.optim.lewc import (
    barrier,
    calibrate_temperature,
    digits_task,
    gmm_task,
    lewc_fit,
    linear_path_expansion,
    lmc_curve,
    make_mlp,
    merge_linear,
    nll,
    predict_logits,
    train_mlp,
    weight_matching,
    weight_matching_permute,
)

NAN, INF = float("nan"), float("inf")

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
    (lambda: train_mlp(make_mlp(4, 3, 1), X, Y, 1, 0, lr=INF), ValueError, ["lr", "finite"]),
    (lambda: train_mlp(make_mlp(4, 3, 1), X, Y, 1, 0, lr=NAN), ValueError, ["lr", "finite"]),
    (
        lambda: train_mlp(make_mlp(4, 3, 1), X, Y, 1, 0, weight_decay=NAN),
        ValueError,
        ["weight_decay", "finite"],
    ),
    (lambda: train_mlp(make_mlp(4, 3, 1), X, Y, 1, 0, momentum=INF), ValueError, ["momentum", "finite"]),
    (lambda: train_mlp(make_mlp(4, 3, 1), X, torch.full((8,), 9), 1, 0), ValueError, ["y", "[0, 3)"]),
    (lambda: train_mlp(make_mlp(4, 3, 1), X, Y[:4], 1, 0), ValueError, ["y", "shape"]),
    (lambda: train_mlp(make_mlp(4, 3, 1), X[:0], Y[:0], 1, 0), ValueError, ["x", "at least one"]),
    (lambda: train_mlp(make_mlp(4, 3, 1), X, Y, 1, -1), ValueError, ["seed", ">= 0"]),
    (lambda: make_mlp(True, 3, 1), ValueError, ["d_in", "must be an int >= 1"]),
    (lambda: make_mlp(4, 3, 1, seed=1.5), ValueError, ["seed", "int"]),
    (lambda: nll(torch.zeros(4, 2), torch.zeros(4).long(), True), ValueError, ["temperature", "float"]),
    (lambda: nll(torch.zeros(4, 2), torch.full((4,), 5)), ValueError, ["y", "[0, 2)"]),
    (lambda: nll(torch.zeros(4, 2), torch.full((4,), 0.7)), TypeError, ["y", "integer"]),
    (lambda: nll(torch.full((4, 2), NAN), torch.zeros(4).long()), ValueError, ["logits", "finite"]),
    (
        lambda: calibrate_temperature(torch.full((4, 2), NAN), torch.zeros(4).long()),
        ValueError,
        ["logits", "finite"],
    ),
    (lambda: barrier([NAN, 1.0], [0.0, 1.0]), ValueError, ["values", "finite"]),
    (lambda: barrier([1.0, 2.0, 1.0], [0.0, 1.5, 1.0]), ValueError, ["lambdas", "increase"]),
    (lambda: predict_logits(NARROW, X, 0), ValueError, ["batch_size", ">= 1"]),
    (lambda: predict_logits(NARROW, [1.0]), TypeError, ["x", "torch.Tensor"]),
    (lambda: merge_linear(NARROW, NARROW, "0.5"), ValueError, ["lam", "float"]),
    (lambda: merge_linear(NARROW, NARROW, True), ValueError, ["lam", "float"]),
    (lambda: lewc_fit(NARROW, NARROW, 0.5, X.long()), TypeError, ["probe_x", "floating"]),
    (lambda: linear_path_expansion([torch.eye(2)], [torch.eye(2)], NAN), ValueError, ["lam", "[0, 1]"]),
    (lambda: linear_path_expansion([[1.0]], [[1.0]], 0.5), TypeError, ["mats_a[0]", "torch.Tensor"]),
    (lambda: lmc_curve(NARROW, NARROW, None), TypeError, ["data", "mapping"]),
    (lambda: digits_task(-1), ValueError, ["seed", ">= 0"]),
    (lambda: digits_task(0, (10.5, 5, 5)), ValueError, ["n_train", "int"]),
    (lambda: gmm_task(0, (10, 5, 5), spread=NAN), ValueError, ["spread", "finite"]),
    (lambda: gmm_task(0, (10, 5, 5), n_classes=0), ValueError, ["n_classes", ">= 2"]),
    (lambda: gmm_task(0, (10, 5, 5), dim=0), ValueError, ["dim", ">= 1"]),
    (lambda: weight_matching(NARROW, NARROW, seed=-1), ValueError, ["seed", ">= 0"]),
    (lambda: weight_matching(NARROW, NARROW, max_iter=1.5), ValueError, ["max_iter", "int"]),
]
