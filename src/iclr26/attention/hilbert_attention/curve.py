"""The generalized Hilbert curve ("gilbert2d") and the reordering of image tokens along it.

For any H x W grid the generalized Hilbert curve gives a bijection pi: {0..HW-1} -> (y, x). The recursion splits
the longer side of the current rectangle in half (keeping the halves' lengths even where possible, so each
sub-curve can end next to the start of the next one) and recurses into two or three sub-rectangles. Consecutive
points are 4-neighbours; for some odd sizes one diagonal step is unavoidable. On power-of-2 squares it is the
classic Hilbert curve, so every aligned 2^j x 2^j square is visited contiguously.

Example
-------
>>> order = gilbert_order(4, 4)
>>> order[:4].tolist()
[[0, 0], [0, 1], [1, 1], [1, 0]]
>>> x = torch.arange(16.0).view(1, 4, 4, 1)
>>> bool(torch.equal(from_curve(to_curve(x), 4, 4), x))
True
"""

from __future__ import annotations

from functools import lru_cache

import torch
from torch import Tensor

from iclr26.checks import check_int, check_tensor

__all__ = ["curve_index", "from_curve", "gilbert_order", "rowmajor_order", "to_curve"]


def _check_grid(H: int, W: int) -> None:
    check_int("H", H, low=1)
    check_int("W", W, low=1)


def _sgn(v: int) -> int:
    return (v > 0) - (v < 0)


def _generate(x: int, y: int, ax: int, ay: int, bx: int, by: int, out: list[tuple[int, int]]) -> None:
    """Append the curve over the rectangle spanned by major axis (ax, ay) and minor axis (bx, by) from (x, y)."""
    w, h = abs(ax + ay), abs(bx + by)
    dax, day, dbx, dby = _sgn(ax), _sgn(ay), _sgn(bx), _sgn(by)
    if h == 1:  # a single row along the major axis
        out.extend((x + i * dax, y + i * day) for i in range(w))
        return
    if w == 1:  # a single column along the minor axis
        out.extend((x + i * dbx, y + i * dby) for i in range(h))
        return
    ax2, ay2, bx2, by2 = ax // 2, ay // 2, bx // 2, by // 2
    w2, h2 = abs(ax2 + ay2), abs(bx2 + by2)
    if 2 * w > 3 * h:  # long rectangle: split the major axis in two, both halves keep the orientation
        if w2 % 2 and w > 2:  # prefer an even first half
            ax2, ay2 = ax2 + dax, ay2 + day
        _generate(x, y, ax2, ay2, bx, by, out)
        _generate(x + ax2, y + ay2, ax - ax2, ay - ay2, bx, by, out)
        return
    if h2 % 2 and h > 2:  # standard case: halve the minor axis (evenly if possible), three sub-curves
        bx2, by2 = bx2 + dbx, by2 + dby
    _generate(x, y, bx2, by2, ax2, ay2, out)  # up
    _generate(x + bx2, y + by2, ax, ay, bx - bx2, by - by2, out)  # across
    _generate(  # down
        x + (ax - dax) + (bx2 - dbx), y + (ay - day) + (by2 - dby), -bx2, -by2, -(ax - ax2), -(ay - ay2), out
    )


@lru_cache(maxsize=64)
def _gilbert(H: int, W: int) -> Tensor:
    pts: list[tuple[int, int]] = []
    if W >= H:
        _generate(0, 0, W, 0, 0, H, pts)
    else:
        _generate(0, 0, 0, H, W, 0, pts)
    return torch.tensor([(y, x) for x, y in pts], dtype=torch.long).view(H * W, 2)


def gilbert_order(H: int, W: int) -> Tensor:
    """Curve position -> grid cell: a (H*W, 2) LongTensor of (y, x), the generalized Hilbert curve (cached)."""
    _check_grid(H, W)
    return _gilbert(H, W).clone()


def rowmajor_order(H: int, W: int) -> Tensor:
    """The raster order as a (H*W, 2) LongTensor of (y, x): position p is cell (p // W, p % W)."""
    _check_grid(H, W)
    p = torch.arange(H * W)
    return torch.stack([p // W, p % W], dim=1)


def curve_index(order: Tensor, H: int, W: int) -> Tensor:
    """The inverse map: a (H, W) LongTensor holding each cell's position in ``order``."""
    _check_grid(H, W)
    if not isinstance(order, Tensor) or order.shape != (H * W, 2):
        raise ValueError(
            f"order must be a ({H * W}, 2) tensor for H={H}, W={W}, got {getattr(order, 'shape', order)}"
        )
    check_tensor("order", order, floating=False)
    y, x = order[:, 0], order[:, 1]
    if not (bool(((y >= 0) & (y < H)).all()) and bool(((x >= 0) & (x < W)).all())):
        raise ValueError(f"order must hold (y, x) cells inside the {H}x{W} grid (0 <= y < H, 0 <= x < W)")
    inv = torch.full((H, W), -1, dtype=torch.long)
    inv[order[:, 0], order[:, 1]] = torch.arange(H * W)
    if bool((inv < 0).any()):
        raise ValueError("order must visit every cell of the grid exactly once")
    return inv


def to_curve(x: Tensor) -> Tensor:
    """Reorder image tokens (B, H, W, C) into the Hilbert sequence (B, H*W, C): ``x_seq[:, t] = x[:, pi(t)]``."""
    if not isinstance(x, Tensor) or x.ndim != 4:
        raise ValueError(
            f"x must be a 4-D tensor (batch, H, W, channels), got {getattr(x, 'shape', type(x))}"
        )
    order = _gilbert_checked(x.shape[1], x.shape[2]).to(x.device)
    return x[:, order[:, 0], order[:, 1]]


def from_curve(x_seq: Tensor, H: int, W: int) -> Tensor:
    """Scatter a Hilbert sequence (B, H*W, C) back onto the grid (B, H, W, C); the inverse of :func:`to_curve`."""
    _check_grid(H, W)
    if not isinstance(x_seq, Tensor) or x_seq.ndim != 3:
        raise ValueError(
            f"x_seq must be a 3-D tensor (batch, seq, channels), got {getattr(x_seq, 'shape', x_seq)}"
        )
    if x_seq.shape[1] != H * W:
        raise ValueError(f"H*W must equal the sequence length N: H*W = {H * W}, N = {x_seq.shape[1]}")
    order = _gilbert(H, W).to(x_seq.device)
    out = x_seq.new_empty(x_seq.shape[0], H, W, x_seq.shape[2])
    out[:, order[:, 0], order[:, 1]] = x_seq
    return out


def _gilbert_checked(H: int, W: int) -> Tensor:
    _check_grid(int(H), int(W))
    return _gilbert(int(H), int(W))
