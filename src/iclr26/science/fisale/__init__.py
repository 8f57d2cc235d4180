"""Fisale: "Neural Latent Arbitrary Lagrangian-Eulerian Grids for Fluid-Solid Interaction" (Tao, Feng, Chen,
Zhang, Zhu, Liu; ICLR 2026, OpenReview jKeOsMdMe5, arXiv 2603.00792).

Fisale models two-way fluid-solid interaction as three point sets (solid, fluid, interface), projects them onto
multiscale latent ALE grids that move with the data, and advances them with a partitioned coupling module (PCM:
solid substep, grid update, fluid substep, interface coupling) of Galerkin linear attentions. Here: the model and
its parts, rollouts, two ablations (joint coupling, static grid), TransolverLite and PointNet baselines, the paper's
error measures, and an immersed-boundary data generator on the lab's pseudo-spectral Navier-Stokes solver.

Example
-------
>>> import torch
>>> from iclr26.science.fisale import Fisale, rollout
>>> m = Fisale(2, {"solid": 0, "fluid": 3, "interface": 4}, hidden_dims=(16,), grid_shapes=((4, 4),),
...            neighbors=(3,), coupling_steps=1, heads=2)
>>> [x.shape for x in rollout(m, (torch.randn(1, 5, 2), torch.randn(1, 7, 5), torch.randn(1, 6, 6)), 3)]
[torch.Size([1, 3, 5, 2]), torch.Size([1, 3, 7, 5]), torch.Size([1, 3, 6, 6])]
"""

from iclr26.science.fisale.baselines import PointNetBaseline, TransolverLite
from iclr26.science.fisale.data import (
    FSIDataConfig,
    IBSimulator,
    enclosed_area,
    make_fsi_dataset,
    peskin_delta,
    spectral_divergence,
)
from iclr26.science.fisale.metrics import per_channel_relative_l1, relative_l2
from iclr26.science.fisale.model import (
    Fisale,
    GalerkinAttention,
    GATLayer,
    GridProjection,
    LatentALEGrid,
    PCMBlock,
    knn_graph,
    rollout,
)

__all__ = [
    "FSIDataConfig",
    "Fisale",
    "GATLayer",
    "GalerkinAttention",
    "GridProjection",
    "IBSimulator",
    "LatentALEGrid",
    "PCMBlock",
    "PointNetBaseline",
    "TransolverLite",
    "enclosed_area",
    "knn_graph",
    "make_fsi_dataset",
    "peskin_delta",
    "per_channel_relative_l1",
    "relative_l2",
    "rollout",
    "spectral_divergence",
]
