"""Bad input to the ESP dataset, the MAS solver, the constructions, training and the shared transformer."""

import networkx as nx

from iclr26.lab.tasks import complete_digraph
from iclr26.lab.transformer import AttnOnlyTransformer
from iclr26.mechanisms.esp import construct_2head, make_dataset, mas_exact, stack_models, train, train_many

SELF_LOOP = nx.DiGraph([(0, 1), (1, 1)])
NO_ARCS = nx.DiGraph()
NO_ARCS.add_nodes_from(range(3))

K3 = complete_digraph(3)

CASES = [
    (lambda: make_dataset(SELF_LOOP), ValueError, ["self-loop"]),
    (lambda: make_dataset(NO_ARCS), ValueError, ["no arcs"]),
    (lambda: mas_exact(complete_digraph(4), method="guess"), ValueError, ["method"]),
    (lambda: AttnOnlyTransformer(1, 0, 8, 6, 4), ValueError, ["n_heads"]),
    (lambda: construct_2head(complete_digraph(4), d=4), ValueError, ["d (width", "int >= 5", "got 4"]),
    (lambda: train(complete_digraph(3), heads=0, d=8, seed=0, steps=1), ValueError, ["heads"]),
    (lambda: train(K3, 1, 8, 0, steps=2, lr=float("inf")), ValueError, ["lr", "finite"]),
    (lambda: train(K3, 1, 8, 0, steps=2, lr=float("nan")), ValueError, ["lr", "finite"]),
    (lambda: train(K3, 1, 8, 0, steps=2, lr_min=float("nan")), ValueError, ["lr_min", "finite"]),
    (lambda: train(K3, 1, 8, -1, steps=2), ValueError, ["init_seeds[0]", ">= 0"]),
    (lambda: train(K3, 1, 8, 0, steps=True), ValueError, ["steps", "int"]),
    (lambda: train_many([K3], 1, 8, [1.5], steps=2), ValueError, ["init_seeds[0]", "int"]),
    (lambda: mas_exact(K3, method="milp", time_limit=-1.0), ValueError, ["time_limit", "> 0"]),
    (lambda: mas_exact(K3, method="milp", time_limit=float("nan")), ValueError, ["time_limit", "finite"]),
    (lambda: stack_models([]), TypeError, ["models", "non-empty"]),
    (lambda: construct_2head(K3, d=True), ValueError, ["d (width", "must be an int", "got True"]),
]
