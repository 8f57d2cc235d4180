"""The edge-selection problem (ESP) as a synthetic task.

"Two (narrow) heads are better than (an arbitrarily wide) one", ICLR 2026, OpenReview RRmPbbZsvl.
For a directed graph G = (V, E) with |V| = n, |E| = m, every arc (u, v) gives two length-4 instances

    (u, v, 1, #) -> u        (u, v, 2, #) -> v

over the vocabulary of n vertex tokens (ids 0..n-1, in ``list(G.nodes)`` order), the selector tokens
``1`` (id n) and ``2`` (id n+1) and the query token ``#`` (id n+2). The dataset is all 2m instances; train = test.

Example
-------
>>> from iclr26.lab.tasks import transitive_tournament
>>> tokens, targets = make_dataset(transitive_tournament(3))
>>> tokens.tolist()[:2], targets.tolist()[:2]
([[0, 1, 3, 5], [0, 1, 4, 5]], [0, 1])
"""

from __future__ import annotations

import networkx as nx
import torch
from torch import Tensor, nn

from iclr26.checks import check_tensor
from iclr26.lab.tasks import SyntheticTask, Vocabulary

__all__ = ["EdgeSelectionTask", "accuracy", "check_graph", "make_dataset", "predict"]

SEQ_LEN = 4
QUERY_POS = 3


def check_graph(G: nx.DiGraph) -> nx.DiGraph:
    """Raise ValueError unless `G` is a networkx DiGraph with at least one arc and no self-loops."""
    if not isinstance(G, nx.DiGraph) or G.is_multigraph():
        raise ValueError(f"G must be a networkx.DiGraph, got {type(G).__name__}")
    if G.number_of_edges() == 0:
        raise ValueError(f"G has no arcs (n={G.number_of_nodes()} vertices): ESP needs at least one arc")
    loops = list(nx.selfloop_edges(G))
    if loops:
        raise ValueError(f"G has self-loops {loops[:5]}: ESP arcs must join two distinct vertices")
    return G


class EdgeSelectionTask(SyntheticTask):
    """ESP on graph `G` as a :class:`~iclr26.lab.tasks.SyntheticTask` (deterministic; the seed is unused)."""

    seq_len = SEQ_LEN

    def __init__(self, G: nx.DiGraph) -> None:
        self.graph = check_graph(G)
        self.nodes = list(G.nodes)
        n = len(self.nodes)
        self.sel1, self.sel2, self.query = n, n + 1, n + 2
        self.vocabulary = Vocabulary((*(f"v{v}" for v in self.nodes), "1", "2", "#"))

    def _generate(self, generator: torch.Generator) -> tuple[Tensor, Tensor]:
        index = {v: i for i, v in enumerate(self.nodes)}
        rows, targets = [], []
        for u, v in self.graph.edges:
            iu, iv = index[u], index[v]
            rows += [[iu, iv, self.sel1, self.query], [iu, iv, self.sel2, self.query]]
            targets += [iu, iv]
        return torch.tensor(rows, dtype=torch.long), torch.tensor(targets, dtype=torch.long)


def make_dataset(G: nx.DiGraph) -> tuple[Tensor, Tensor]:
    """All 2m ESP instances of `G`: tokens LongTensor[2m, 4] and targets LongTensor[2m].

    Rows come in pairs per arc (selector 1, then selector 2), arcs in ``G.edges`` order.
    """
    return EdgeSelectionTask(G).generate(0)


def predict(model: nn.Module, tokens: Tensor) -> Tensor:
    """The model's answers: argmax over the whole vocabulary of the logits at the ``#`` position."""
    check_tensor("tokens", tokens, floating=False)
    if tokens.ndim != 2 or tokens.shape[1] != SEQ_LEN:
        raise ValueError(f"tokens must have shape (instances, {SEQ_LEN}), got {tuple(tokens.shape)}")
    with torch.no_grad():
        return model(tokens)[:, QUERY_POS].argmax(dim=-1)


def accuracy(model: nn.Module, G: nx.DiGraph) -> float:
    """Fraction of the 2m ESP instances of `G` that `model` answers correctly."""
    tokens, targets = make_dataset(G)
    return int((predict(model, tokens) == targets).sum()) / len(targets)
