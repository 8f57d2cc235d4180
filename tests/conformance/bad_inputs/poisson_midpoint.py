"""Bad input to the PLMC samplers, targets and W2 tools."""

import numpy as np

from iclr26.optim.poisson_midpoint import (
    BayesLogReg,
    GaussianTarget,
    SeparableLogCosh,
    TargetLaw1D,
    UnderdampedScheme,
    gelbrich_w2,
    lmc,
    marginal_w2_squared,
    noise_floor,
    plmc,
    sliced_w2,
    w2_empirical_1d,
    w2_exact_1d,
)

NAN = float("nan")

TARGET = SeparableLogCosh(d=1, c=2.0)
X0 = np.zeros((8, 1))


def rng():
    return np.random.default_rng(0)


CASES = [
    (lambda: lmc(TARGET.grad, X0, -0.1, 3, rng()), ValueError, ["h", "> 0", "-0.1"]),
    (lambda: plmc(TARGET.grad, X0, 0.1, 3, rng(), K=0), ValueError, ["K", "int >= 1"]),
    (lambda: plmc(TARGET.grad, np.zeros((8, 2)), 0.1, 3, rng()), ValueError, ["x0", "shape"]),
    (lambda: lmc(lambda x: np.full_like(x, np.nan), X0, 0.1, 3, rng()), ValueError, ["grad_F", "non-finite"]),
    (lambda: SeparableLogCosh(d=0, c=1.0), ValueError, ["d", ">= 1"]),
    (lambda: GaussianTarget(np.array([[1.0, 2.0], [2.0, 1.0]])), ValueError, ["Sigma", "positive definite"]),
    (lambda: w2_exact_1d(np.array([]), TARGET.marginal()), ValueError, ["samples"]),
    (lambda: GaussianTarget(np.eye(2), mean=np.full(2, NAN)), ValueError, ["mean", "finite"]),
    (lambda: GaussianTarget(np.full((2, 2), NAN)), ValueError, ["Sigma", "finite"]),
    (lambda: GaussianTarget.with_condition_number(2, 0.5, rng()), ValueError, ["kappa", ">= 1"]),
    (lambda: GaussianTarget(np.eye(2)).sample(-1, rng()), ValueError, ["n", ">= 1"]),
    (lambda: TARGET.sample(2, None), TypeError, ["rng", "Generator"]),
    (lambda: SeparableLogCosh(d=1, c=True), ValueError, ["c", "finite float >= 0"]),
    (lambda: BayesLogReg(np.full((3, 2), NAN), np.ones(3)), ValueError, ["X", "finite"]),
    (lambda: BayesLogReg.synthetic(0, 2, rng()), ValueError, ["n", ">= 1"]),
    (lambda: BayesLogReg.synthetic(3, 0, rng()), ValueError, ["d", ">= 1"]),
    (lambda: TargetLaw1D(lambda x: -(x**2), -1, 1, n_grid=10.5), ValueError, ["n_grid", "int"]),
    (lambda: TargetLaw1D(None, -1, 1), TypeError, ["log_density", "callable"]),
    (lambda: TARGET.marginal().quantile(2.0), ValueError, ["q", "[0, 1]"]),
    (lambda: UnderdampedScheme(gamma=True), ValueError, ["gamma", "> 0"]),
    (
        lambda: gelbrich_w2(np.zeros((4, 2)), np.zeros(2), -np.eye(2)),
        ValueError,
        ["cov", "positive semi-definite"],
    ),
    (lambda: gelbrich_w2(np.zeros((1, 2)), np.zeros(2), np.eye(2)), ValueError, ["samples", "at least 2"]),
    (lambda: marginal_w2_squared(np.zeros((4, 1)), None), TypeError, ["law", "TargetLaw1D"]),
    (lambda: w2_empirical_1d([NAN, 1.0], [0.0, 1.0]), ValueError, ["a and b", "finite"]),
    (
        lambda: sliced_w2(np.zeros((4, 2)), np.zeros((4, 2)), n_projections=0),
        ValueError,
        ["n_projections", ">= 1"],
    ),
    (lambda: sliced_w2(np.zeros((4, 2)), np.zeros((4, 2)), seed=-1), ValueError, ["seed", ">= 0"]),
    (lambda: sliced_w2(np.full((4, 2), NAN), np.zeros((4, 2))), ValueError, ["samples", "finite"]),
    (lambda: noise_floor(TARGET.marginal().sample, 10, None), TypeError, ["rng", "Generator"]),
    (lambda: noise_floor(TARGET.marginal().sample, 10.5, rng()), ValueError, ["n", "int"]),
    (lambda: noise_floor(None, 10, rng()), TypeError, ["sample", "callable"]),
    (
        lambda: gelbrich_w2(np.array([[0.0, 1.0], [np.nan, 0.0]]), np.zeros(2), np.eye(2)),
        ValueError,
        ["samples", "finite"],
    ),
]
