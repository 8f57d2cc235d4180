"""Bad input to the DADO objectives, search distributions and optimisers (arXiv 2511.03032)."""

import networkx as nx
import numpy as np
import torch

from iclr26.generative.dado import (
    DADO,
    EDA,
    PBIL,
    AutoregressiveSearchDistribution,
    JunctionTreeObjective,
    RandomSearch,
    SimulatedAnnealing,
    TreeSearchDistribution,
    advantage_weights,
    effective_sample_size,
    group_mean,
    tree_structure,
    tree_values,
)

_OBJ = JunctionTreeObjective.random(4, 3, tree="chain", seed=0)
_CYCLE = nx.cycle_graph(3)
_TWO = nx.Graph()
_TWO.add_nodes_from([0, 1, 2])
_TWO.add_edge(0, 1)
_PATH = nx.path_graph(3)

CASES = [
    (lambda: JunctionTreeObjective(_CYCLE, 3, [np.zeros(3)] * 3), ValueError, ["tree", "cycles"]),
    (lambda: JunctionTreeObjective(_TWO, 3, [np.zeros(3)] * 3), ValueError, ["tree", "disconnected"]),
    (
        lambda: JunctionTreeObjective(_PATH, 3, [np.zeros(3), np.zeros(4), np.zeros(3)]),
        ValueError,
        ["node_tables[1]", "shape"],
    ),
    (
        lambda: JunctionTreeObjective(
            _PATH, 3, [np.zeros(3)] * 3, {(0, 1): np.zeros((3, 2)), (1, 2): np.zeros((3, 3))}
        ),
        ValueError,
        ["edge_tables", "shape"],
    ),
    (
        lambda: JunctionTreeObjective(_PATH, 3, [np.zeros(3)] * 2),
        ValueError,
        ["node_tables", "one table per clique"],
    ),
    (
        lambda: JunctionTreeObjective(_PATH, 3, [np.zeros(3)] * 3, cliques=[(0,), (1,), (0,)]),
        ValueError,
        ["running intersection"],
    ),
    (lambda: _OBJ(torch.tensor([[0, 1, 2, 3]])), ValueError, ["x", "outside", "range"]),
    (lambda: _OBJ(torch.zeros(2, 5, dtype=torch.long)), ValueError, ["x", "shape"]),
    (lambda: _OBJ(torch.zeros(2, 4)), TypeError, ["x", "integer"]),
    (lambda: DADO(beta=0.0), ValueError, ["beta", "positive"]),
    (lambda: EDA(beta=-1.0), ValueError, ["beta", "positive"]),
    (lambda: advantage_weights(torch.zeros(3), 0.0), ValueError, ["beta", "positive"]),
    (lambda: EDA(model="transformer"), ValueError, ["model"]),
    (lambda: DADO(n_samples=16).run(_OBJ, 8), ValueError, ["budget"]),
    (lambda: TreeSearchDistribution(_PATH, 3).sample(0), ValueError, ["n", "positive"]),
    (lambda: JunctionTreeObjective.random(10, 3, tree="ring"), ValueError, ["tree"]),
]

_NAN = float("nan")
_X0 = torch.zeros(2, 4, dtype=torch.long)

CASES += [
    (lambda: JunctionTreeObjective.random(4, 2.5), ValueError, ["n_states", "2.5"]),
    (lambda: JunctionTreeObjective.random(4, 3, seed=-1), ValueError, ["seed", ">= 0"]),
    (
        lambda: JunctionTreeObjective.random(4, 3, edge_scale=float("inf")),
        ValueError,
        ["edge_scale", "finite"],
    ),
    (lambda: JunctionTreeObjective.random(4, 3, permute="no"), TypeError, ["permute", "bool"]),
    (
        lambda: JunctionTreeObjective(_PATH, 3, [np.zeros(3)] * 3, cliques=[(0.5,), (1,), (2,)]),
        ValueError,
        ["clique variable", "0.5"],
    ),
    (
        lambda: JunctionTreeObjective(_PATH, 3, [np.zeros(3)] * 3, [np.zeros((3, 3))] * 2),
        TypeError,
        ["edge_tables", "dict"],
    ),
    (lambda: tree_structure(_PATH, 3, root=5), ValueError, ["root", "5"]),
    (lambda: TreeSearchDistribution(_PATH, 3, init_seed=1.5), ValueError, ["init_seed", "1.5"]),
    (
        lambda: TreeSearchDistribution(_PATH, 3).sample(3, generator=3),
        TypeError,
        ["generator", "torch.Generator"],
    ),
    (lambda: TreeSearchDistribution.from_objective(3), TypeError, ["objective", "JunctionTreeObjective"]),
    (lambda: AutoregressiveSearchDistribution(3, 3, init_seed=-1), ValueError, ["init_seed", ">= 0"]),
    (lambda: AutoregressiveSearchDistribution(3, 1), ValueError, ["n_states", ">= 2"]),
    (lambda: DADO(weight_decay=float("inf")), ValueError, ["weight_decay", "finite"]),
    (lambda: DADO(seed=1.5), ValueError, ["seed", "1.5"]),
    (lambda: DADO(relative_beta="no"), TypeError, ["relative_beta", "bool"]),
    (lambda: EDA(keep_samples="no"), TypeError, ["keep_samples", "bool"]),
    (lambda: RandomSearch(seed=-1), ValueError, ["seed", ">= 0"]),
    (lambda: SimulatedAnnealing(relative="no"), TypeError, ["relative", "bool"]),
    (lambda: SimulatedAnnealing(t_end=_NAN), ValueError, ["t_end", "nan"]),
    (lambda: PBIL(rate=True), ValueError, ["rate", "True"]),
    (lambda: PBIL(elite=2.0), ValueError, ["elite", "(0, 1]"]),
    (lambda: advantage_weights(torch.full((3,), _NAN), 1.0), ValueError, ["advantages", "NaN"]),
    (lambda: advantage_weights(np.zeros(3), 1.0), TypeError, ["advantages", "torch.Tensor"]),
    (lambda: effective_sample_size(-torch.ones(3)), ValueError, ["weights", "non-negative"]),
    (lambda: group_mean(torch.zeros(3, 2), torch.full((3, 2), 5), 3), ValueError, ["keys", "[0, n_keys=3)"]),
    (lambda: group_mean(torch.zeros(3, 2), torch.zeros(3, 2), 3), TypeError, ["keys", "integer"]),
    (
        lambda: group_mean(torch.ones(3, 2), torch.zeros(3, 2, dtype=torch.long), 3, -torch.ones(3)),
        ValueError,
        ["weights", "non-negative"],
    ),
    (
        lambda: tree_values(None, *_OBJ.terms(_X0), _OBJ.clique_states(_X0)),
        TypeError,
        ["structure", "TreeStructure"],
    ),
    (
        lambda: tree_values(_OBJ.structure, *_OBJ.terms(_X0), _OBJ.clique_states(_X0) + 99),
        ValueError,
        ["states", "joint clique states"],
    ),
]
