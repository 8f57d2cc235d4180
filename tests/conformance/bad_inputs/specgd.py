"""Bad input to SpecGD's optimizers, data generators and metrics (arXiv 2510.22980)."""

import torch

from iclr26.optim.specgd import (
    NormalizedGD,
    SpectralGD,
    balanced_metrics,
    linear_dynamics_closed_form,
    make_imbalanced_gmm,
)

W = torch.nn.Parameter(torch.zeros(3, 4))
B = torch.nn.Parameter(torch.zeros(3))

CASES = [
    (lambda: SpectralGD([W], lr=float("inf")), ValueError, ["SpectralGD", "lr", "finite"]),
    (lambda: NormalizedGD([W], lr=float("nan")), ValueError, ["NormalizedGD", "lr", "finite"]),
    (lambda: SpectralGD([W], lr="0.1"), ValueError, ["lr", "'0.1'"]),
    (lambda: SpectralGD([W], betas=(0.9,)), ValueError, ["betas", "pair"]),
    (lambda: SpectralGD([W, B], lr=0.1), ValueError, ["not 2-D", "fallback"]),
    (lambda: SpectralGD([W], lr=0.0), ValueError, ["lr", "> 0"]),
    (lambda: SpectralGD([W], lr=-1.0), ValueError, ["lr", "> 0"]),
    (lambda: SpectralGD([W], rtol=0.0), ValueError, ["rtol", "(0, 1)"]),
    (lambda: SpectralGD([W], rtol=1.0), ValueError, ["rtol", "(0, 1)"]),
    (lambda: SpectralGD([W], mode="qr"), ValueError, ["mode"]),
    (lambda: SpectralGD([B], fallback="lion"), ValueError, ["fallback"]),
    (lambda: NormalizedGD([W], lr=0.0), ValueError, ["lr", "> 0"]),
    (lambda: NormalizedGD([W], norm="nuclear"), ValueError, ["norm"]),
    (lambda: make_imbalanced_gmm(K=4, d=8, rho=0.5), ValueError, ["rho", ">= 1"]),
    (lambda: make_imbalanced_gmm(K=10, d=5, rho=10.0), ValueError, ["K", "d", "orthogonal"]),
    (lambda: balanced_metrics(torch.zeros(4, 3), torch.tensor([0, 1, 5, 2])), ValueError, ["y", "labels"]),
    (
        lambda: linear_dynamics_closed_form(torch.tensor([0.5, 0.5]), 1.0, 0.1, 3, "adam"),
        ValueError,
        ["method"],
    ),
]
