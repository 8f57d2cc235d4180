"""The open-world knowledge graph of VCWorld (stage 1, knowledge integration), and its corrupted offline form.

Paper: VCWorld (Wei et al., ICLR 2026, arXiv 2512.00306). The paper's KG joins DrugBank-like drug-target edges,
protein-protein interactions, gene-pathway and TF-target edges and GO annotations; here a networkx MultiDiGraph
with typed nodes (``drug``, ``gene``, ``go_term``, ``cell_line``) and typed, signed edges (``targets``,
``regulates``, ``annotated``). Offline the model receives the true network of a :class:`VirtualCell` corrupted:
30% of true gene-gene edges removed, 10% spurious edges added, 5% of the kept signs flipped, plus "GO modules"
(Louvain communities of the true network).
"""

from __future__ import annotations

from collections.abc import Iterable

import networkx as nx
import numpy as np
import scipy.sparse as sp

from iclr26.checks import check_int, check_probability

__all__ = ["EDGE_TYPES", "NODE_TYPES", "KnowledgeGraph", "corrupted_kg"]

NODE_TYPES = ("drug", "gene", "go_term", "cell_line")
EDGE_TYPES = ("targets", "regulates", "annotated")


class KnowledgeGraph:
    """A typed, signed knowledge graph over integer-indexed drugs, genes, GO terms and cell lines.

    Nodes are ``(type, index)`` tuples; every edge has ``etype`` (one of :data:`EDGE_TYPES`) and ``sign`` (+1/-1).

    Examples
    --------
    >>> kg = KnowledgeGraph.from_edge_lists(3, 1, drug_target=[(0, 0, 1)], gene_gene=[(0, 1, -1), (1, 2, 1)])
    >>> kg.signed_adjacency().toarray().tolist()
    [[0.0, -1.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]]
    """

    def __init__(self, n_genes: int, n_drugs: int, n_go_terms: int = 0, n_cell_lines: int = 0) -> None:
        self.n_genes = check_int("n_genes", n_genes, low=1)
        self.n_drugs = check_int("n_drugs", n_drugs, low=1)
        self.n_go_terms = check_int("n_go_terms", n_go_terms, low=0)
        self.n_cell_lines = check_int("n_cell_lines", n_cell_lines, low=0)
        self.graph = nx.MultiDiGraph()
        for kind, n in zip(NODE_TYPES, (self.n_drugs, self.n_genes, self.n_go_terms, self.n_cell_lines)):
            self.graph.add_nodes_from(((kind, i), {"type": kind}) for i in range(n))

    def _node(self, kind: str, i: int) -> tuple[str, int]:
        limit = {
            "drug": self.n_drugs,
            "gene": self.n_genes,
            "go_term": self.n_go_terms,
            "cell_line": self.n_cell_lines,
        }
        if limit[kind] == 0:
            raise ValueError(f"{kind} id {i!r} is unknown: this graph has no {kind} nodes")
        return (kind, check_int(f"{kind} id", i, low=0, high=limit[kind] - 1))

    def add_edge(
        self, source: tuple[str, int], target: tuple[str, int], etype: str, sign: float = 1.0
    ) -> None:
        """Add one typed, signed edge (``source`` and ``target`` are ``(type, index)`` nodes)."""
        if etype not in EDGE_TYPES:
            raise ValueError(f"etype must be one of {', '.join(EDGE_TYPES)}, got {etype!r}")
        if sign not in (1, -1, 1.0, -1.0):
            raise ValueError(f"sign must be +1 or -1, got {sign!r}")
        u, v = self._node(*source), self._node(*target)
        self.graph.add_edge(u, v, etype=etype, sign=float(sign))

    @classmethod
    def from_edge_lists(
        cls,
        n_genes: int,
        n_drugs: int,
        *,
        drug_target: Iterable[tuple[int, int, float]] = (),
        gene_gene: Iterable[tuple[int, int, float]] = (),
        gene_go: Iterable[tuple[int, int]] = (),
        n_go_terms: int = 0,
        n_cell_lines: int = 0,
    ) -> KnowledgeGraph:
        """Build a graph from ``(drug, gene, sign)``, ``(gene, gene, sign)`` and ``(gene, go_term)`` lists."""
        kg = cls(n_genes, n_drugs, n_go_terms, n_cell_lines)
        for p, g, s in drug_target:
            kg.add_edge(("drug", p), ("gene", g), "targets", s)
        for u, v, s in gene_gene:
            kg.add_edge(("gene", u), ("gene", v), "regulates", s)
        for g, m in gene_go:
            kg.add_edge(("gene", g), ("go_term", m), "annotated", 1.0)
        return kg

    def edges(self, etype: str) -> list[tuple[int, int, float]]:
        """``(source index, target index, sign)`` of every edge of type `etype`, sorted."""
        return sorted(
            (u[1], v[1], d["sign"]) for u, v, d in self.graph.edges(data=True) if d["etype"] == etype
        )

    def targets_of(self, drug: int) -> list[tuple[int, float]]:
        """``(gene, sign)`` for each target of `drug`."""
        node = self._node("drug", drug)
        return sorted(
            (v[1], d["sign"]) for _, v, d in self.graph.out_edges(node, data=True) if d["etype"] == "targets"
        )

    def regulators_out(self, gene: int) -> list[tuple[int, float]]:
        """``(downstream gene, sign)`` for each ``regulates`` edge leaving `gene` (one entry per edge)."""
        node = self._node("gene", gene)
        return [
            (v[1], d["sign"])
            for _, v, d in self.graph.out_edges(node, data=True)
            if d["etype"] == "regulates"
        ]

    def signed_adjacency(self) -> sp.csr_matrix:
        """(genes, genes) sparse matrix, entry (u, v) = sum of the signs of the u -> v ``regulates`` edges."""
        e = self.edges("regulates")
        rows, cols, vals = (np.array([x[i] for x in e]) for i in range(3)) if e else ([], [], [])
        return sp.csr_matrix((vals, (rows, cols)), shape=(self.n_genes, self.n_genes), dtype=float)

    def drug_target_matrix(self) -> sp.csr_matrix:
        """(drugs, genes) sparse matrix of the signed ``targets`` edges."""
        e = self.edges("targets")
        rows, cols, vals = (np.array([x[i] for x in e]) for i in range(3)) if e else ([], [], [])
        return sp.csr_matrix((vals, (rows, cols)), shape=(self.n_drugs, self.n_genes), dtype=float)

    def go_matrix(self) -> sp.csr_matrix:
        """(genes, go terms) 0/1 annotation matrix."""
        e = self.edges("annotated")
        rows, cols = (np.array([x[0] for x in e]), np.array([x[1] for x in e])) if e else ([], [])
        return sp.csr_matrix(
            (np.ones(len(rows)), (rows, cols)), shape=(self.n_genes, max(self.n_go_terms, 1))
        )


def corrupted_kg(
    vc, remove: float = 0.3, spurious: float = 0.1, flip: float = 0.05, seed: int = 0
) -> KnowledgeGraph:
    """The KG the model receives for a :class:`~iclr26.agents.vcworld.sim.VirtualCell` `vc`.

    `remove` of the true gene-gene edges are dropped, ``spurious * n_true`` random new edges (random sign) are
    added, `flip` of the kept true edges have their sign flipped. Drug-target edges (DrugBank-like) are kept
    exact; GO modules are Louvain communities of the true (undirected) network.
    """
    remove, spurious, flip = (
        check_probability(n, v) for n, v in (("remove", remove), ("spurious", spurious), ("flip", flip))
    )
    rng = np.random.default_rng(np.random.SeedSequence([check_int("seed", seed, low=0), 1851_3982]))
    true = sorted((int(u), int(v), float(d["sign"])) for u, v, d in vc.graph.edges(data=True))
    keep = rng.random(len(true)) >= remove
    flips = rng.random(len(true)) < flip
    gene_gene = [(u, v, -s if f else s) for (u, v, s), k, f in zip(true, keep, flips) if k]
    existing = {(u, v) for u, v, _ in true}
    n = vc.n_genes
    n_fake, fakes = round(spurious * len(true)), set()
    while len(fakes) < min(n_fake, n * (n - 1) - len(existing)):
        u, v = (int(x) for x in rng.integers(0, n, size=2))
        if u != v and (u, v) not in existing:
            fakes.add((u, v))
    gene_gene += [(u, v, float(rng.choice([-1.0, 1.0]))) for u, v in sorted(fakes)]
    modules = nx.community.louvain_communities(vc.graph.to_undirected(), seed=int(rng.integers(2**31)))
    gene_go = [(g, m) for m, genes in enumerate(sorted(modules, key=min)) for g in sorted(genes)]
    drug_target = [
        (p, t, float(np.sign(e)))
        for p, (ts, es) in enumerate(zip(vc.targets, vc.effects))
        for t, e in zip(ts, es)
    ]
    return KnowledgeGraph.from_edge_lists(
        n, vc.n_drugs, drug_target=drug_target, gene_gene=gene_gene, gene_go=gene_go,
        n_go_terms=len(modules), n_cell_lines=vc.n_cell_lines,
    )  # fmt: skip
