"""Bad input to FACT's feature matrices and the RFM estimators."""

import numpy as np
import torch

from iclr26.optim.fact_nfa import RFM, FactRFM, agop_matrix, fact_matrix, feature_agreement

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
    (lambda: RFM(ridge=0.0).fit(XS, YS), ValueError, ["ridge", "> 0"]),
    (lambda: feature_agreement(np.eye(2), np.eye(3)), ValueError, ["A and B", "same shape"]),
]
