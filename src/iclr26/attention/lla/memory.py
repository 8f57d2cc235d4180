"""Analytic working-memory model of the materialised and blockwise LLA evaluations (elements per batch x head)."""

from __future__ import annotations

__all__ = ["largest_intermediate"]


def largest_intermediate(t: int, d: int, block_size: int | None, solver: str = "cholesky") -> int:
    """Elements of the largest intermediate tensor of one (batch, head) slice of ``local_linear_attention``.

    Materialised: the (T, T) weights or the (T, d, d) covariances. Blockwise: a (B, B) tile or a (B, d * d)
    second-moment tile (Cholesky; CG keeps only (B, d) vectors); the (T, d_v) output is not counted.
    """
    if block_size is None:
        return max(t * t, t * d * d)
    b = min(block_size, t)
    return max(b * b, b * d * d) if solver == "cholesky" else max(b * b, b * d)
