"""Role-aware input embeddings: ASIDE (fixed rotation of data tokens), the ISE baseline, and Vanilla.

* ASIDE (arXiv 2503.10566): ``e_i = E[t_i]`` for role 0, ``e_i = E[t_i] R`` for role 1; no new parameters.
* ISE (Wu et al., 2024; the paper's baseline): ``e_i = E[t_i] + S[r_i]`` with a learned (2, d) table S.
* Vanilla: ``e_i = E[t_i]``, roles ignored.

All three wrap an existing ``nn.Embedding`` (shared, not copied), so an LM head tied to ``E`` keeps reading the
un-rotated table.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from iclr26.architectures.aside.rotation import IsoclinicRotation, check_segment_ids
from iclr26.checks import check_float, check_tensor, check_token_ids

__all__ = ["EMBEDDINGS", "ASIDEEmbedding", "ISEEmbedding", "VanillaEmbedding", "make_role_embedding"]


class _RoleEmbedding(nn.Module):
    def __init__(self, embedding: nn.Embedding) -> None:
        super().__init__()
        if not isinstance(embedding, nn.Embedding):
            raise TypeError(f"embedding must be a torch.nn.Embedding, got {type(embedding).__name__}")
        self.embedding = embedding

    def _check(self, input_ids: torch.Tensor, segment_ids: torch.Tensor | None) -> None:
        check_tensor("input_ids", input_ids, ndim=2, floating=False)
        check_token_ids("input_ids", input_ids, self.embedding.num_embeddings)
        if segment_ids is None:
            raise ValueError("segment_ids is required (0 = instruction, 1 = data), got None")
        check_segment_ids(segment_ids, tuple(input_ids.shape))


class VanillaEmbedding(_RoleEmbedding):
    """``E[t]``, the roles are checked and ignored (the baseline with a single embedding)."""

    def forward(self, input_ids: torch.Tensor, segment_ids: torch.Tensor) -> torch.Tensor:
        self._check(input_ids, segment_ids)
        return self.embedding(input_ids)


class ASIDEEmbedding(_RoleEmbedding):
    """ASIDE: data-role tokens (``segment_ids == 1``) get ``E[t] R``, a fixed isoclinic rotation.

    Example
    -------
    >>> emb = ASIDEEmbedding(nn.Embedding(10, 4))
    >>> ids = torch.tensor([[3, 3]])
    >>> out = emb(ids, torch.tensor([[0, 1]]))
    >>> float(out[0, 0] @ out[0, 1]) == 0.0  # pi/2: a token is orthogonal to its rotated copy
    True
    >>> sum(p.numel() for p in emb.parameters()) == 40  # no new parameters
    True
    """

    def __init__(
        self,
        embedding: nn.Embedding,
        alpha: float = math.pi / 2,
        direction: str = "right",
        strict: bool = True,
    ) -> None:
        super().__init__(embedding)
        self.rotation = IsoclinicRotation(embedding.embedding_dim, alpha, direction, strict)

    def forward(self, input_ids: torch.Tensor, segment_ids: torch.Tensor) -> torch.Tensor:
        self._check(input_ids, segment_ids)
        return self.rotation.apply(self.embedding(input_ids), segment_ids)


class ISEEmbedding(_RoleEmbedding):
    """ISE baseline: ``E[t] + S[r]`` with a learned segment table S of shape (2, d).

    S starts as N(0, init_std^2); the default ``init_std=None`` uses the standard deviation of E's entries, so the
    segment signal starts at the scale of a token embedding (the official code keeps ``nn.Embedding``'s N(0, 1),
    far larger than a small model's token embeddings).
    """

    def __init__(self, embedding: nn.Embedding, init_std: float | None = None, seed: int = 0) -> None:
        super().__init__(embedding)
        std = float(embedding.weight.detach().float().std()) if init_std is None else init_std
        std = check_float("init_std", std, low=0.0)
        gen = torch.Generator().manual_seed(int(seed))
        init = torch.randn(2, embedding.embedding_dim, generator=gen) * std
        self.segment = nn.Parameter(init.to(embedding.weight.dtype))

    def forward(self, input_ids: torch.Tensor, segment_ids: torch.Tensor) -> torch.Tensor:
        self._check(input_ids, segment_ids)
        seg = self.segment.to(device=input_ids.device)[segment_ids.long()]
        return self.embedding(input_ids) + seg


EMBEDDINGS = {"vanilla": VanillaEmbedding, "ise": ISEEmbedding, "aside": ASIDEEmbedding}


def make_role_embedding(method: str, embedding: nn.Embedding, **kwargs: object) -> _RoleEmbedding:
    """The role embedding ``method`` in {"vanilla", "ise", "aside"} around ``embedding``."""
    if method not in EMBEDDINGS:
        raise ValueError(f"method must be one of {', '.join(map(repr, EMBEDDINGS))}, got {method!r}")
    return EMBEDDINGS[method](embedding, **kwargs)
