"""Bad input to the IG-FWI representations, operator, kernels and metrics."""

import torch

from iclr26.lab.pde.wave import ricker
from iclr26.science.ig_fwi import (
    AcousticFD2D,
    IGRep,
    MultiResGridRep,
    OptConfig,
    SirenRep,
    representation_ntk,
    ssim,
    surface_acquisition,
)
from iclr26.science.ig_fwi.experiment import IGFWIConfig, make_representation

SRC, REC = surface_acquisition(12, 2)
W = ricker(5.0, 50, 0.004)
OP = AcousticFD2D(10, 12, 40.0, 0.004, SRC, REC, W, pml_width=4)

CASES = [
    (lambda: OP(torch.full((10, 12), -5.0)), ValueError, ["v (velocity)", "> 0"]),
    (lambda: OP(torch.full((10, 12), float("inf"))), ValueError, ["v (velocity)", "finite"]),
    (lambda: OP(torch.full((10, 12), 8000.0)), ValueError, ["v_max*dt/dx", "exceeds the limit"]),
    (lambda: OP(torch.full((10, 11), 2000.0)), ValueError, ["v must have shape", "(10, 12)"]),
    (lambda: AcousticFD2D(10, 12, 40.0, 0.004, [(1, 30)], REC, W), ValueError, ["src", "outside the grid"]),
    (lambda: AcousticFD2D(10, 12, 40.0, 0.004, SRC, [(10, 1)], W), ValueError, ["rec", "outside the grid"]),
    (
        lambda: AcousticFD2D(10, 12, 40.0, 0.004, SRC, REC, W, nt=60),
        ValueError,
        ["nt = 60", "wavelet length 50"],
    ),
    (lambda: AcousticFD2D(10, 12, 40.0, 0.004, SRC, REC), ValueError, ["wavelet", "nt and freq"]),
    (lambda: IGRep(alpha=1.5), ValueError, ["alpha", "[0, 1]"]),
    (lambda: IGRep(head="conv"), ValueError, ["head", "'linear'"]),
    (lambda: SirenRep()(torch.zeros(5, 3)), ValueError, ["coords", "(N, 2)"]),
    (lambda: MultiResGridRep(levels=0), ValueError, ["levels", ">= 1"]),
    (lambda: representation_ntk(SirenRep(), torch.zeros(2000, 2)), ValueError, ["2000 nodes", "1500"]),
    (lambda: ssim(torch.zeros(10, 10), torch.zeros(10, 12)), ValueError, ["x has shape", "y has"]),
    (lambda: ssim(torch.ones(10, 10), torch.ones(10, 10)), ValueError, ["data_range", "constant"]),
    (lambda: OptConfig(lr_net=0.0), ValueError, ["lr_net", "> 0"]),
    (lambda: make_representation("cnn", IGFWIConfig()), ValueError, ["method", "'grid'"]),
    (lambda: IGFWIConfig(iters=10, hp_check_iter=20), ValueError, ["hp_check_iter", "iters"]),
]
