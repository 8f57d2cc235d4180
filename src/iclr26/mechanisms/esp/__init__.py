"""ESP: "Two (narrow) heads are better than (an arbitrarily wide) one" (ICLR 2026, OpenReview RRmPbbZsvl).

The edge-selection problem on a directed graph, the exact single-head optimum 1/2 + |MAS|/(2m), hand-set
one- and two-head attention-only transformers, and batched training of the shared ``AttnOnlyTransformer``.

Example
-------
>>> from iclr26.lab.tasks import complete_digraph
>>> from iclr26.mechanisms.esp import accuracy, construct_2head, optimal_1head_accuracy
>>> G = complete_digraph(5)
>>> accuracy(construct_2head(G, d=5), G), optimal_1head_accuracy(G)
(1.0, 0.75)
"""

from iclr26.mechanisms.esp.batched import batched_esp_logits, stack_models
from iclr26.mechanisms.esp.constructions import construct_1head_dag, construct_2head
from iclr26.mechanisms.esp.mas import MaximumAcyclicSubgraph, mas_exact, optimal_1head_accuracy
from iclr26.mechanisms.esp.task import EdgeSelectionTask, accuracy, make_dataset, predict
from iclr26.mechanisms.esp.training import BatchedRuns, TrainResult, train, train_many

__all__ = [
    "BatchedRuns",
    "EdgeSelectionTask",
    "MaximumAcyclicSubgraph",
    "TrainResult",
    "accuracy",
    "batched_esp_logits",
    "construct_1head_dag",
    "construct_2head",
    "make_dataset",
    "mas_exact",
    "optimal_1head_accuracy",
    "predict",
    "stack_models",
    "train",
    "train_many",
]
