"""Bad input to the cumulative-loss certificates and posteriors (OpenReview hWw269fPov)."""

import numpy as np
import torch

from iclr26.decision.pac_bayes_continual import (
    BayesLinear,
    BayesMLP,
    GaussianGibbsLinReg,
    SGLDGibbs,
    cumulative_bound,
    kl_diag_gauss,
    linreg_tasks,
    mc_correction,
)

E, K2 = [0.1, 0.2], [1.0, 2.0]

CASES = [
    (lambda: cumulative_bound(E, K2, m=0, delta=0.05), ValueError, ["m", ">= 1"]),
    (lambda: cumulative_bound(E, K2, m=100, delta=1.5), ValueError, ["delta", "(0, 1)"]),
    (lambda: cumulative_bound(E, K2, m=100, delta=0.0), ValueError, ["delta", "(0, 1)"]),
    (lambda: cumulative_bound([0.1, 1.7], K2, m=100, delta=0.05), ValueError, ["emp_risks", "[0, K]"]),
    (
        lambda: cumulative_bound(E, K2, m=100, delta=0.05, lambdas=[-1.0, 2.0]),
        ValueError,
        ["lambdas", "positive"],
    ),
    (lambda: cumulative_bound(E, [1.0, -3.0], m=100, delta=0.05), ValueError, ["kls", "non-negative"]),
    (lambda: cumulative_bound(E, [1.0], m=100, delta=0.05), ValueError, ["kls", "one entry per task"]),
    (lambda: kl_diag_gauss(np.zeros(3), np.ones(3), np.zeros(4), np.ones(4)), ValueError, ["shape mismatch"]),
    (
        lambda: kl_diag_gauss(np.zeros(3), np.zeros(3), np.zeros(3), np.ones(3)),
        ValueError,
        ["sd_q", "positive"],
    ),
    (lambda: BayesMLP((4, 8, 2)).kl_to(BayesMLP((4, 6, 2))), ValueError, ["shape mismatch"]),
    (lambda: BayesLinear(3, 2).kl_to(BayesLinear(4, 2)), ValueError, ["shape mismatch"]),
    (lambda: BayesMLP((4, 8, 2))(torch.ones(2, 5)), ValueError, ["x", "shape"]),
    (lambda: mc_correction(0, 5), ValueError, ["n_terms", ">= 1"]),
    (lambda: GaussianGibbsLinReg(3, lam=-1.0), ValueError, ["lam", "positive"]),
    (lambda: GaussianGibbsLinReg(3).update(np.ones((4, 2)), np.ones(4)), ValueError, ["X", "shape"]),
    (lambda: SGLDGibbs(3, step_size=0.0), ValueError, ["step_size", "positive"]),
    (lambda: linreg_tasks("zigzag", "limited", 10, np.random.default_rng(0)), ValueError, ["scenario"]),
]
