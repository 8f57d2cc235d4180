"""PLMC: the Poisson midpoint method for log-concave sampling (arXiv 2506.07614, ICLR 2026).

Samplers (each ``(grad_F, x0, h, n_steps, rng, ...) -> SampleResult(samples, grad_calls)``, NumPy or torch):
:func:`plmc` (overdamped or underdamped, K fine steps or the Poisson limit, loop or event-jump form) and the
baselines :func:`lmc`, :func:`ulmc`, :func:`rlmc`, :func:`rlmc_underdamped`; the underdamped
exponential-integrator matrices :func:`underdamped_matrices`; targets with known alpha and L; W2 tools.
"""

from iclr26.optim.poisson_midpoint.baselines import lmc, rlmc, rlmc_underdamped, ulmc
from iclr26.optim.poisson_midpoint.driver import SampleResult
from iclr26.optim.poisson_midpoint.plmc import plmc
from iclr26.optim.poisson_midpoint.schemes import OverdampedScheme, UnderdampedScheme, underdamped_matrices
from iclr26.optim.poisson_midpoint.targets import BayesLogReg, GaussianTarget, SeparableLogCosh
from iclr26.optim.poisson_midpoint.wasserstein import (
    TargetLaw1D,
    gelbrich_w2,
    marginal_w2_squared,
    noise_floor,
    sliced_w2,
    w2_empirical_1d,
    w2_exact_1d,
)

__all__ = [
    "BayesLogReg",
    "GaussianTarget",
    "OverdampedScheme",
    "SampleResult",
    "SeparableLogCosh",
    "TargetLaw1D",
    "UnderdampedScheme",
    "gelbrich_w2",
    "lmc",
    "marginal_w2_squared",
    "noise_floor",
    "plmc",
    "rlmc",
    "rlmc_underdamped",
    "sliced_w2",
    "ulmc",
    "underdamped_matrices",
    "w2_empirical_1d",
    "w2_exact_1d",
]
