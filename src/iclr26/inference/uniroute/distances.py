"""Squared Euclidean distances between prompt embeddings, and nearest rows; one code path for every router.

UniRoute's nearest-centroid assignment k(x) and the K-NN baseline's neighbourhoods both use these functions, so
that "UniRoute with the validation prompts as centroids equals 1-NN routing" holds exactly, ties included.
"""

from __future__ import annotations

import numpy as np
from sklearn.metrics.pairwise import euclidean_distances

from iclr26.checks import check_int

__all__ = ["nearest", "sq_distances"]


def sq_distances(X: np.ndarray, C: np.ndarray) -> np.ndarray:
    """||x_i - c_j||^2 for rows of X (n, D) and C (m, D), shape (n, m)."""
    return euclidean_distances(X, C, squared=True)


def nearest(X: np.ndarray, C: np.ndarray, k: int = 1, chunk: int = 4096) -> np.ndarray:
    """Indices (n, k) of the k rows of C nearest to each row of X, closest first; ties go to the lower index."""
    check_int("k (at most the number of reference rows)", k, 1, C.shape[0])
    out = np.empty((X.shape[0], k), dtype=int)
    for start in range(0, X.shape[0], chunk):
        d2 = sq_distances(X[start : start + chunk], C)
        if k == 1:  # argmin returns the first minimum, as the stable sort would
            out[start : start + chunk, 0] = np.argmin(d2, axis=1)
        else:
            out[start : start + chunk] = _k_smallest_stable(d2, k)
    return out


def _k_smallest_stable(d2: np.ndarray, k: int) -> np.ndarray:
    """``np.argsort(d2, axis=1, kind="stable")[:, :k]`` without sorting whole rows: a partition finds each row's k
    smallest, a sort by (distance, index) orders them; rows whose k-th value is tied beyond the k-th place (the
    partition's choice among the ties would be arbitrary) take the full stable sort."""
    if k >= d2.shape[1]:
        return np.argsort(d2, axis=1, kind="stable")[:, :k]
    part = np.argpartition(d2, k - 1, axis=1)[:, :k]
    vals = np.take_along_axis(d2, part, axis=1)
    kth = vals.max(axis=1, keepdims=True)
    idx = np.take_along_axis(part, np.lexsort((part, vals), axis=1), axis=1)
    tied = (d2 <= kth).sum(axis=1) != k
    if tied.any():
        idx[tied] = np.argsort(d2[tied], axis=1, kind="stable")[:, :k]
    return idx
