"""Evidence retrieval for a triplet (cell line c, drug p, gene g): VCWorld's stage 2.

Paper: VCWorld (Wei et al., ICLR 2026, arXiv 2512.00306). Two kinds of evidence:

* similar solved cases (as in the released CLI, ``stages/retrieve.py``): up to ``k_cases`` training drugs most
  similar to p, each with its observed label for the same gene g in the same cell line c. Drug similarity is
  precomputed, here the cosine of the drugs' KG profiles [s(p, genes), s(p, genes) @ GO] (signed path scores
  of :func:`~iclr26.agents.vcworld.paths.path_scores`, and the same summed per GO module);
* KG facts: the signed walks of length <= ``k_paths`` from p's targets to g (our reconstruction of the paper's
  graph-aware evidence; the released CLI has none).

Only the training table's labels are ever read, so a test drug's labels cannot leak into its evidence.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from iclr26.agents.vcworld.kg import KnowledgeGraph
from iclr26.agents.vcworld.paths import SignedPath, enumerate_walks, path_scores
from iclr26.checks import check_float, check_int

__all__ = ["Case", "Evidence", "Retriever", "label_table"]

COLUMNS = ("cell_line", "drug", "gene", "de", "dir")


@dataclass(frozen=True)
class Case:
    """A solved training case: its drug, its similarity to the query drug, its DE and DIR labels."""

    drug: int
    gene: int
    cell_line: int
    similarity: float
    de: int
    dir: int


@dataclass(frozen=True)
class Evidence:
    """What the reasoner sees for one triplet: signed KG paths (best first) and similar solved cases."""

    cell_line: int
    drug: int
    gene: int
    paths: tuple[SignedPath, ...] = ()
    path_score: float = 0.0
    cases: tuple[Case, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        for name in ("cell_line", "drug", "gene"):
            check_int(name, getattr(self, name), low=0)
        check_float("path_score", self.path_score)


def label_table(vc, drugs) -> pd.DataFrame:
    """The (cell_line, drug, gene, de, dir) table of a :class:`VirtualCell` restricted to `drugs`."""
    drugs = np.asarray(sorted(int(d) for d in drugs), dtype=int)
    c, p, g = np.meshgrid(np.arange(vc.n_cell_lines), drugs, np.arange(vc.n_genes), indexing="ij")
    return pd.DataFrame({"cell_line": c.ravel(), "drug": p.ravel(), "gene": g.ravel(),
                         "de": vc.de[:, drugs].ravel(), "dir": vc.dir[:, drugs].ravel()})  # fmt: skip


class Retriever:
    """Evidence for (cell line, drug, gene) triplets from a KG and a table of solved training cases.

    Parameters
    ----------
    kg : the :class:`KnowledgeGraph` (possibly corrupted).
    train_table : a DataFrame with columns cell_line, drug, gene, de, dir (the training drugs' labels).
    k_paths : longest walk (gene-gene hops) from a target to the gene.
    k_cases : number of similar training drugs (the CLI's ``budget`` = 10).
    w : per-hop decay of the path score.

    Examples
    --------
    >>> from iclr26.agents.vcworld import VirtualCell, corrupted_kg
    >>> vc = VirtualCell(40, 10, 1, seed=0)
    >>> train, test = vc.split_drugs(0.5)
    >>> r = Retriever(corrupted_kg(vc), label_table(vc, train), k_cases=3)
    >>> ev = r.retrieve(0, int(test[0]), 5)
    >>> len(ev.cases), all(c.drug in set(train.tolist()) for c in ev.cases)
    (3, True)
    """

    def __init__(
        self,
        kg: KnowledgeGraph,
        train_table: pd.DataFrame,
        k_paths: int = 3,
        k_cases: int = 10,
        w: float = 0.5,
    ) -> None:
        if not isinstance(kg, KnowledgeGraph):
            raise TypeError(f"kg must be a KnowledgeGraph, got {type(kg).__name__}")
        if not isinstance(train_table, pd.DataFrame) or any(c not in train_table for c in COLUMNS):
            raise ValueError(f"train_table must be a DataFrame with columns {', '.join(COLUMNS)}")
        self.kg, self.w = kg, w
        self.k_paths = check_int("k_paths", k_paths, low=0)
        self.k_cases = check_int("k_cases", k_cases, low=0)
        t = train_table
        for col, n in (("cell_line", kg.n_cell_lines or 1), ("drug", kg.n_drugs), ("gene", kg.n_genes)):
            bad = t[col][(t[col] < 0) | (t[col] >= n)]
            if len(bad):
                raise ValueError(f"train_table {col} ids must lie in [0, {n - 1}], got {int(bad.iloc[0])}")
        self.train_drugs = np.array(sorted(set(t["drug"].tolist())), dtype=int)
        n_cells = kg.n_cell_lines or 1
        self._de = np.full((n_cells, kg.n_drugs, kg.n_genes), -1, dtype=np.int8)
        self._dir = np.full_like(self._de, -1)
        self._de[t["cell_line"], t["drug"], t["gene"]] = t["de"].to_numpy()
        self._dir[t["cell_line"], t["drug"], t["gene"]] = t["dir"].to_numpy()
        self.scores = path_scores(kg, w, self.k_paths)
        profile = np.hstack([self.scores, self.scores @ kg.go_matrix().toarray()])
        norm = np.linalg.norm(profile, axis=1, keepdims=True)
        unit = profile / np.where(norm > 0, norm, 1.0)
        self.similarity = unit @ unit.T  # (drugs, drugs) cosine, the "precomputed similarity list"

    def _check(self, cell_line: int, drug: int, gene: int | None = None) -> None:
        check_int("cell_line", cell_line, low=0, high=self._de.shape[0] - 1)
        check_int("drug", drug, low=0, high=self.kg.n_drugs - 1)
        if gene is not None:
            check_int("gene", gene, low=0, high=self.kg.n_genes - 1)

    def neighbours(self, drug: int) -> tuple[np.ndarray, np.ndarray]:
        """The ``k_cases`` training drugs most similar to `drug` (by |cosine|, never `drug` itself), and the cosines."""
        self._check(0, drug)
        pool = self.train_drugs[self.train_drugs != drug]
        sims = self.similarity[drug, pool]
        order = np.lexsort((pool, -np.abs(sims)))[: self.k_cases]
        return pool[order], sims[order]

    def retrieve(self, cell_line: int, drug: int, gene: int, max_paths: int = 10) -> Evidence:
        """The :class:`Evidence` for one triplet (paths: the `max_paths` best walks; score: all of them)."""
        self._check(cell_line, drug, gene)
        walks = enumerate_walks(self.kg, drug, gene, self.w, self.k_paths)
        nb, sims = self.neighbours(drug)
        cases = tuple(Case(int(q), gene, cell_line, float(s), int(self._de[cell_line, q, gene]),
                           int(self._dir[cell_line, q, gene])) for q, s in zip(nb, sims))  # fmt: skip
        return Evidence(
            cell_line, drug, gene, tuple(walks[:max_paths]), float(self.scores[drug, gene]), cases
        )

    def case_votes(self, cell_line: int, drugs) -> tuple[np.ndarray, np.ndarray]:
        """Batch case votes for `drugs` x all genes in `cell_line`: (v_de in [0, 1], v_dir in [-1, 1]).

        v_de = sum |sim_i| de_i / sum |sim_i|;  v_dir = sum sim_i de_i (2 dir_i - 1) / sum |sim_i| de_i
        (an anti-similar drug votes for the opposite direction); uniform weights when every sim is 0.
        """
        v_de = np.zeros((len(drugs), self.kg.n_genes))
        v_dir = np.zeros_like(v_de)
        for i, p in enumerate(drugs):
            self._check(cell_line, int(p))
            nb, sims = self.neighbours(int(p))
            if len(nb) == 0:
                continue
            de, up = self._de[cell_line, nb].astype(float), 2.0 * self._dir[cell_line, nb] - 1.0
            v_de[i], v_dir[i] = case_vote(sims, de, up)
        return v_de, v_dir


def case_vote(sims: np.ndarray, de: np.ndarray, up: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Similarity-weighted votes of cases (rows) for each column: see :meth:`Retriever.case_votes`."""
    sims = np.asarray(sims, dtype=float)
    wts = np.abs(sims) if np.any(sims != 0) else np.ones_like(sims)
    sgn = np.sign(sims) if np.any(sims != 0) else np.ones_like(sims)
    de = np.asarray(de, dtype=float).reshape(len(sims), -1)
    up = np.asarray(up, dtype=float).reshape(len(sims), -1)
    v_de = wts @ de / wts.sum()
    den = wts @ de
    v_dir = np.where(den > 0, (wts * sgn) @ (de * up) / np.where(den > 0, den, 1.0), 0.0)
    return v_de, v_dir
