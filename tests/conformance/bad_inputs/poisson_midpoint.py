"""Bad input to the PLMC samplers, targets and W2 tools."""

import numpy as np

from iclr26.optim.poisson_midpoint import GaussianTarget, SeparableLogCosh, lmc, plmc, w2_exact_1d

TARGET = SeparableLogCosh(d=1, c=2.0)
X0 = np.zeros((8, 1))


def rng():
    return np.random.default_rng(0)


CASES = [
    (lambda: lmc(TARGET.grad, X0, -0.1, 3, rng()), ValueError, ["h", "positive"]),
    (lambda: plmc(TARGET.grad, X0, 0.1, 3, rng(), K=0), ValueError, ["K", "int >= 1"]),
    (lambda: plmc(TARGET.grad, np.zeros((8, 2)), 0.1, 3, rng()), ValueError, ["x0", "shape"]),
    (lambda: lmc(lambda x: np.full_like(x, np.nan), X0, 0.1, 3, rng()), ValueError, ["grad_F", "non-finite"]),
    (lambda: SeparableLogCosh(d=0, c=1.0), ValueError, ["d", ">= 1"]),
    (lambda: GaussianTarget(np.array([[1.0, 2.0], [2.0, 1.0]])), ValueError, ["Sigma", "positive definite"]),
    (lambda: w2_exact_1d(np.array([]), TARGET.marginal()), ValueError, ["samples"]),
]
