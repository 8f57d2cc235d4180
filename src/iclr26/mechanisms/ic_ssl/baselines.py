"""Baselines of the IC-SSL reproduction (arXiv 2512.15934).

* :class:`PlainICLTransformer`: a standard pre-LN softmax-attention transformer over ``[x; y]`` tokens that
  reads query logits; with ``use_unlabelled=False`` every token attends only to the labelled context tokens
  (and itself), with ``use_unlabelled=True`` to all context tokens (unlabelled ones carry a zero label).
* per task: offline Laplacian eigenmaps (:func:`laplacian_eigenmap` on context + queries, on scikit-learn's kNN
  graph) followed by ``LogisticRegression`` on the labelled points; scikit-learn's ``LabelSpreading``;
  1-nearest-neighbour on the labelled points.
"""

from __future__ import annotations

import warnings

import numpy as np
import torch
from einops import rearrange
from scipy import linalg
from sklearn.linear_model import LogisticRegression
from sklearn.neighbors import KNeighborsClassifier, kneighbors_graph
from sklearn.semi_supervised import LabelSpreading
from torch import nn

from iclr26.checks import check_array, check_bool, check_float, check_int
from iclr26.mechanisms.ic_ssl.model import check_tokens
from iclr26.mechanisms.ic_ssl.tasks import ManifoldTask

__all__ = ["PlainICLTransformer", "eigenmap_logreg", "knn_labelled", "label_spreading", "laplacian_eigenmap"]


class _Block(nn.Module):
    """Pre-LN transformer block with a boolean key mask (B, N, N)."""

    def __init__(self, width: int, heads: int, mlp_ratio: int) -> None:
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)
        self.mlp = nn.Sequential(
            nn.Linear(width, mlp_ratio * width), nn.GELU(), nn.Linear(mlp_ratio * width, width)
        )

    def forward(self, h: torch.Tensor, allowed: torch.Tensor) -> torch.Tensor:
        q, k, v = rearrange(self.qkv(self.ln1(h)), "b n (t h e) -> t b h n e", t=3, h=self.heads)
        scores = (q @ k.transpose(-1, -2)) / q.shape[-1] ** 0.5
        att = torch.softmax(scores.masked_fill(~allowed.unsqueeze(1), float("-inf")), -1)
        h = h + self.out(rearrange(att @ v, "b h n e -> b n (h e)"))
        return h + self.mlp(self.ln2(h))


class PlainICLTransformer(nn.Module):
    """Plain in-context classifier over ``[x; y]`` tokens (no manifold structure).

    Parameters
    ----------
    d, n_classes : token layout ``d + n_classes``; width, depth, heads, mlp_ratio : transformer size.
    use_unlabelled : let tokens attend to unlabelled context tokens too (baseline 2) or not (baseline 1).

    Example
    -------
    >>> m = PlainICLTransformer(4, 2, width=8, depth=1, heads=2)
    >>> t = torch.zeros(1, 5, 6); t[0, 0, 4] = 1.0
    >>> m(t, torch.tensor([[False, False, False, True, True]])).shape
    torch.Size([1, 5, 2])
    """

    def __init__(
        self,
        d: int,
        n_classes: int,
        width: int = 32,
        depth: int = 3,
        heads: int = 4,
        mlp_ratio: int = 4,
        use_unlabelled: bool = False,
    ) -> None:
        super().__init__()
        for name, value in (
            ("d", d),
            ("n_classes", n_classes),
            ("width", width),
            ("depth", depth),
            ("heads", heads),
            ("mlp_ratio", mlp_ratio),
        ):
            check_int(name, value, low=1)
        check_bool("use_unlabelled", use_unlabelled)
        if width % heads:
            raise ValueError(f"width ({width}) must be divisible by heads ({heads})")
        self.d, self.n_classes, self.use_unlabelled = d, n_classes, use_unlabelled
        self.embed = nn.Linear(d + n_classes, width)
        self.blocks = nn.ModuleList(_Block(width, heads, mlp_ratio) for _ in range(depth))
        self.ln = nn.LayerNorm(width)
        self.head = nn.Linear(width, n_classes)

    def forward(self, tokens: torch.Tensor, is_query: torch.Tensor) -> torch.Tensor:
        """Logits (B, N, C) for every token (read them at the query positions)."""
        check_tokens(tokens, is_query, self.d, self.n_classes)
        y = tokens[..., self.d :] * (~is_query).unsqueeze(-1)
        labelled = y.sum(-1) > 0
        keys = (~is_query) if self.use_unlabelled else labelled
        eye = torch.eye(tokens.shape[1], dtype=torch.bool, device=tokens.device).unsqueeze(0)
        allowed = keys.unsqueeze(1) | eye  # (B, N query-side, N key-side)
        h = self.embed(torch.cat([tokens[..., : self.d], y], -1))
        for block in self.blocks:
            h = block(h, allowed)
        return self.head(self.ln(h))


def _labelled(task: ManifoldTask) -> tuple[np.ndarray, np.ndarray]:
    idx = np.flatnonzero(task.y_ctx >= 0)
    if idx.size == 0:
        raise ValueError("task has no labelled context point (y_ctx is all -1)")
    return task.x_ctx[idx], task.y_ctx[idx]


def laplacian_eigenmap(x: np.ndarray, n_components: int, n_neighbors: int | None = None) -> np.ndarray:
    """Laplacian eigenmap of the points `x` (n, d): the `n_components` smoothest non-trivial directions.

    The graph is scikit-learn's symmetrised kNN connectivity ``A = (K + K^T) / 2`` (``include_self``, as in
    ``SpectralEmbedding``); with ``L = I - D^{-1/2} A D^{-1/2}`` the eigenvectors ``U`` of the
    ``n_components + 1`` smallest eigenvalues are taken from a dense, deterministic LAPACK solve, the trivial
    direction ``D^{1/2} 1`` is projected out (rather than dropping the first vector, which is an arbitrary member
    of the null space when the graph has several components), and the embedding is ``D^{-1/2} U`` scaled by one
    global factor. Every step is equivariant to a rotation inside a degenerate eigenspace, so a downstream
    linear classifier sees the same geometry whichever basis the solver returns. ``n_neighbors`` defaults to
    scikit-learn's ``max(n / 10, 1)``.
    """
    x = check_array("x", x, ndim=2, finite=True)
    n = x.shape[0]
    check_int(f"n_components (for {n} points)", n_components, 1, n - 1)
    n_neighbors = max(n // 10, 1) if n_neighbors is None else n_neighbors
    check_int(f"n_neighbors (for {n} points)", n_neighbors, 1, n)
    knn = kneighbors_graph(x, n_neighbors, include_self=True).toarray()
    adj = 0.5 * (knn + knn.T)
    deg = adj.sum(1)
    inv_sqrt = 1.0 / np.sqrt(deg)
    lap = np.eye(n) - inv_sqrt[:, None] * adj * inv_sqrt[None, :]
    _, vecs = linalg.eigh(lap, subset_by_index=[0, n_components])
    trivial = np.sqrt(deg) / np.linalg.norm(np.sqrt(deg))
    vecs = vecs - np.outer(trivial, trivial @ vecs)
    basis = np.linalg.svd(vecs, full_matrices=False)[0][:, :n_components]
    emb = basis * inv_sqrt[:, None]
    return emb / (emb.std() + 1e-12)


def eigenmap_logreg(
    task: ManifoldTask, k: int | None = None, n_neighbors: int | None = None, seed: int = 0
) -> np.ndarray:
    """Offline Laplacian eigenmaps (:func:`laplacian_eigenmap`, context + queries) + LogisticRegression.

    Returns predicted query labels. ``k`` (embedding dims) defaults to the number of labelled points capped at
    8; ``n_neighbors`` defaults to scikit-learn's ``max(n / 10, 1)``. ``seed`` is kept for API stability: the
    eigen-solve is deterministic.
    """
    check_int("seed", seed, low=0)
    x_lab, y_lab = _labelled(task)
    k = min(8, max(2, y_lab.size)) if k is None else k
    emb = laplacian_eigenmap(np.concatenate([task.x_ctx, task.x_qry]), k, n_neighbors)
    lab_idx = np.flatnonzero(task.y_ctx >= 0)
    if np.unique(y_lab).size < 2:
        return np.full(task.x_qry.shape[0], y_lab[0])
    clf = LogisticRegression(max_iter=1000).fit(emb[lab_idx], y_lab)
    return clf.predict(emb[task.x_ctx.shape[0] :])


def label_spreading(task: ManifoldTask, n_neighbors: int = 7, alpha: float = 0.99) -> np.ndarray:
    """sklearn LabelSpreading (kNN kernel, clamping `alpha`) on context + queries; returns query labels."""
    check_int("n_neighbors", n_neighbors, low=1)
    check_float("alpha", alpha, 0.0, 1.0, low_open=True, high_open=True)
    _labelled(task)
    x_all = np.concatenate([task.x_ctx, task.x_qry])
    y_all = np.concatenate([task.y_ctx, np.full(task.x_qry.shape[0], -1)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = LabelSpreading(kernel="knn", n_neighbors=n_neighbors, alpha=alpha, max_iter=1000).fit(
            x_all, y_all
        )
    return model.transduction_[task.x_ctx.shape[0] :]


def knn_labelled(task: ManifoldTask) -> np.ndarray:
    """1-nearest-neighbour on the labelled context points only; returns predicted query labels."""
    x_lab, y_lab = _labelled(task)
    return KNeighborsClassifier(n_neighbors=1).fit(x_lab, y_lab).predict(task.x_qry)
