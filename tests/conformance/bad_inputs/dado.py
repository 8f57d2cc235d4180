"""Bad input to the DADO objectives, search distributions and optimisers (arXiv 2511.03032)."""

import networkx as nx
import numpy as np
import torch

from iclr26.generative.dado import DADO, EDA, JunctionTreeObjective, TreeSearchDistribution, advantage_weights

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
