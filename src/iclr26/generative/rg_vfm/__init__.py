"""Riemannian Variational Flow Matching for Material and Protein Design (RG-VFM).

Zaghen, Eijkelboom, Pouplin, Liu, Welling, van de Meent, Bekkers; ICLR 2026, OpenReview NlnDselrtl,
arXiv 2502.12981. Endpoint prediction with a Riemannian Gaussian posterior: the loss d(mu_theta(x_t, t), x1)^2,
compared with velocity-based Riemannian flow matching, on S^2 and H^2 checkerboards.
"""

from iclr26.generative.rg_vfm import manifolds
from iclr26.generative.rg_vfm.jacobi import jacobi_endpoint_norm, jacobi_factor, jacobi_gap
from iclr26.generative.rg_vfm.losses import CFMLoss, RFMLoss, RGVFMLoss
from iclr26.generative.rg_vfm.manifolds import SO3, Euclidean, Lorentz, Manifold, Sphere
from iclr26.generative.rg_vfm.models import EndpointMLP, VelocityMLP
from iclr26.generative.rg_vfm.sampler import ManifoldFlowSampler

__all__ = [
    "SO3",
    "CFMLoss",
    "EndpointMLP",
    "Euclidean",
    "Lorentz",
    "Manifold",
    "ManifoldFlowSampler",
    "RFMLoss",
    "RGVFMLoss",
    "Sphere",
    "VelocityMLP",
    "jacobi_endpoint_norm",
    "jacobi_factor",
    "jacobi_gap",
    "manifolds",
]
