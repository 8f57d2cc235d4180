"""Neural posterior estimation with latent basis function (LBF) families (ICLR 2026, OpenReview jsPQFNmnln).

The posterior family is an exponential family in the latent: log q(z | x) = eta(x)^T T(z) - A(eta(x)) + log h(z),
with fixed (B-spline, Legendre) or learned (MLP) basis functions T and a neural network eta(x); A is computed by
grid quadrature on a support box of a 1- or 2-D latent of interest. The sbi parts (``build_lbf``,
``LBFDensityEstimator``) import sbi on first use so that importing this package stays fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from iclr26.science.npe_lbf.bases import BSplineBasis1D, LegendreBasis, MLPBasis, TensorBSpline2D
from iclr26.science.npe_lbf.family import LBFPosterior, npe_train
from iclr26.science.npe_lbf.simulators import (
    TASKS,
    Task,
    bimodal_square,
    conjugate_gaussian,
    hierarchical_nuisance,
    make_task,
    slcp,
    two_moons,
)

if TYPE_CHECKING:
    from iclr26.science.npe_lbf.sbi_estimator import LBFDensityEstimator

__all__ = [
    "TASKS",
    "BSplineBasis1D",
    "LBFDensityEstimator",
    "LBFPosterior",
    "LegendreBasis",
    "MLPBasis",
    "Task",
    "TensorBSpline2D",
    "bimodal_square",
    "build_lbf",
    "conjugate_gaussian",
    "hierarchical_nuisance",
    "make_task",
    "npe_train",
    "slcp",
    "two_moons",
]


def build_lbf(batch_theta: Any, batch_x: Any, **kwargs: Any) -> LBFDensityEstimator:
    """sbi density-estimator builder of the LBF family; see :func:`.sbi_estimator.build_lbf` for the options.

    Usable as ``sbi.inference.NPE(prior, density_estimator=build_lbf)``.
    """
    from iclr26.science.npe_lbf.sbi_estimator import build_lbf as _build

    return _build(batch_theta, batch_x, **kwargs)


def __getattr__(name: str) -> Any:
    if name == "LBFDensityEstimator":
        from iclr26.science.npe_lbf.sbi_estimator import LBFDensityEstimator

        return LBFDensityEstimator
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
