"""Position schemes for the shared transformer: the hook through which position information enters.

A scheme may add a vector per position to the token embeddings (:meth:`PositionScheme.embed`) and/or an
additive bias per head to the attention scores (:meth:`PositionScheme.score_bias`); either may be ``None``.

* :class:`LearnedAbsolutePositions` (GPT-2): ``x_t = E[token_t] + P[t]`` with a learned table ``P``.
* :class:`NoPositions`: no position signal (a causal mask alone still breaks permutation symmetry).
* :class:`RelativePositionBias` (T5-style, scalar per head): ``scores[h, i, j] += b[h, clip(i - j)]``.

Example
-------
>>> import torch
>>> from iclr26.lab.transformer.positions import RelativePositionBias
>>> bias = RelativePositionBias(n_heads=2, max_distance=4)
>>> bias.score_bias(5, torch.device("cpu")).shape
torch.Size([2, 5, 5])
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from iclr26.checks import check_int

__all__ = ["LearnedAbsolutePositions", "NoPositions", "PositionScheme", "RelativePositionBias"]


class PositionScheme(nn.Module):
    """Base class: override :meth:`embed` and/or :meth:`score_bias`; the defaults add nothing."""

    def embed(self, seq: int, device: torch.device) -> Tensor | None:
        """Additive position embeddings of shape (seq, d_model), or None."""
        return None

    def score_bias(self, seq: int, device: torch.device) -> Tensor | None:
        """Additive attention-score bias of shape (heads, seq, seq) (query, key), or None."""
        return None

    def reset_parameters(self, generator: torch.Generator | None = None) -> None:
        """Re-initialise the scheme's parameters (none by default)."""


class NoPositions(PositionScheme):
    """No position information at all."""


class LearnedAbsolutePositions(PositionScheme):
    """A learned vector per absolute position, added to the token embeddings: ``x_t = E[tok_t] + P[t]``."""

    def __init__(self, seq_len: int, d_model: int) -> None:
        super().__init__()
        self.W_pos = nn.Parameter(torch.empty(seq_len, d_model))
        self.reset_parameters()

    def reset_parameters(self, generator: torch.Generator | None = None) -> None:
        with torch.no_grad():
            self.W_pos.normal_(0.0, self.W_pos.shape[1] ** -0.5, generator=generator)

    def embed(self, seq: int, device: torch.device) -> Tensor:
        return self.W_pos[:seq]


class RelativePositionBias(PositionScheme):
    """A learned scalar per head and clipped relative distance ``i - j`` added to the attention scores."""

    def __init__(self, n_heads: int, max_distance: int) -> None:
        super().__init__()
        check_int("max_distance", max_distance, low=1)
        self.max_distance = max_distance
        self.bias = nn.Parameter(torch.zeros(n_heads, 2 * max_distance + 1))

    def reset_parameters(self, generator: torch.Generator | None = None) -> None:
        with torch.no_grad():
            self.bias.zero_()

    def score_bias(self, seq: int, device: torch.device) -> Tensor:
        pos = torch.arange(seq, device=device)
        # relative distance i - j (query minus key), clipped to [-max_distance, max_distance]
        rel = (pos[:, None] - pos[None, :]).clamp(-self.max_distance, self.max_distance) + self.max_distance
        return self.bias[:, rel]
