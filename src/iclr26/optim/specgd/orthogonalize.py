"""The polar factor ``U V^T`` of a gradient matrix, exactly (SVD) or approximately (Newton-Schulz).

For ``G = U S V^T`` (compact SVD) SpecGD steps along ``U V^T``: every singular direction of the gradient moves
at the same rate, whatever its singular value. :func:`orthogonalize_svd` computes it exactly, dropping singular
values at or below ``rtol * s_max`` (so a zero gradient gives a zero direction and a rank-r gradient an exactly
rank-r direction). :func:`orthogonalize_ns` is Muon's quintic Newton-Schulz iteration, the cheap approximation
that maps every singular value into roughly ``[0.68, 1.13]`` after five steps.

Example
-------
>>> import torch
>>> g = torch.diag(torch.tensor([3.0, 0.5], dtype=torch.float64))
>>> orthogonalize_svd(g)
tensor([[1., 0.],
        [0., 1.]], dtype=torch.float64)
"""

from __future__ import annotations

import torch

from iclr26.checks import check_float, check_int, check_tensor

__all__ = ["MUON_NS5_COEFFICIENTS", "orthogonalize_ns", "orthogonalize_svd"]

# Muon's quintic iteration X <- a X + b (X X^T) X + c (X X^T)^2 X
MUON_NS5_COEFFICIENTS: tuple[float, float, float] = (3.4445, -4.7750, 2.0315)


def _check_matrix(g: torch.Tensor, name: str = "g") -> None:
    if not isinstance(g, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(g).__name__}")
    if g.ndim != 2:
        raise ValueError(f"{name} must be a 2-D matrix, got shape {tuple(g.shape)}")
    if g.is_complex():
        raise ValueError(f"{name} must be real; complex matrices are not supported")
    if not g.is_floating_point():
        raise TypeError(f"{name} must be a floating-point matrix, got {g.dtype}")


def _work_dtype(dtype: torch.dtype) -> torch.dtype:
    """float64 stays float64; everything else is computed in float32 (SVD has no bf16/fp16 kernel)."""
    return torch.float64 if dtype == torch.float64 else torch.float32


def orthogonalize_svd(g: torch.Tensor, rtol: float = 1e-7) -> torch.Tensor:
    """``U V^T`` of the compact SVD of `g`, keeping singular values ``s > rtol * s_max``.

    Parameters
    ----------
    g : (m, n) real matrix.
    rtol : relative cut-off in (0, 1); singular values at or below ``rtol * max(s)`` are dropped.

    Returns
    -------
    (m, n) matrix in `g`'s dtype whose nonzero singular values are all 1.
    """
    _check_matrix(g)
    # the SVD of a non-finite matrix is undefined (LAPACK fails to converge)
    check_tensor("g", g, finite=True)
    check_float("rtol", rtol, 0.0, 1.0, low_open=True, high_open=True)
    work = g.to(_work_dtype(g.dtype))
    u, s, vh = torch.linalg.svd(work, full_matrices=False)
    keep = (s > rtol * s.max()).to(work.dtype)  # a zero gradient keeps nothing
    return ((u * keep) @ vh).to(g.dtype)


def orthogonalize_ns(
    g: torch.Tensor,
    steps: int = 5,
    coefficients: tuple[float, float, float] = MUON_NS5_COEFFICIENTS,
    eps: float = 1e-7,
) -> torch.Tensor:
    """Muon's Newton-Schulz approximation of ``U V^T`` (``steps`` quintic iterations from ``G / ||G||_F``).

    The iteration runs on the short side (``X X^T`` is ``min(m, n)`` square) in float32 (float64 inputs stay
    float64) and returns `g`'s dtype.
    """
    _check_matrix(g)
    check_int("steps", steps, low=1)
    a, b, c = coefficients
    x = g.to(_work_dtype(g.dtype))
    tall = x.shape[0] > x.shape[1]
    if tall:
        x = x.T
    x = x / (torch.linalg.matrix_norm(x) + eps)  # spectral norm <= 1 so the iteration converges
    for _ in range(steps):
        gram = x @ x.T
        x = a * x + (b * gram + c * gram @ gram) @ x
    if tall:
        x = x.T
    return x.to(g.dtype)
