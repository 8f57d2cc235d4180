"""Input validation shared by every sequence mixer."""

from __future__ import annotations

from torch import Tensor

__all__ = ["check_features", "check_sequence_input"]


def check_features(x: Tensor, d_model: int, name: str = "x") -> None:
    """Raise unless ``x`` is a floating (..., d_model) tensor: the check of the position-wise layers (the FFNs, a
    block's norms), which map over any leading axes."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(x).__name__}")
    if not x.is_floating_point():
        raise TypeError(f"{name} must be a floating-point tensor, got {x.dtype}")
    if x.ndim < 1 or x.shape[-1] != d_model:
        raise ValueError(f"{name} must have shape (..., d_model={d_model}), got {tuple(x.shape)}")


def check_sequence_input(x: Tensor, d_model: int, name: str = "x", *, finite: bool = False) -> None:
    """Raise ValueError unless ``x`` is a floating (batch, seq, d_model) tensor with seq >= 1.

    Every sequence mixer calls this first, so a wrong shape fails with a message naming the argument instead of
    an einsum error deep inside. ``finite=True`` (the mixers whose core validates gates computed from ``x``, which a
    NaN would break with a message about the gate) also refuses NaN and infinite values.
    """
    if not isinstance(x, Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(x).__name__}")
    if x.ndim != 3 or x.shape[-1] != d_model or x.shape[1] < 1:
        raise ValueError(f"{name} must have shape (batch, seq>=1, d_model={d_model}), got {tuple(x.shape)}")
    if not x.is_floating_point():
        raise ValueError(f"{name} must be a floating-point tensor, got {x.dtype}")
    if finite and not bool(x.isfinite().all()):
        raise ValueError(f"{name} must be finite, but holds NaN or infinite values")
