"""Leveraging Discrete Function Decomposability for Scientific Design (DADO).

Bowden, Levine, Listgarten; ICLR 2026; arXiv 2511.03032, OpenReview lndDn7i8W6. For objectives that
decompose over a junction tree, DADO trains a tree-factorised search distribution by weighted maximum
likelihood with one weight per sample and factor, from advantages computed by message passing on the batch.
This package holds the objectives (with exact max-sum optima), the search distributions, DADO, the EDA
baselines (autoregressive and tree model), random search, simulated annealing and PBIL.
"""

from iclr26.generative.dado.models import AutoregressiveSearchDistribution, TreeSearchDistribution
from iclr26.generative.dado.objective import JunctionTreeObjective, TreeStructure, tree_structure
from iclr26.generative.dado.optimizers import DADO, EDA, PBIL, History, RandomSearch, SimulatedAnnealing
from iclr26.generative.dado.values import (
    WEIGHT_CLIP,
    advantage_weights,
    effective_sample_size,
    group_mean,
    tree_values,
)

__all__ = [
    "DADO",
    "EDA",
    "PBIL",
    "WEIGHT_CLIP",
    "AutoregressiveSearchDistribution",
    "History",
    "JunctionTreeObjective",
    "RandomSearch",
    "SimulatedAnnealing",
    "TreeSearchDistribution",
    "TreeStructure",
    "advantage_weights",
    "effective_sample_size",
    "group_mean",
    "tree_structure",
    "tree_values",
]
