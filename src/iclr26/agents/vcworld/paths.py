"""Signed path evidence from a drug's targets to a gene (stage 2 of VCWorld, our graph-aware reconstruction).

A walk t = v_0 -> v_1 -> ... -> v_l = g of ``regulates`` edges from a target t of drug p contributes
sign(p -> t) * prod_i sign(v_{i-1} -> v_i) * w^l; the score of (p, g) sums every walk with l <= k:

    s(p, .) = T_p  sum_{l=0}^{k} (w A)^l          (T: signed drug-target matrix, A: signed adjacency)

`path_scores` is the fast form (k sparse matrix products); `enumerate_walks` lists the walks one by one (the
slow reference and the rationale). On an acyclic graph the walks are exactly the simple paths.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

from iclr26.agents.vcworld.kg import KnowledgeGraph
from iclr26.checks import check_float, check_int

__all__ = ["SignedPath", "enumerate_walks", "path_scores"]


@dataclass(frozen=True)
class SignedPath:
    """One walk drug -> target -> ... -> gene: its genes, its edge signs (the drug-target sign first), its score."""

    drug: int
    genes: tuple[int, ...]
    signs: tuple[float, ...]
    score: float

    @property
    def sign(self) -> float:
        return float(np.prod(self.signs))

    def describe(self) -> str:
        arrows = "".join(f" -{'+' if s > 0 else '-'}-> G{g}" for s, g in zip(self.signs, self.genes))
        return f"D{self.drug}{arrows}"


def path_scores(kg: KnowledgeGraph, w: float = 0.5, k: int = 3) -> np.ndarray:
    """(drugs, genes) signed path scores s(p, g) = sum over walks of length <= k of prod signs * w^len."""
    w = check_float("w", w, 0.0, low_open=True)
    k = check_int("k", k, low=0)
    A = (kg.signed_adjacency() * w).T.tocsr()  # row v sums over u -> v
    term = kg.drug_target_matrix().toarray().T  # (genes, drugs): l = 0
    total = term.copy()
    for _ in range(k):
        term = A @ term
        total += term
    return total.T


def _distance_to(kg: KnowledgeGraph, gene: int, k: int) -> dict[int, int]:
    """Hops from each gene to `gene` along ``regulates`` edges (only those within k)."""
    preds: dict[int, set[int]] = {}
    for u, v, _ in kg.edges("regulates"):
        preds.setdefault(v, set()).add(u)
    dist, queue = {gene: 0}, deque([gene])
    while queue:
        v = queue.popleft()
        if dist[v] == k:
            continue
        for u in preds.get(v, ()):
            if u not in dist:
                dist[u] = dist[v] + 1
                queue.append(u)
    return dist


def enumerate_walks(kg: KnowledgeGraph, drug: int, gene: int, w: float = 0.5, k: int = 3) -> list[SignedPath]:
    """Every walk of length <= k from a target of `drug` to `gene`, best |score| first (then shortest)."""
    w = check_float("w", w, 0.0, low_open=True)
    k = check_int("k", k, low=0)
    check_int("gene", gene, low=0, high=kg.n_genes - 1)
    dist = _distance_to(kg, gene, k)
    out: list[SignedPath] = []

    def walk(genes: list[int], signs: list[float]) -> None:
        v, left = genes[-1], k - (len(genes) - 1)
        if v == gene:
            out.append(
                SignedPath(drug, tuple(genes), tuple(signs), float(np.prod(signs)) * w ** (len(genes) - 1))
            )
        if left == 0:
            return
        for u, s in kg.regulators_out(v):
            if dist.get(u, k + 1) <= left - 1:
                walk([*genes, u], [*signs, s])

    for t, s in kg.targets_of(drug):
        if dist.get(t, k + 1) <= k:
            walk([t], [s])
    return sorted(out, key=lambda p: (-abs(p.score), len(p.genes), p.genes))
