"""The classic discrete-unit baseline of the SiTok reproduction (arXiv 2602.06602): k-means on mel features.

Each stacked 12.5 Hz frame (4 x 128 normalised log-mel bins) is assigned to the nearest of K centroids fitted by
scikit-learn's MiniBatchKMeans; decoding returns the centroids (a nearest-centroid "regression" decoder).
"""

from __future__ import annotations

import numpy as np
import torch
from einops import rearrange
from sklearn.cluster import MiniBatchKMeans
from torch import Tensor

from iclr26.checks import check_int, check_tensor, check_token_ids

__all__ = ["KMeansTokenizer"]


class KMeansTokenizer:
    """k-means tokenizer over stacked normalised mel frames.

    Examples
    --------
    >>> tok = KMeansTokenizer(codebook_size=4, n_mels=8, seed=0).fit([torch.randn(8, 40) for _ in range(3)])
    >>> codes = tok.encode(torch.randn(1, 8, 12))
    >>> codes.shape, tok.decode(codes).shape
    (torch.Size([1, 3]), torch.Size([1, 8, 12]))
    """

    def __init__(self, codebook_size: int = 1024, n_mels: int = 128, stack: int = 4, seed: int = 0,
                 max_iter: int = 20) -> None:  # fmt: skip
        self.codebook_size = check_int("codebook_size", codebook_size, low=2)
        self.n_mels = check_int("n_mels", n_mels, low=1)
        self.stack = check_int("stack", stack, low=1)
        self.seed = check_int("seed", seed, low=0)
        self.max_iter = check_int("max_iter", max_iter, low=1)
        self.mean = torch.zeros(n_mels)
        self.std = torch.ones(n_mels)
        self.centroids: Tensor | None = None

    def _stack(self, mel: Tensor) -> Tensor:
        check_tensor("mel", mel, ndim=3, floating=True, finite=True)
        if mel.shape[1] != self.n_mels or mel.shape[2] % self.stack:
            raise ValueError(
                f"mel must be (batch, n_mels={self.n_mels}, frames a multiple of {self.stack}), got {tuple(mel.shape)}"
            )
        x = (mel - self.mean[:, None]) / self.std[:, None]
        return rearrange(x, "b c (t s) -> b t (s c)", s=self.stack)

    def fit(
        self, mels: list[Tensor], mean: Tensor | None = None, std: Tensor | None = None
    ) -> KMeansTokenizer:
        """Fit the centroids on the stacked frames of raw log-mels (n_mels, F_i), normalised by mean / std."""
        if mels is None or isinstance(mels, (str, bytes)) or not hasattr(mels, "__len__"):
            raise TypeError(f"mels must be a sequence of (n_mels={self.n_mels}, F_i) log-mels, got {mels!r}")
        for i, m in enumerate(mels):
            check_tensor(f"mels[{i}]", m, ndim=2, floating=True, finite=True, shape=(self.n_mels, None))
        if mean is not None:
            check_tensor("mean", mean, floating=True, finite=True, shape=(self.n_mels,))
            check_tensor("std", std, floating=True, finite=True, shape=(self.n_mels,))
            self.mean, self.std = mean.float(), std.float()
        frames = torch.cat([self._stack(m[None])[0] for m in mels]).numpy()
        k = min(self.codebook_size, len(frames))
        km = MiniBatchKMeans(k, batch_size=2048, n_init=1, max_iter=self.max_iter, random_state=self.seed)
        km.fit(frames)
        cent = np.zeros((self.codebook_size, frames.shape[1]), dtype=np.float32)
        cent[:k] = km.cluster_centers_
        self.centroids = torch.tensor(cent)
        return self

    def _need_fit(self) -> Tensor:
        if self.centroids is None:
            raise RuntimeError("KMeansTokenizer is not fitted; call fit(mels) first")
        return self.centroids

    def encode(self, mel: Tensor) -> Tensor:
        """Codes (B, F / stack) of raw log-mel (B, n_mels, F)."""
        c = self._need_fit()
        x = self._stack(mel)
        d = x.pow(2).sum(-1, keepdim=True) - 2 * x @ c.T + c.pow(2).sum(-1)
        return d.argmin(-1)

    def embed(self, codes: Tensor) -> Tensor:
        """Centroid vectors (B, T, stack * n_mels) of `codes`."""
        c = self._need_fit()
        check_token_ids("codes", codes, self.codebook_size)
        return c[codes]

    def decode(self, codes: Tensor) -> Tensor:
        """Raw log-mel (B, n_mels, T * stack): the centroids, unstacked and de-normalised."""
        mel = rearrange(self.embed(codes), "b t (s c) -> b c (t s)", s=self.stack)
        return mel * self.std[:, None] + self.mean[:, None]
