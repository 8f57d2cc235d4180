"""The isoclinic rotation of ASIDE (Zverev et al., ICLR 2026, arXiv 2503.10566), Section 3.

R is block-diagonal with 2x2 blocks ``[[cos a, -sin a], [sin a, cos a]]`` on the dimension pairs (0, 1), (2, 3), ...
Data-token embeddings are multiplied as row vectors, ``e R`` (the official code's default "right" direction); for
a = pi/2 this maps ``(x_2k, x_2k+1) -> (x_2k+1, -x_2k)``. ``direction="left"`` gives ``R e`` (the paper's
column-vector convention), the inverse rotation ``(x_2k, x_2k+1) -> (-x_2k+1, x_2k)``.
"""

from __future__ import annotations

import math

import torch

from iclr26.checks import check_bool, check_choice, check_float, check_int, check_tensor

__all__ = ["DIRECTIONS", "IsoclinicRotation", "isoclinic_rotation_matrix"]

DIRECTIONS = ("right", "left")


def isoclinic_rotation_matrix(
    d: int, alpha: float = math.pi / 2, *, strict: bool = True, dtype: torch.dtype = torch.float32
) -> torch.Tensor:
    """The (d, d) isoclinic rotation by ``alpha`` on the pairs (0,1), (2,3), ...

    With an odd ``d`` and ``strict=False`` the last dimension is left unchanged (the official docstring's stated
    intent); ``strict=True`` refuses odd ``d``.

    >>> isoclinic_rotation_matrix(4).round().tolist()
    [[0.0, -1.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, -1.0], [0.0, 0.0, 1.0, 0.0]]
    """
    d = check_int("d", d, low=1)
    alpha = check_float("alpha", alpha)
    check_bool("strict", strict)
    if d % 2 and strict:
        raise ValueError(f"d must be even for an isoclinic rotation with strict=True, got d={d}")
    c, s = math.cos(alpha), math.sin(alpha)
    if abs(c) < 1e-15:  # exact zeros at pi/2 (cos(pi/2) is 6e-17 in floating point)
        c = 0.0
    m = torch.eye(d, dtype=torch.float64)
    for k in range(0, d - 1, 2):
        m[k, k], m[k, k + 1] = c, -s
        m[k + 1, k], m[k + 1, k + 1] = s, c
    return m.to(dtype)


class IsoclinicRotation:
    """The fixed (not learned) ASIDE rotation of embedding width ``d``.

    Parameters
    ----------
    d : int
        Embedding width (even, unless ``strict=False``: then the last dimension is not rotated).
    alpha : float
        Rotation angle; the paper's pi/2.
    direction : {"right", "left"}
        ``x @ R`` (official default) or ``x @ R.T`` (= ``R x`` for a column vector).
    strict : bool

    Example
    -------
    >>> rot = IsoclinicRotation(4)
    >>> x = torch.tensor([[[1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0]]])
    >>> rot.apply(x, torch.tensor([[0, 1]])).tolist()
    [[[1.0, 2.0, 3.0, 4.0], [2.0, -1.0, 4.0, -3.0]]]
    """

    def __init__(
        self, d: int, alpha: float = math.pi / 2, direction: str = "right", strict: bool = True
    ) -> None:
        self.direction = check_choice("direction", direction, DIRECTIONS)
        self.alpha = check_float("alpha", alpha)
        self._m = isoclinic_rotation_matrix(d, alpha, strict=strict)
        self.d = int(d)

    @property
    def matrix(self) -> torch.Tensor:
        """The matrix M with ``rotated = x @ M`` (R for "right", R^T for "left"), float32."""
        return self._m if self.direction == "right" else self._m.T.contiguous()

    def rotate(self, x: torch.Tensor) -> torch.Tensor:
        """Rotate every row of ``x`` (..., d), computed in float32 and cast back to ``x.dtype``."""
        check_tensor("x", x, floating=True)
        if x.shape[-1] != self.d:
            raise ValueError(f"x must have last dimension d={self.d}, got shape {tuple(x.shape)}")
        m = self.matrix.to(device=x.device)
        return (x.float() @ m).to(x.dtype)

    def apply(self, x: torch.Tensor, segment_ids: torch.Tensor) -> torch.Tensor:
        """``x`` (batch, seq, d) with the rows where ``segment_ids == 1`` rotated; role-0 rows are untouched."""
        check_tensor("x", x, ndim=3, floating=True)
        check_segment_ids(segment_ids, tuple(x.shape[:2]))
        mask = (segment_ids == 1).unsqueeze(-1)
        return torch.where(mask, self.rotate(x), x)


def check_segment_ids(
    segment_ids: torch.Tensor, shape: tuple[int, ...], name: str = "segment_ids"
) -> torch.Tensor:
    """An integer tensor of the given shape holding only roles 0 (instruction) and 1 (data)."""
    if not isinstance(segment_ids, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor of 0/1 roles, got {type(segment_ids).__name__}")
    if tuple(segment_ids.shape) != tuple(shape):
        raise ValueError(
            f"{name} must have the shape of input_ids {tuple(shape)}, got shape {tuple(segment_ids.shape)}"
        )
    if segment_ids.is_floating_point() or segment_ids.is_complex():
        raise ValueError(f"{name} must be an integer or bool tensor of roles, got dtype {segment_ids.dtype}")
    if segment_ids.numel() and not bool(((segment_ids == 0) | (segment_ids == 1)).all()):
        bad = sorted({int(v) for v in segment_ids.unique().tolist()} - {0, 1})
        raise ValueError(f"{name} must hold only roles 0 (instruction) and 1 (data), got values {bad}")
    return segment_ids
