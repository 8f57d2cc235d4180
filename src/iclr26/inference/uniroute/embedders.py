"""Prompt embedders phi(x): a frozen text encoder is all UniRoute needs from a prompt (ICLR 2026, ka82fvJ5f1).

* :class:`TfidfSvdEmbedder`: offline, no model: TF-IDF over word n-grams then truncated SVD (LSA).
* :class:`HFMeanPoolEmbedder`: any Hugging Face encoder (``AutoModel``), mean-pooled over non-padding tokens.

Both are callables ``list[str] -> (n, D) float array``, the ``embedder=`` of the routers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from sklearn.decomposition import TruncatedSVD
from sklearn.feature_extraction.text import TfidfVectorizer

from iclr26.checks import check_int

__all__ = ["HFMeanPoolEmbedder", "TfidfSvdEmbedder"]


def _check_texts(texts: Any) -> list[str]:
    if isinstance(texts, str):
        texts = [texts]
    texts = list(texts)
    if not texts or not all(isinstance(t, str) for t in texts):
        raise ValueError("texts must be a non-empty sequence of str")
    return texts


class TfidfSvdEmbedder:
    """TF-IDF (word 1-2 grams, sublinear tf) followed by truncated SVD to `n_components` dimensions.

    Fit it on a corpus of prompts (``fit``), or let :class:`~iclr26.inference.uniroute.UniRouter` fit it on
    its training prompts. ``n_components`` is capped at the vocabulary size minus one.

    Example
    -------
    >>> emb = TfidfSvdEmbedder(n_components=2).fit(["add two numbers", "sort a list", "add three numbers"])
    >>> emb(["add numbers"]).shape
    (1, 2)
    """

    def __init__(self, n_components: int = 64, random_state: int = 0) -> None:
        check_int("n_components", n_components, low=1)
        check_int("random_state", random_state, low=0)
        self.n_components = n_components
        self.random_state = random_state
        self.fitted = False

    def fit(self, texts: Sequence[str]) -> TfidfSvdEmbedder:
        texts = _check_texts(texts)
        self.vectorizer_ = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True)
        tfidf = self.vectorizer_.fit_transform(texts)
        k = max(1, min(self.n_components, tfidf.shape[1] - 1, tfidf.shape[0] - 1))
        self.svd_ = TruncatedSVD(k, random_state=self.random_state).fit(tfidf)
        self.fitted = True
        return self

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        if not self.fitted:
            raise ValueError("TfidfSvdEmbedder is not fitted: call fit(texts) first")
        return self.svd_.transform(self.vectorizer_.transform(_check_texts(texts)))


class HFMeanPoolEmbedder:
    """Mean-pooled last hidden states of a Hugging Face encoder, computed without gradients.

    Parameters
    ----------
    model : a ``transformers`` model returning ``last_hidden_state`` (``AutoModel``), or a path / hub name
        passed to ``AutoModel.from_pretrained`` (a hub name makes transformers download it).
    tokenizer : its tokenizer (loaded from the same path when `model` is a string and this is None).
    max_length, batch_size, device : truncation length, batch size and torch device.

    Example
    -------
    >>> emb = HFMeanPoolEmbedder("sentence-transformers/all-MiniLM-L6-v2")  # doctest: +SKIP
    >>> emb(["What is 2 + 2?"]).shape  # doctest: +SKIP
    (1, 384)
    """

    def __init__(
        self,
        model: Any,
        tokenizer: Any = None,
        max_length: int = 256,
        batch_size: int = 32,
        device: str = "cpu",
    ) -> None:
        if isinstance(model, str):
            from transformers import AutoModel, AutoTokenizer

            tokenizer = tokenizer or AutoTokenizer.from_pretrained(model)
            model = AutoModel.from_pretrained(model)
        if tokenizer is None:
            raise ValueError("tokenizer is required when model is a model object")
        check_int("batch_size", batch_size, low=1)
        check_int("max_length", max_length, low=1)
        self.model = model.to(device).eval()
        self.tokenizer = tokenizer
        self.max_length = max_length
        self.batch_size = batch_size
        self.device = device

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        import torch

        texts = _check_texts(texts)
        out = []
        with torch.no_grad():
            for start in range(0, len(texts), self.batch_size):
                batch = self.tokenizer(
                    texts[start : start + self.batch_size],
                    padding=True,
                    truncation=True,
                    max_length=self.max_length,
                    return_tensors="pt",
                ).to(self.device)
                hidden = self.model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"])
                hidden = hidden.last_hidden_state  # (batch, seq, dim)
                mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)  # (batch, seq, 1)
                pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1.0)
                out.append(pooled.float().cpu().numpy())
        return np.concatenate(out).astype(float)
