"""Bad input to the NPE-LBF family, its bases, the sbi builder and the simulators (OpenReview jsPQFNmnln)."""

import torch

from iclr26.science.npe_lbf import (
    BSplineBasis1D,
    LBFPosterior,
    LegendreBasis,
    MLPBasis,
    TensorBSpline2D,
    build_lbf,
    make_task,
    two_moons,
)


class _Basis3D(torch.nn.Module):
    d_z, n_basis = 3, 4
    low, high = torch.zeros(3), torch.ones(3)


def _model():
    return LBFPosterior(BSplineBasis1D(8, 0.0, 1.0), x_dim=2, eta_net="linear", grid=32)


CASES = [
    (lambda: LBFPosterior(_Basis3D(), x_dim=2), ValueError, ["d_z", "project"]),
    (lambda: build_lbf(torch.rand(20, 3), torch.rand(20, 2)), ValueError, ["d_z", "project"]),
    (lambda: LegendreBasis(4, d_z=3), ValueError, ["d_z", "project"]),
    (lambda: BSplineBasis1D(3, 0.0, 1.0, degree=3), ValueError, ["smaller than spline degree + 1"]),
    (lambda: TensorBSpline2D((2, 8), (0.0, 0.0), (1.0, 1.0)), ValueError, ["smaller than spline degree + 1"]),
    (lambda: BSplineBasis1D(8, 1.0, 1.0), ValueError, ["support", "empty or inverted"]),
    (lambda: MLPBasis(1, 4, 2.0, -1.0), ValueError, ["support", "empty or inverted"]),
    (
        lambda: build_lbf(torch.rand(20, 1), torch.rand(20, 2), support=([1.0], [0.0])),
        ValueError,
        ["support", "inverted"],
    ),
    (
        lambda: _model().log_prob(torch.tensor([[2.0]]), torch.zeros(1, 2), strict=True),
        ValueError,
        ["outside the support"],
    ),
    (
        lambda: _model().log_prob(torch.rand(5, 1), torch.zeros(3, 2)),
        ValueError,
        ["batch of x", "batch of z"],
    ),
    (lambda: _model().loss(torch.rand(5, 1), torch.zeros(3, 2)), ValueError, ["batch of x", "batch of z"]),
    (lambda: _model().log_prob(torch.rand(5, 2), torch.zeros(5, 2)), ValueError, ["z must have shape"]),
    (lambda: _model().sample(torch.zeros(2, 2), 0), ValueError, ["n (samples per x)"]),
    (lambda: LBFPosterior(BSplineBasis1D(8), x_dim=2, eta_net="rnn"), ValueError, ["eta_net"]),
    (lambda: two_moons(noise=0.0), ValueError, ["noise"]),
    (lambda: make_task("nope"), ValueError, ["unknown task"]),
]
