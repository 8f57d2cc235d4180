"""Baselines of the VCWorld reproduction: black-box classifiers on KG features, and kNN over drugs.

Features of a triplet (c, p, g) = gene embedding (truncated SVD, 16 dims, of the KG's gene adjacency
[A + A^T | GO]) (+) drug target-set embedding (the sum of its targets' embeddings, signed by the drug-target edge)
(+) cell line one-hot. The black boxes (scikit-learn ``HistGradientBoostingClassifier``, 200 iterations, and
``MLPClassifier`` (64,), early stopping, max_iter 100) are fitted on at most ``max_rows`` sampled training rows.
"""

from __future__ import annotations

import numpy as np
from sklearn.decomposition import TruncatedSVD
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.neural_network import MLPClassifier

from iclr26.agents.vcworld.kg import KnowledgeGraph
from iclr26.checks import check_choice, check_int

__all__ = ["BLACK_BOXES", "fit_black_box", "kg_embeddings", "triplet_features"]

BLACK_BOXES = ("hgb", "mlp")


def kg_embeddings(kg: KnowledgeGraph, dim: int = 16, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(gene embeddings (genes, dim), drug embeddings (drugs, dim)) from the KG."""
    A = kg.signed_adjacency()
    M = np.hstack([np.abs((A + A.T).toarray()), kg.go_matrix().toarray()])
    dim = min(check_int("dim", dim, low=1), M.shape[1] - 1)
    genes = TruncatedSVD(dim, random_state=seed).fit_transform(M)
    drugs = kg.drug_target_matrix().toarray() @ genes
    return genes, drugs


def triplet_features(genes: np.ndarray, drugs: np.ndarray, n_cells: int, c, p, g) -> np.ndarray:
    """Feature rows for the triplets (c[i], p[i], g[i])."""
    c, p, g = (np.asarray(x, dtype=int) for x in (c, p, g))
    return np.hstack([genes[g], drugs[p], np.eye(n_cells)[c]])


def fit_black_box(
    kind: str, X: np.ndarray, y: np.ndarray, seed: int = 0, max_rows: int = 30_000, max_iter: int = 200
):
    """Fit a black box on at most `max_rows` rows sampled from (X, y) (`max_iter`: HGB iterations)."""
    check_choice("kind", kind, BLACK_BOXES)
    rng = np.random.default_rng(seed)
    if len(y) > max_rows:
        idx = rng.choice(len(y), max_rows, replace=False)
        X, y = X[idx], y[idx]
    if kind == "hgb":
        model = HistGradientBoostingClassifier(
            max_iter=check_int("max_iter", max_iter, low=1), random_state=seed, early_stopping=False
        )
    else:
        model = MLPClassifier((64,), early_stopping=True, max_iter=100, random_state=seed)
    return model.fit(X, y)
