"""Inter-frame autoregressive sparsification of FARTrack (ICLR 2026, arXiv 2602.03214), as in the official
``mask_generation``.

At frame t: average the attention maps over all layers and heads; take the row of the centre search token (the
target, row ``(g // 2, g // 2)`` of the g x g search grid) over the template tokens; in every template except the
newest, mark the ``floor(ratio * n_t)`` lowest-scoring tokens as pruned. The mask is applied at frame t + 1, so the
decision costs no extra pass. Masks here are key-padding masks: True = pruned.

Baselines: :func:`random_prune_mask` (random tokens, same count) and the intra-frame rule (the same scores
computed and applied within one frame, which needs a second forward pass; see :class:`Tracker`).
"""

from __future__ import annotations

import math

import torch

from iclr26.checks import check_float, check_int, check_tensor

__all__ = ["InterFrameSparsifier", "random_prune_mask"]


class InterFrameSparsifier:
    """Attention-driven template-token mask for the next frame.

    Parameters
    ----------
    ratio : fraction of each older template's tokens to prune, in [0, 1) (official: 0.25 in training; 0.25, 0.5,
        0.75, 0.9 at inference).
    search_grid : side g of the square search-token grid (search_size / patch).
    n_commands : command tokens at the end of the sequence (4).

    Example
    -------
    >>> import torch
    >>> sp = InterFrameSparsifier(0.25, search_grid=6)
    >>> attn = torch.rand(6, 2, 3, 3 * 9 + 36 + 4, 3 * 9 + 36 + 4).softmax(-1)  # (depth, B, heads, N, N)
    >>> mask = sp.update(attn, n_templates=3)
    >>> tuple(mask.shape), mask.sum(1).tolist()  # 2 older templates x floor(0.25 * 9) = 2 tokens each
    ((2, 27), [4, 4])
    """

    def __init__(self, ratio: float, search_grid: int = 6, n_commands: int = 4) -> None:
        self.ratio = check_float("ratio", ratio, low=0.0, high=1.0, high_open=True)
        self.search_grid = check_int("search_grid", search_grid, low=1)
        self.n_commands = check_int("n_commands", n_commands, low=0)
        self.mask: torch.Tensor | None = None

    def _layout(self, n: int, n_templates: int) -> int:
        n_x = self.search_grid**2
        n_templ = n - n_x - self.n_commands
        if n_templ <= 0 or n_templ % n_templates:
            raise ValueError(
                f"attention over N = {n} tokens does not split into {n_templates} templates + {n_x} search + "
                f"{self.n_commands} command tokens"
            )
        return n_templ // n_templates

    def scores(self, attn: torch.Tensor, n_templates: int) -> torch.Tensor:
        """Centre-search-token attention to every template token, averaged over layers and heads: (B, L, n_t).

        attn : (layers, B, heads, N, N) or (B, heads, N, N) attention probabilities.
        """
        check_tensor("attn", attn, ndim=(4, 5), floating=True)
        n_templates = check_int("n_templates", n_templates, low=1)
        a = attn.mean(dim=(0, 2)) if attn.ndim == 5 else attn.mean(dim=1)  # (B, N, N)
        n_t = self._layout(a.shape[-1], n_templates)
        g = self.search_grid
        row = n_templates * n_t + (g // 2) * g + g // 2
        return a[:, row, : n_templates * n_t].reshape(a.shape[0], n_templates, n_t)

    def n_pruned(self, n_t: int) -> int:
        """Tokens pruned per older template: floor(ratio * n_t)."""
        return math.floor(self.ratio * n_t)

    def mask_from_scores(self, scores: torch.Tensor, prune_newest: bool = False) -> torch.Tensor:
        """(B, L, n_t) scores -> (B, L n_t) mask; the lowest floor(ratio n_t) of every older template pruned."""
        B, L, n_t = scores.shape
        k = self.n_pruned(n_t)
        mask = torch.zeros(B, L, n_t, dtype=torch.bool, device=scores.device)
        if k:
            low = scores.argsort(dim=-1, stable=True)[..., :k]
            mask.scatter_(-1, low, True)
        if not prune_newest:
            mask[:, -1] = False
        return mask.reshape(B, L * n_t)

    def update(self, attn: torch.Tensor, n_templates: int) -> torch.Tensor:
        """The key-padding mask (B, L n_t) for the next frame (True = pruned); also kept as ``self.mask``."""
        self.mask = self.mask_from_scores(self.scores(attn, n_templates))
        return self.mask

    def template_mask(self, attn: torch.Tensor, n_templates: int, index: int = -1) -> torch.Tensor:
        """The (B, n_t) mask of one template (default the newest), for the tracker's per-template mask store."""
        s = self.scores(attn, n_templates)[:, index : index + 1 if index != -1 else None]
        return self.mask_from_scores(s, prune_newest=True)


def random_prune_mask(
    batch: int, n_templates: int, n_t: int, ratio: float, generator: torch.Generator | None = None
) -> torch.Tensor:
    """Random baseline: floor(ratio n_t) random tokens of every older template pruned, (B, L n_t) bool."""
    check_float("ratio", ratio, low=0.0, high=1.0, high_open=True)
    k = math.floor(ratio * n_t)
    mask = torch.zeros(batch, n_templates, n_t, dtype=torch.bool)
    if k:
        idx = torch.rand(batch, n_templates, n_t, generator=generator).argsort(-1)[..., :k]
        mask.scatter_(-1, idx, True)
    mask[:, -1] = False
    return mask.reshape(batch, n_templates * n_t)
