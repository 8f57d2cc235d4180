"""The brief's baselines: k-mer logistic regression, nearest-neighbour answers and design copies, few-shot prompts.

Paper: "AFD-Instruction" (ICLR 2026, arXiv 2602.04916).

* ``KmerLogisticRegression``: counts of every amino-acid k-mer (k = 3) of the heavy and of the light chain
  (two blocks, so a motif's chain is known), scikit-learn ``LogisticRegression``: the sequence-only supervised
  reference.
* ``nearest_neighbours``: cosine similarity of the same k-mer count vectors; the nearest training antibody's
  answer is the retrieval baseline.
* ``nn_copy_design``: for a design request, the CDR-H3 of the training antibody with the same function whose
  light chain is nearest (k-mer cosine) to the request's.
* ``few_shot_prompt``: ``k`` solved training instructions of the same task, then the query (the released API
  benchmark uses two shots and the answer style of the dataset; here in the same plain template as tuning).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import product

import numpy as np
from scipy import sparse
from sklearn.linear_model import LogisticRegression

from iclr26.agents.afd_instruction.schema import AA20, Record
from iclr26.agents.afd_instruction.synth import Antibody
from iclr26.agents.afd_instruction.templates import chat_parts
from iclr26.checks import check_float, check_int

__all__ = [
    "KmerLogisticRegression",
    "few_shot_prompt",
    "kmer_counts",
    "kmer_features",
    "nearest_neighbours",
    "nn_copy_design",
]


def kmer_counts(seqs: Sequence[str], k: int = 3) -> sparse.csr_matrix:
    """``(n, 20**k)`` sparse counts of each amino-acid k-mer (windows with another letter are skipped)."""
    k = check_int("k", k, low=1, high=4)
    index = {"".join(t): i for i, t in enumerate(product(AA20, repeat=k))}
    rows, cols = [], []
    for r, s in enumerate(seqs):
        for j in range(len(s) - k + 1):
            c = index.get(s[j : j + k])
            if c is not None:
                rows.append(r)
                cols.append(c)
    data = np.ones(len(rows), dtype=np.float64)
    m = sparse.csr_matrix((data, (rows, cols)), shape=(len(seqs), len(index)))
    m.sum_duplicates()
    return m


def kmer_features(antibodies: Sequence[Antibody], k: int = 3) -> sparse.csr_matrix:
    """Heavy-chain k-mer counts next to light-chain k-mer counts, ``(n, 2 * 20**k)``."""
    return sparse.hstack(
        [kmer_counts([a.heavy for a in antibodies], k), kmer_counts([a.light for a in antibodies], k)]
    ).tocsr()


class KmerLogisticRegression:
    """Multinomial logistic regression on :func:`kmer_features` (scikit-learn lbfgs, L2, ``C`` = 1; fitted on the
    k-mers that occur in training)."""

    def __init__(self, k: int = 3, C: float = 1.0, max_iter: int = 500, tol: float = 1e-3) -> None:
        self.k = check_int("k", k, low=1, high=4)
        self.C = check_float("C", C, low=0.0, low_open=True)
        self.max_iter = check_int("max_iter", max_iter, low=1)
        self.tol = check_float("tol", tol, low=0.0, low_open=True)

    def fit(self, antibodies: Sequence[Antibody], labels: Sequence[str]) -> KmerLogisticRegression:
        if len(antibodies) != len(labels) or not labels:
            raise ValueError(
                f"antibodies and labels must be non-empty and equally long, got {len(antibodies)}, {len(labels)}"
            )
        X = kmer_features(antibodies, self.k)
        self.columns_ = np.flatnonzero(np.asarray(X.sum(0)).ravel())  # k-mers never seen carry no weight
        self.model_ = LogisticRegression(C=self.C, max_iter=self.max_iter, tol=self.tol)
        self.model_.fit(X[:, self.columns_], list(labels))
        return self

    def predict(self, antibodies: Sequence[Antibody]) -> list[str]:
        X = kmer_features(antibodies, self.k)[:, self.columns_]
        return [str(x) for x in self.model_.predict(X)]


def _normalise(m: sparse.csr_matrix) -> sparse.csr_matrix:
    norms = np.sqrt(np.asarray(m.multiply(m).sum(1)).ravel())
    return sparse.diags(1.0 / np.maximum(norms, 1e-12)) @ m


def nearest_neighbours(train: sparse.csr_matrix, query: sparse.csr_matrix) -> np.ndarray:
    """Index of the training row of highest cosine similarity for each query row (ties: lowest index)."""
    sim = (_normalise(query) @ _normalise(train).T).toarray()
    return sim.argmax(1)


def nn_copy_design(
    train: Sequence[Antibody], requests: Sequence[tuple[str, str, str]], k: int = 3
) -> list[str]:
    """For each ``(light chain, target, neutralizing)`` request, the CDR-H3 of the same-function training
    antibody whose light chain is nearest; a function absent from `train` falls back to all of `train`."""
    lights = kmer_counts([a.light for a in train], k)
    out = []
    for light, target, neut in requests:
        pool = [
            i
            for i, a in enumerate(train)
            if a.labels["target"] == target and a.labels["neutralizing"] == neut
        ] or list(range(len(train)))
        j = nearest_neighbours(lights[pool], kmer_counts([light], k))[0]
        out.append(train[pool[int(j)]].h3)
    return out


def few_shot_prompt(shots: Sequence[Record], query: Record, template: str = "plain") -> str:
    """The solved `shots` (prompt + answer each) followed by the query's prompt."""
    text = "".join("".join(chat_parts(s, template)) for s in shots)
    return text + chat_parts(query, template)[0]
