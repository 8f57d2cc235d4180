"""SpecGD: "How Muon's Spectral Design Benefits Generalization: A Study on Imbalanced Data".

Vasudeva, Deora, Zhao, Sharan, Thrampoulidis; arXiv 2510.22980, OpenReview YzjS4jcfmS (ICLR 2026).

Spectral gradient descent steps along the polar factor ``U V^T`` of each weight matrix's gradient, so every
principal direction of the data is learned at the same rate; on long-tailed data this helps the minority
classes early in training. This package holds the optimizers (:class:`SpectralGD`, :class:`NormalizedGD`), the
orthogonalization kernels, the reconstructed imbalanced Gaussian-mixture model with its closed-form dynamics,
and the class-balanced metrics.
"""

from iclr26.optim.specgd.data import (
    ImbalancedData,
    balanced_metrics,
    long_tailed_digits,
    long_tailed_priors,
    make_imbalanced_gmm,
)
from iclr26.optim.specgd.dynamics import linear_dynamics_closed_form, population_loss
from iclr26.optim.specgd.normalized_gd import NormalizedGD, gradient_norm
from iclr26.optim.specgd.orthogonalize import MUON_NS5_COEFFICIENTS, orthogonalize_ns, orthogonalize_svd
from iclr26.optim.specgd.spectral_gd import SpectralGD

__all__ = [
    "MUON_NS5_COEFFICIENTS",
    "ImbalancedData",
    "NormalizedGD",
    "SpectralGD",
    "balanced_metrics",
    "gradient_norm",
    "linear_dynamics_closed_form",
    "long_tailed_digits",
    "long_tailed_priors",
    "make_imbalanced_gmm",
    "orthogonalize_ns",
    "orthogonalize_svd",
    "population_loss",
]
