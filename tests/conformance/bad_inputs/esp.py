"""Bad input to the ESP dataset, the MAS solver, the constructions, training and the shared transformer."""

import networkx as nx

from iclr26.lab.tasks import complete_digraph
from iclr26.lab.transformer import AttnOnlyTransformer
from iclr26.mechanisms.esp import construct_2head, make_dataset, mas_exact, train

SELF_LOOP = nx.DiGraph([(0, 1), (1, 1)])
NO_ARCS = nx.DiGraph()
NO_ARCS.add_nodes_from(range(3))

CASES = [
    (lambda: make_dataset(SELF_LOOP), ValueError, ["self-loop"]),
    (lambda: make_dataset(NO_ARCS), ValueError, ["no arcs"]),
    (lambda: mas_exact(complete_digraph(4), method="guess"), ValueError, ["method"]),
    (lambda: AttnOnlyTransformer(1, 0, 8, 6, 4), ValueError, ["n_heads"]),
    (lambda: construct_2head(complete_digraph(4), d=4), ValueError, ["d must"]),
    (lambda: train(complete_digraph(3), heads=0, d=8, seed=0, steps=1), ValueError, ["heads"]),
]
