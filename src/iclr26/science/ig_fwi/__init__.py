"""IG-FWI: "Unveiling the Mechanism of Continuous Representation Full-Waveform Inversion: A Wave Based Neural
Tangent Kernel Framework" (Chen, Luo, Wu, Meng; ICLR 2026, OpenReview blqYa21WOv, arXiv 2603.22362).

Continuous-representation FWI writes the velocity as v = v_0 + s G_theta(x); its residual flows under the
wave-based NTK K = J Theta J^T. Here: the representations (pixel grid, SIREN, Fourier features, multi-resolution
grid, the IG hybrid), FWI with Adam, the representation NTK and the top of K_wave's spectrum, the metrics, and a
code-generated Marmousi-like survey on the lab's 2-D acoustic solver.

Example
-------
>>> import torch
>>> from iclr26.science.ig_fwi import IGRep, grid_coords, representation_ntk
>>> theta = representation_ntk(IGRep(alpha=0.5), grid_coords(6, 8))
>>> theta.shape
torch.Size([48, 48])
"""

from iclr26.science.ig_fwi.fwi import FWIHistory, OptConfig, fwi_fit, velocity
from iclr26.science.ig_fwi.metrics import highpass, highpass_error, relative_model_error, ssim
from iclr26.science.ig_fwi.models import (
    AcousticFD2D,
    linear_gradient_model,
    marmousi_like,
    smoothed_model,
    surface_acquisition,
)
from iclr26.science.ig_fwi.ntk import power_law_exponent, representation_ntk, subsample_nodes, wave_ntk_topk
from iclr26.science.ig_fwi.representations import (
    FourierFeatureRep,
    IGRep,
    MultiResGridRep,
    PixelGrid,
    Representation,
    SirenRep,
    grid_coords,
)

__all__ = [
    "AcousticFD2D",
    "FWIHistory",
    "FourierFeatureRep",
    "IGRep",
    "MultiResGridRep",
    "OptConfig",
    "PixelGrid",
    "Representation",
    "SirenRep",
    "fwi_fit",
    "grid_coords",
    "highpass",
    "highpass_error",
    "linear_gradient_model",
    "marmousi_like",
    "power_law_exponent",
    "relative_model_error",
    "representation_ntk",
    "smoothed_model",
    "ssim",
    "subsample_nodes",
    "surface_acquisition",
    "velocity",
    "wave_ntk_topk",
]
