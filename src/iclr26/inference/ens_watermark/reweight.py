"""Unbiased logits reweights for ENS (OpenReview iZ7i2y1YxO): DiPmark and gamma-reweight.

Given the next-token distribution P over V tokens and a permutation pi, write F_i for the cumulative
probability of the first i tokens in pi order (F_0 = 0). DiPmark (alpha in [0, 1/2]) maps the cumulative to

    G(F) = max(F - alpha, 0) + max(F - (1 - alpha), 0),     P_W(pi_i) = G(F_i) - G(F_{i-1}),

which moves mass from the start of pi toward its end. alpha = 0 is the identity; alpha = 1/2 gives the
gamma-reweight G(F) = max(2F - 1, 0). Averaged over uniformly random pi, P_W equals P exactly.
"""

from __future__ import annotations

import torch

from iclr26.checks import check_float, check_tensor

__all__ = ["DiPmarkReweight", "GammaReweight", "dipmark_cdf"]


def dipmark_cdf(cdf: torch.Tensor, alpha: float) -> torch.Tensor:
    """G(F) = max(F - alpha, 0) + max(F - (1 - alpha), 0), elementwise."""
    check_tensor("cdf", cdf, floating=True)
    return (cdf - alpha).clamp_min(0.0) + (cdf - (1.0 - alpha)).clamp_min(0.0)


class DiPmarkReweight:
    """DiPmark's distribution-preserving reweight with parameter `alpha` in [0, 0.5].

    ``reweight(probs, perm)`` accepts ``probs`` of shape (V,) or (batch, V) and a permutation (V,) or
    (batch, V) (``perm[..., i]`` is the token at position i); it returns the reweighted distribution in the
    dtype of ``probs``.

    Example
    -------
    >>> import torch
    >>> p = torch.tensor([0.1, 0.2, 0.3, 0.4], dtype=torch.float64)
    >>> q = DiPmarkReweight(0.45).reweight(p, torch.tensor([2, 0, 3, 1]))
    >>> round(float(q.sum()), 12), bool((q >= 0).all())
    (1.0, True)
    """

    def __init__(self, alpha: float = 0.45) -> None:
        check_float("alpha", alpha, 0.0, 0.5)
        self.alpha = float(alpha)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(alpha={self.alpha})"

    def reweight(self, probs: torch.Tensor, perm: torch.Tensor) -> torch.Tensor:
        """Reweight `probs` (.., V) along the permutation `perm` (.., V); the sum over V stays 1."""
        if not isinstance(probs, torch.Tensor) or not isinstance(perm, torch.Tensor):
            raise TypeError("probs and perm must be torch tensors")
        check_tensor("probs", probs, floating=True)
        if probs.dim() not in (1, 2) or probs.shape[-1] < 2:
            raise ValueError(
                f"probs must have shape (V,) or (batch, V) with V >= 2, got {tuple(probs.shape)}"
            )
        if perm.shape[-1] != probs.shape[-1]:
            raise ValueError(
                f"perm length {perm.shape[-1]} does not match the vocabulary size of probs, {probs.shape[-1]}"
            )
        perm = perm.to(probs.device).long().expand_as(probs)
        permuted = probs.gather(-1, perm)  # P in pi order
        cdf = permuted.cumsum(-1)
        cdf = cdf / cdf[..., -1:]  # exact F_V = 1 despite rounding
        g = dipmark_cdf(cdf, self.alpha)
        new = torch.diff(g, dim=-1, prepend=torch.zeros_like(g[..., :1])).clamp_min(0.0)
        return torch.zeros_like(probs).scatter(-1, perm, new)


class GammaReweight(DiPmarkReweight):
    """The gamma-reweight (DiPmark with alpha = 1/2): G(F) = max(2F - 1, 0)."""

    def __init__(self) -> None:
        super().__init__(0.5)

    def __repr__(self) -> str:
        return "GammaReweight()"
