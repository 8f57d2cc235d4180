"""Bad input to FACT's feature matrices and the RFM estimators."""

import numpy as np
import torch

from iclr26.optim.fact_nfa import (
    RFM,
    FactRFM,
    agop_matrix,
    fact_matrix,
    feature_agreement,
    kernel_fact_and_agop,
    laplace_kernel,
    psd_power,
    rfm_iterates,
    solve_kernel_ridge,
    update_features,
)

NAN, INF = float("nan"), float("inf")

NET = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
X, Y = torch.randn(6, 3), torch.randn(6, 1)
MSE = torch.nn.functional.mse_loss
XS, YS = np.random.default_rng(0).standard_normal((10, 2)), np.arange(10.0)

CASES = [
    (lambda: fact_matrix(NET, "0", X, Y, MSE, 0.0), ValueError, ["weight_decay", "> 0"]),
    (lambda: fact_matrix(NET, "7", X, Y, MSE, 1e-3), ValueError, ["layer", "not found"]),
    (lambda: fact_matrix(NET, "0", X, Y[:4], MSE, 1e-3), ValueError, ["X and Y", "same number of rows"]),
    (lambda: fact_matrix(NET, "1", X, Y, MSE, 1e-3), ValueError, ["layer", "2-D weight"]),
    (lambda: agop_matrix(NET, "0", X, power=1.5), ValueError, ["power", "(0, 1]"]),
    (lambda: FactRFM(update="sgd").fit(XS, YS), ValueError, ["update", "fact_geomean"]),
    (lambda: RFM(nfa_power=0.0).fit(XS, YS), ValueError, ["nfa_power", "(0, 1]"]),
    (lambda: RFM(ridge=-1.0).fit(XS, YS), ValueError, ["ridge", ">= 0"]),
    (lambda: RFM(kernel="rbf").fit(XS, YS), ValueError, ["kernel", "gaussian"]),
    (lambda: RFM(center_grads="yes").fit(XS, YS), ValueError, ["center_grads", "bool"]),
    (lambda: feature_agreement(np.eye(2), np.eye(3)), ValueError, ["A and B", "same shape"]),
    (lambda: RFM(iters=True).fit(XS, YS), ValueError, ["iters", "int"]),
    (lambda: RFM(bandwidth=INF).fit(XS, YS), ValueError, ["bandwidth", "finite"]),
    (lambda: FactRFM(ridge=INF).fit(XS, YS), ValueError, ["ridge", "finite"]),
    (lambda: FactRFM(bandwidth=NAN).fit(XS, YS), ValueError, ["bandwidth", "finite"]),
    (lambda: agop_matrix(NET, "0", X, power=NAN), ValueError, ["power", "(0, 1]"]),
    (lambda: agop_matrix(NET, "0", X.long()), TypeError, ["X", "floating"]),
    (lambda: agop_matrix(NET, "0", X[:0]), ValueError, ["X", "at least one row"]),
    (lambda: agop_matrix(None, "0", X), TypeError, ["model", "nn.Module"]),
    (lambda: fact_matrix(NET, "0", X, Y, MSE, INF), ValueError, ["weight_decay", "finite"]),
    (lambda: fact_matrix(NET, "0", X, Y, None, 1e-3), TypeError, ["loss_fn", "callable"]),
    (lambda: feature_agreement(np.full((2, 2), NAN), np.eye(2)), ValueError, ["A and B", "finite"]),
    (lambda: kernel_fact_and_agop(XS, np.zeros((10, 1)), np.eye(2), 0.0), ValueError, ["bandwidth", "> 0"]),
    (lambda: kernel_fact_and_agop(XS, np.zeros((4, 1)), np.eye(2), 1.0), ValueError, ["alpha", "10 rows"]),
    (lambda: laplace_kernel(XS, XS, np.eye(2), -1.0), ValueError, ["bandwidth", "> 0"]),
    (lambda: laplace_kernel(XS, np.zeros((3, 5)), np.eye(2), 1.0), ValueError, ["X and Z", "features"]),
    (lambda: laplace_kernel(XS, XS, np.full((2, 2), NAN), 1.0), ValueError, ["M", "finite"]),
    (lambda: psd_power(np.eye(2), NAN), ValueError, ["power", "finite"]),
    (lambda: psd_power(np.ones(3), 0.5), ValueError, ["A", "square"]),
    (lambda: psd_power(np.full((2, 2), NAN), 0.5), ValueError, ["A", "finite"]),
    (lambda: rfm_iterates(XS, YS[:, None], 1, NAN, 1e-3, "nfa"), ValueError, ["bandwidth", "finite"]),
    (lambda: rfm_iterates(XS, YS[:, None], 1, 1.0, -1e-3, "nfa"), ValueError, ["ridge", ">= 0"]),
    (
        lambda: rfm_iterates(XS, YS[:, None], 1, 1.0, 0.0, "nfa", kernel="cauchy"),
        ValueError,
        ["kernel", "laplace"],
    ),
    (
        lambda: rfm_iterates(XS, YS[:, None], 1, 1.0, 0.0, "nfa", normalize=1),
        TypeError,
        ["normalize", "bool"],
    ),
    (
        lambda: solve_kernel_ridge(np.ones((2, 2)), np.ones(2), 0.0),
        ValueError,
        ["singular", "ridge > 0"],
    ),
    (lambda: rfm_iterates(XS, YS[:4, None], 1, 1.0, 1e-3, "nfa"), ValueError, ["Y", "10 rows"]),
    (lambda: solve_kernel_ridge(np.eye(3), np.ones(3), NAN), ValueError, ["ridge", "finite"]),
    (lambda: solve_kernel_ridge(np.eye(3), np.ones(3), -1.0), ValueError, ["ridge", ">= 0"]),
    (lambda: solve_kernel_ridge(np.eye(3), np.ones(4), 1e-3), ValueError, ["Y", "3 rows"]),
    (
        lambda: update_features(np.eye(2), np.eye(2), np.eye(2), "nfa", NAN),
        ValueError,
        ["nfa_power", "(0, 1]"],
    ),
    (
        lambda: update_features(np.eye(2), np.eye(3), np.eye(2), "nfa", 0.5),
        ValueError,
        ["agop", "2 features"],
    ),
]
