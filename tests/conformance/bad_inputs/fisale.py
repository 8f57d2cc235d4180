"""Bad input to the Fisale model, its parts, the baselines, the metrics, the IB generator and the config."""

import torch

from iclr26.science.fisale import (
    Fisale,
    FSIDataConfig,
    GalerkinAttention,
    LatentALEGrid,
    TransolverLite,
    enclosed_area,
    knn_graph,
    per_channel_relative_l1,
    relative_l2,
    rollout,
)
from iclr26.science.fisale.experiment import FisaleConfig

CH = {"solid": 0, "fluid": 3, "interface": 4}
M = Fisale(2, CH, (8,), ((3, 3),), (2,), coupling_steps=1, heads=2)
S, F, I = torch.randn(1, 4, 2), torch.randn(1, 6, 5), torch.randn(1, 5, 6)
NAN = F.clone()
NAN[0, 0, 2] = float("nan")

CASES = [
    (lambda: M(torch.randn(1, 4, 1), F, I), ValueError, ["solid has 1 columns", "dim = 2 coordinate"]),
    (lambda: M(S, torch.randn(1, 6, 4), I), ValueError, ["fluid has 2 channels", "channels['fluid'] = 3"]),
    (lambda: M(S, F, torch.randn(1, 0, 6)), ValueError, ["interface is an empty domain", "0 points"]),
    (lambda: M(S, NAN, I), ValueError, ["fluid must be finite", "NaN"]),
    (lambda: M(S, F, torch.randn(2, 5, 6)), ValueError, ["batch size 2", "solid has 1"]),
    (lambda: M(S[0], F, I), ValueError, ["solid must be 3-D", "(4, 2)"]),
    (
        lambda: Fisale(2, CH, (8,), ((3, 3), (2, 2)), (2, 1), heads=2),
        ValueError,
        ["grid_shapes (2 levels)", "hidden_dims (1)"],
    ),
    (lambda: Fisale(2, {"solid": 0, "fluid": 3}), ValueError, ["channels must have the keys", "interface"]),
    (lambda: Fisale(4, CH), ValueError, ["dim", "4"]),
    (lambda: Fisale(2, CH, (10,), ((3, 3),), (2,), heads=4), ValueError, ["divisible by heads (4)", "10"]),
    (lambda: Fisale(2, CH, coupling="serial"), ValueError, ["coupling", "'pcm'"]),
    (lambda: LatentALEGrid(2, 8, (3, 3, 3), 2), ValueError, ["grid_shape (3, 3, 3)", "dim = 2"]),
    (lambda: LatentALEGrid(2, 8, (2, 2), 4), ValueError, ["neighbors", "<= 3"]),
    (lambda: knn_graph(torch.randn(1, 4, 3), 4), ValueError, ["k must be an int", "<= 3"]),
    (lambda: GalerkinAttention(10, heads=4), ValueError, ["dim (10)", "heads (4)"]),
    (lambda: TransolverLite(2, CH, hidden=30, heads=4), ValueError, ["hidden (30)", "heads (4)"]),
    (lambda: rollout(M, (S, F, I), 0), ValueError, ["n_steps", ">= 1"]),
    (lambda: rollout(M, (S, F), 2), ValueError, ["frame0 must be", "2 tensors"]),
    (lambda: relative_l2(torch.zeros(2, 3), torch.zeros(2, 4)), ValueError, ["same shape", "(2, 4)"]),
    (
        lambda: per_channel_relative_l1(torch.zeros(2, 3), torch.zeros(2, 3)),
        ValueError,
        ["(B, N, C)", "(2, 3)"],
    ),
    (lambda: enclosed_area(torch.zeros(2, 2)), ValueError, ["ring must have shape", "N >= 3"]),
    (lambda: FSIDataConfig(n=16, n_fluid=200), ValueError, ["n_fluid", "128"]),
    (lambda: FSIDataConfig(dt=0.0), ValueError, ["dt", "> 0"]),
    (lambda: FisaleConfig(n_train=20, n_val=4), ValueError, ["n_train + n_val (24)", "n_traj = 24"]),
]
