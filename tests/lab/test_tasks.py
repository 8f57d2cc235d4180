"""The synthetic-task base and the graph generators."""

import networkx as nx
import pytest
import torch

from iclr26.lab.tasks import (
    IGNORE_INDEX,
    SyntheticTask,
    Vocabulary,
    check_batch,
    complete_digraph,
    planted_fas_digraph,
    random_dag,
    transitive_tournament,
)


class Parity(SyntheticTask):
    vocabulary = Vocabulary(("0", "1"))
    seq_len = 5

    def _generate(self, generator):
        tokens = torch.randint(0, 2, (16, 5), generator=generator)
        return tokens, tokens.sum(dim=1) % 2


def test_task_is_deterministic_per_seed_and_checked():
    a, b, c = Parity().generate(3), Parity().generate(3), Parity().generate(4)
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])
    assert not torch.equal(a[0], c[0])
    with pytest.raises(ValueError, match="seed"):
        Parity().generate(-1)


def test_vocabulary():
    vocab = Vocabulary(("a", "b", "#"))
    assert len(vocab) == 3 and vocab.index("#") == 2 and vocab.decode(torch.tensor([2, 0])) == ["#", "a"]
    with pytest.raises(ValueError, match="distinct"):
        Vocabulary(("a", "a"))
    with pytest.raises(ValueError, match="not in the vocabulary"):
        vocab.index("z")


def test_check_batch():
    tokens = torch.zeros(4, 3, dtype=torch.long)
    check_batch(tokens, torch.full((4, 3), IGNORE_INDEX), vocab_size=2, seq_len=3)
    with pytest.raises(ValueError, match="targets"):
        check_batch(tokens, torch.zeros(5, dtype=torch.long), vocab_size=2, seq_len=3)
    with pytest.raises(ValueError, match="tokens"):
        check_batch(tokens + 2, torch.zeros(4, dtype=torch.long), vocab_size=2, seq_len=3)


@pytest.mark.parametrize("n", [1, 2, 5, 8])
def test_tournament_and_complete_digraph(n):
    T, K = transitive_tournament(n), complete_digraph(n)
    assert nx.is_directed_acyclic_graph(T) and T.number_of_edges() == n * (n - 1) // 2
    assert K.number_of_edges() == n * (n - 1) and all(K.has_edge(v, u) for u, v in K.edges)
    assert nx.number_of_selfloops(K) == 0


def test_random_dag_is_acyclic_and_follows_its_order():
    G = random_dag(10, p=0.5, seed=3)
    rank = {v: i for i, v in enumerate(G.graph["order"])}
    assert nx.is_directed_acyclic_graph(G) and all(rank[u] < rank[v] for u, v in G.edges)
    assert set(G.edges) == set(random_dag(10, p=0.5, seed=3).edges)


@pytest.mark.parametrize(("n", "k", "seed"), [(8, 1, 0), (8, 3, 1), (8, 6, 2), (12, 10, 0)])
def test_planted_feedback_arc_set_has_a_certificate(n, k, seed):
    G = planted_fas_digraph(n, k, seed=seed)
    planted, cycles = G.graph["planted_fas"], G.graph["witness_cycles"]
    assert len(planted) == k and not nx.is_directed_acyclic_graph(G)
    # upper bound: removing the planted arcs leaves a DAG
    H = nx.DiGraph(G)
    H.remove_edges_from(planted)
    assert nx.is_directed_acyclic_graph(H)
    # lower bound: k arc-disjoint cycles, each closed by its planted arc
    used = set()
    for (v, u), path in zip(planted, cycles):
        assert path[0] == u and path[-1] == v
        arcs = [*zip(path[:-1], path[1:]), (v, u)]
        assert all(G.has_edge(*a) for a in arcs) and not used & set(arcs)
        used |= set(arcs)


def test_generator_bad_input():
    with pytest.raises(ValueError, match="n must"):
        complete_digraph(0)
    with pytest.raises(ValueError, match="k must"):
        planted_fas_digraph(5, -1)
    with pytest.raises(ValueError, match="p must"):
        random_dag(5, p=1.5)
    with pytest.raises(ValueError, match="k=11"):
        planted_fas_digraph(5, 11)
