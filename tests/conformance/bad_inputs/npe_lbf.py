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
    npe_train,
    slcp,
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

_NAN = float("nan")
_TASK = make_task("bimodal_square")


def _fam():
    return LBFPosterior(BSplineBasis1D(8, -2.0, 2.0), x_dim=1, eta_net="linear", grid=32)


CASES += [
    (lambda: BSplineBasis1D(True, 0.0, 1.0, degree=0), ValueError, ["n_basis", "True"]),
    (lambda: BSplineBasis1D(8, degree=True), ValueError, ["degree", "True"]),
    (lambda: BSplineBasis1D(8, "a", 1.0), ValueError, ["support", "numbers"]),
    (lambda: BSplineBasis1D(8)(torch.zeros(3, 1, dtype=torch.long)), TypeError, ["z", "floating"]),
    (lambda: BSplineBasis1D(8)(torch.full((3, 1), _NAN)), ValueError, ["z", "NaN"]),
    (lambda: BSplineBasis1D(8).evaluate(torch.zeros(3, 2)), ValueError, ["z1", "1-D"]),
    (lambda: TensorBSpline2D((8, 8, 8)), ValueError, ["n_basis", "pair"]),
    (lambda: LegendreBasis(True), ValueError, ["degree", "True"]),
    (lambda: MLPBasis(1, True), ValueError, ["n_basis", "True"]),
    (lambda: LBFPosterior(BSplineBasis1D(8), True), ValueError, ["x_dim", "True"]),
    (lambda: LBFPosterior(BSplineBasis1D(8), 2, penalty=_NAN), ValueError, ["penalty", "nan"]),
    (lambda: LBFPosterior(BSplineBasis1D(8), 2, hidden=(1.5,)), ValueError, ["hidden", "1.5"]),
    (lambda: LBFPosterior(BSplineBasis1D(8), 2, log_base=3), TypeError, ["log_base", "callable"]),
    (
        lambda: LBFPosterior(BSplineBasis1D(8), 2, log_base=lambda z: torch.zeros(3)),
        ValueError,
        ["log_base", "one log density per point"],
    ),
    (lambda: LBFPosterior(BSplineBasis1D(8), 2, embedding_net=3), TypeError, ["embedding_net", "Module"]),
    (lambda: _model().eta(torch.full((3, 2), _NAN)), ValueError, ["x", "finite"]),
    (lambda: _model().eta(torch.zeros(3, 2, dtype=torch.long)), TypeError, ["x", "floating"]),
    (lambda: _model().grid_logits(torch.full((2, 8), _NAN)), ValueError, ["eta", "finite"]),
    (lambda: _model().sample_eta(torch.full((2, 8), float("inf")), 3), ValueError, ["eta", "finite"]),
    (lambda: _model().log_prob(torch.full((3, 1), _NAN), torch.zeros(3, 2)), ValueError, ["z", "NaN"]),
    (lambda: _model().loss(torch.full((3, 1), _NAN), torch.zeros(3, 2)), ValueError, ["z", "NaN"]),
    (
        lambda: _model().log_prob(torch.zeros(3, 1), torch.zeros(3, 2), strict="yes"),
        TypeError,
        ["strict", "bool"],
    ),
    (
        lambda: _model().log_prob_eta(torch.zeros(3, 1), torch.zeros(3, 8), log_norm=torch.zeros(5)),
        ValueError,
        ["log_norm", "shape"],
    ),
    (
        lambda: _model().linear_term(torch.zeros(3, 1), torch.zeros(2, 8)),
        ValueError,
        ["batch of eta", "batch of z"],
    ),
    (lambda: _model().in_support(torch.zeros(3, 2)), ValueError, ["z must have shape"]),
    (lambda: _model().roughness(torch.zeros(2, 7)), ValueError, ["eta", "K = 8"]),
    (lambda: _model().sample(torch.zeros(2, 2), True), ValueError, ["n (samples per x)", "True"]),
    (lambda: _model().sample(torch.zeros(2, 2), 3, generator=3), TypeError, ["generator", "torch.Generator"]),
    (lambda: _model().set_x_standardization(torch.full((4, 2), _NAN)), ValueError, ["x", "finite"]),
    (lambda: _model().set_x_standardization(torch.zeros(4, 3)), ValueError, ["x", "x_dim = 2"]),
    (
        lambda: npe_train(_TASK.simulate, _TASK.prior, _fam(), 10, lr=float("inf")),
        ValueError,
        ["lr", "finite"],
    ),
    (lambda: npe_train(_TASK.simulate, _TASK.prior, _fam(), 10, seed=-1), ValueError, ["seed", ">= 0"]),
    (lambda: npe_train(_TASK.simulate, _TASK.prior, _fam(), 10, cosine="no"), TypeError, ["cosine", "bool"]),
    (
        lambda: npe_train(_TASK.simulate, lambda n, g: torch.zeros(3, 1), _fam(), 10, epochs=1),
        ValueError,
        ["prior", "n_sims = 10"],
    ),
    (
        lambda: npe_train(lambda t, g: torch.full((t.shape[0], 1), _NAN), _TASK.prior, _fam(), 10, epochs=1),
        ValueError,
        ["simulate", "finite"],
    ),
    (lambda: two_moons(float("inf")), ValueError, ["noise", "finite"]),
    (lambda: slcp(True), ValueError, ["n_obs", "True"]),
    (lambda: make_task("hierarchical", tau=-1.0), ValueError, ["tau", "> 0"]),
    (lambda: make_task("conjugate_gaussian", n_obs=0), ValueError, ["n_obs", ">= 1"]),
    (lambda: make_task("conjugate_gaussian", sigma=_NAN), ValueError, ["sigma", "nan"]),
    (lambda: _TASK.pairs(True, torch.Generator()), ValueError, ["n must", "True"]),
    (lambda: _TASK.pairs(3, 3), TypeError, ["generator", "torch.Generator"]),
    (lambda: build_lbf(torch.rand(20, 1), torch.full((20, 2), _NAN)), ValueError, ["batch_x", "finite"]),
    (
        lambda: build_lbf(torch.rand(20, 1), torch.rand(20, 2), support=(0.0,)),
        ValueError,
        ["support", "pair"],
    ),
    (
        lambda: build_lbf(torch.rand(20, 1), torch.rand(20, 2), z_score_x="no"),
        TypeError,
        ["z_score_x", "bool"],
    ),
    (
        lambda: build_lbf(torch.zeros(20, 1, dtype=torch.long), torch.rand(20, 2)),
        TypeError,
        ["batch_theta", "floating"],
    ),
    (
        lambda: build_lbf(torch.rand(20, 1), torch.rand(20, 2), basis="fourier"),
        ValueError,
        ["basis", "fourier"],
    ),
    (
        lambda: build_lbf(torch.rand(20, 1), torch.rand(20, 2), grid=16).sample((-1,), torch.zeros(2, 2)),
        ValueError,
        ["sample_shape", ">= 1"],
    ),
]
