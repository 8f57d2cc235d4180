"""Fisale's error measures (after the official ``model/loss.py``).

Paper: "Fisale: Neural Latent Arbitrary Lagrangian-Eulerian Grids for Fluid-Solid Interaction" (ICLR 2026, arXiv
2603.00792).
"""

from __future__ import annotations

import torch

from iclr26.checks import check_tensor

__all__ = ["per_channel_relative_l1", "relative_l2"]


def _pair(pred: torch.Tensor, target: torch.Tensor) -> None:
    check_tensor("pred", pred, floating=True)
    check_tensor("target", target, floating=True)
    if pred.shape != target.shape or pred.ndim < 2:
        raise ValueError(
            f"pred and target must have the same shape (B, ...), got {tuple(pred.shape)} and {tuple(target.shape)}"
        )


def relative_l2(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """The training loss: per sample ||pred - target||_2 / ||target||_2 over all points and channels (flattened),
    averaged over the batch."""
    _pair(pred, target)
    b = pred.shape[0]
    return ((pred - target).reshape(b, -1).norm(dim=-1) / target.reshape(b, -1).norm(dim=-1)).mean()


def per_channel_relative_l1(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """The official test metric on (B, N, C): per sample and channel sum_n |pred - target| / sum_n |target|,
    averaged over channels and samples."""
    _pair(pred, target)
    if pred.ndim != 3:
        raise ValueError(f"pred must be (B, N, C), got shape {tuple(pred.shape)}")
    return ((pred - target).abs().sum(-2) / target.abs().sum(-2)).mean()
