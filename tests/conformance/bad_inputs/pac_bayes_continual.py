"""Bad input to the cumulative-loss certificates and posteriors (OpenReview hWw269fPov)."""

import numpy as np
import torch

from iclr26.decision.pac_bayes_continual import (
    BayesLinear,
    BayesMLP,
    EWCLearner,
    GaussianGibbsLinReg,
    ReplayLearner,
    SGLDGibbs,
    VILearner,
    catoni_bound,
    cumulative_bound,
    digits_pool,
    eq3_bound_fn,
    kl_diag_gauss,
    kl_full_gauss,
    lambda_grid,
    linreg_tasks,
    mc_correction,
    oracle_rhs,
    permuted_digits,
    seen_before,
    split_delta,
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

_NAN = float("nan")
_GIBBS_ARGS = (np.array(E), np.array(K2), 10, 0.05, 1.0)


def _ewc():
    return EWCLearner((4, 8, 2), epochs=1)


CASES += [
    (lambda: cumulative_bound(E, K2, m=10, delta=0.05, K=True), ValueError, ["K", "> 0", "True"]),
    (lambda: cumulative_bound(["a", "b"], K2, m=10, delta=0.05), ValueError, ["emp_risks", "numbers"]),
    (lambda: cumulative_bound(E, K2, m=10, delta=0.05, bound_fn=3), TypeError, ["bound_fn", "callable"]),
    (
        lambda: cumulative_bound(E, K2, m=10, delta=0.05, bound_fn=lambda *a: _NAN),
        ValueError,
        ["bound_fn", "finite"],
    ),
    (lambda: catoni_bound(*_GIBBS_ARGS, 0.0), ValueError, ["lam", "> 0"]),
    (lambda: catoni_bound(np.array(E), np.array(K2), 10, 0.0, 1.0, 1.0), ValueError, ["delta", "(0, 1)"]),
    (lambda: eq3_bound_fn(3), TypeError, ["m_term", "callable"]),
    (lambda: lambda_grid(10, n=True), ValueError, ["n (grid size)", "True"]),
    (lambda: lambda_grid(10, hi=float("inf")), ValueError, ["hi", "finite"]),
    (lambda: split_delta(0.05, True), ValueError, ["grid sizes", "True"]),
    (lambda: mc_correction(True), ValueError, ["n_terms", "True"]),
    (
        lambda: kl_diag_gauss(np.full(3, _NAN), np.ones(3), np.zeros(3), np.ones(3)),
        ValueError,
        ["mu_q", "finite"],
    ),
    (
        lambda: kl_diag_gauss(np.zeros(3), np.full(3, float("inf")), np.zeros(3), np.ones(3)),
        ValueError,
        ["sd_q"],
    ),
    (
        lambda: kl_full_gauss(np.zeros(2), -np.eye(2), np.zeros(2), np.eye(2)),
        ValueError,
        ["cov_q", "positive definite"],
    ),
    (
        lambda: kl_full_gauss(np.full(2, _NAN), np.eye(2), np.zeros(2), np.eye(2)),
        ValueError,
        ["mu_q", "finite"],
    ),
    (lambda: GaussianGibbsLinReg(True), ValueError, ["d", "True"]),
    (lambda: GaussianGibbsLinReg(3, noise_sd=float("inf")), ValueError, ["noise_sd", "finite"]),
    (lambda: GaussianGibbsLinReg(3, prior_precision=-np.eye(3)), ValueError, ["prior_precision", "definite"]),
    (lambda: GaussianGibbsLinReg(3).update(np.full((4, 3), _NAN), np.ones(4)), ValueError, ["X", "finite"]),
    (lambda: GaussianGibbsLinReg(3).update(np.zeros((0, 3)), np.zeros(0)), ValueError, ["X", "m >= 1"]),
    (lambda: GaussianGibbsLinReg(3).temperature(0), ValueError, ["m", ">= 1"]),
    (lambda: GaussianGibbsLinReg(3).sample(2, 0), TypeError, ["rng", "Generator"]),
    (lambda: SGLDGibbs(3, step_size=float("inf")), ValueError, ["step_size", "finite"]),
    (lambda: SGLDGibbs(3, seed=-1), ValueError, ["seed", ">= 0"]),
    (lambda: SGLDGibbs(3, batch_size=True), ValueError, ["batch_size", "True"]),
    (lambda: SGLDGibbs(3).update(np.full((4, 3), _NAN), np.ones(4)), ValueError, ["X", "finite"]),
    (lambda: BayesLinear(3, 2, init_sd=float("inf")), ValueError, ["init_sd", "finite"]),
    (lambda: BayesLinear(3, 2, generator=3), TypeError, ["generator", "torch.Generator"]),
    (lambda: BayesLinear(3, 2)(torch.ones(4, 3, dtype=torch.long)), TypeError, ["x", "floating"]),
    (lambda: BayesLinear(3, 2)(torch.full((4, 3), _NAN)), ValueError, ["x", "finite"]),
    (lambda: BayesLinear(3, 2)(torch.ones(4, 3), sample="no"), TypeError, ["sample", "bool"]),
    (lambda: BayesMLP((True, 2)), ValueError, ["sizes", "True"]),
    (lambda: BayesMLP.isotropic([], 0.1), ValueError, ["weights", "non-empty"]),
    (
        lambda: BayesMLP.isotropic(
            [(torch.zeros(2, 3), torch.zeros(2)), (torch.zeros(2, 5), torch.zeros(2))], 0.1
        ),
        ValueError,
        ["weights[1] W", "outputs"],
    ),
    (
        lambda: BayesMLP((4, 8, 2)).gibbs_error(torch.ones(2, 4), torch.full((2,), 5), 2),
        ValueError,
        ["y", "class labels", "[0, 2)"],
    ),
    (
        lambda: BayesMLP((4, 8, 2)).gibbs_error(torch.ones(2, 4), torch.zeros(2), 2),
        TypeError,
        ["y", "integer"],
    ),
    (lambda: EWCLearner((4, 8, 2), lr=float("inf")), ValueError, ["lr", "finite"]),
    (lambda: EWCLearner((4, 8, 2), seed=1.5), ValueError, ["seed", "1.5"]),
    (lambda: EWCLearner((4, 8, 2), optimizer="rmsprop"), ValueError, ["optimizer", "rmsprop"]),
    (lambda: _ewc().fit_task(torch.ones(4, 4), torch.full((4,), 5)), ValueError, ["y", "class labels"]),
    (
        lambda: _ewc().fit_task(torch.ones(0, 4), torch.zeros(0, dtype=torch.long)),
        ValueError,
        ["X", "n >= 1"],
    ),
    (lambda: _ewc().error(torch.ones(4, 5), torch.zeros(4, dtype=torch.long)), ValueError, ["X", "shape"]),
    (lambda: VILearner((4, 8, 2), prior_sd=float("inf")), ValueError, ["prior_sd", "finite"]),
    (
        lambda: VILearner((4, 8, 2), epochs=1).fit_task(
            torch.full((4, 4), _NAN), torch.zeros(4, dtype=torch.long)
        ),
        ValueError,
        ["X", "finite"],
    ),
    (lambda: ReplayLearner((4, 8, 2), buffer_per_task=True), ValueError, ["buffer_per_task", "True"]),
    (lambda: digits_pool(-1), ValueError, ["seed", ">= 0"]),
    (lambda: permuted_digits(True, 0), ValueError, ["n_tasks", "True"]),
    (lambda: linreg_tasks("iid", "limited", 4, 0), TypeError, ["rng", "Generator"]),
    (
        lambda: linreg_tasks("drift", "limited", 4, np.random.default_rng(0), drift_angle=_NAN),
        ValueError,
        ["drift_angle"],
    ),
    (
        lambda: linreg_tasks("drift", "overparam", 4, np.random.default_rng(0), d=3),
        ValueError,
        ["d (>= 4", "3"],
    ),
    (
        lambda: linreg_tasks("iid", "limited", 4, np.random.default_rng(0))[0].sample(
            -1, np.random.default_rng(0)
        ),
        ValueError,
        ["m (samples)", ">= 1"],
    ),
    (
        lambda: linreg_tasks("iid", "limited", 4, np.random.default_rng(0))[0].risk(np.zeros(3)),
        ValueError,
        ["h", "shape"],
    ),
    (lambda: oracle_rhs([]), ValueError, ["tasks", "LinRegTask"]),
    (lambda: seen_before([3]), ValueError, ["tasks", "LinRegTask"]),
]
