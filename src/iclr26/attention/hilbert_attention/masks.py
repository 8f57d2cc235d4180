"""Token-level local-attention masks in a given token order, their tile statistics and a block-sparse executor.

Four mask kinds (``local_mask(order, kind, size)``), each a (N, N) bool matrix over sequence positions; ``order``
is the (N, 2) map position -> (y, x) of the sequence (``rowmajor_order`` or ``gilbert_order``):

- ``"window"`` (alias ``"rowmajor_window"``): Swin windows, keys in the same ``size x size`` square of the grid as
  the query (``shift`` = the Swin cyclic shift; wrapped regions are kept apart, as Swin's region mask does);
- ``"neighborhood"`` (alias ``"rowmajor_neighborhood"``): 2D neighbourhood attention, the ``size x size`` keys
  around the query, clamped inside the grid at its borders (NATTEN semantics, ``size`` odd);
- ``"group"`` (alias ``"hilbert_window"``): contiguous groups of ``size`` sequence positions (Hilbert windows;
  ``shift`` = the 1D roll of the shifted layer, the wrapped tokens forming their own group);
- ``"slide"`` (alias ``"hilbert_slide"``): 1D neighbourhood, the ``size`` positions nearest to the query along the
  sequence, clamped at the ends (NATTEN-1D semantics, ``size`` odd).

The first two depend on grid coordinates and are meant for the raster order; the last two depend only on sequence
positions and are meant for the Hilbert order. :func:`block_stats` counts empty / full / partial tiles (the
numbers FlexAttention's ``BlockMask`` stores) and :class:`BlockSparseAttention` runs attention on the non-empty
tiles only. Both wrap :mod:`iclr26.lab.flex`.

Example
-------
>>> from iclr26.attention.hilbert_attention.curve import gilbert_order, rowmajor_order
>>> block_stats(local_mask(rowmajor_order(64, 64), "window", 8), 128)
{'empty': 896, 'full': 0, 'partial': 128}
>>> block_stats(local_mask(gilbert_order(64, 64), "hilbert_window", 64), 128)
{'empty': 992, 'full': 0, 'partial': 32}
"""

from __future__ import annotations

import torch
from torch import Tensor

from iclr26.checks import check_choice, check_int, check_tensor
from iclr26.lab import flex

__all__ = ["KINDS", "BlockSparseAttention", "block_sparsity", "block_stats", "local_mask"]

KINDS = {
    "window": "window",
    "rowmajor_window": "window",
    "neighborhood": "neighborhood",
    "rowmajor_neighborhood": "neighborhood",
    "group": "group",
    "hilbert_window": "group",
    "slide": "slide",
    "hilbert_slide": "slide",
}


def _check_order(order: Tensor) -> Tensor:
    if (
        not isinstance(order, Tensor)
        or order.ndim != 2
        or order.shape[1] != 2
        or order.dtype.is_floating_point
    ):
        raise ValueError(
            f"order must be an integer (N, 2) tensor of (y, x) cells, got {getattr(order, 'shape', order)}"
        )
    if order.numel() == 0 or bool((order < 0).any()):
        raise ValueError(
            f"order must hold at least one (y, x) cell, all >= 0, got shape {tuple(order.shape)}"
        )
    return order.long().cpu()


def _window_groups(coord: Tensor, size: int, shift: int) -> Tensor:
    # Swin: roll by -shift, then size-wide windows; a cell lands in window floor((c - shift) / size), and the
    # cells that wrapped around (c < shift) form a separate region (index -1), as Swin's region mask makes them.
    return torch.div(coord - shift, size, rounding_mode="floor")


def _clamped_start(pos: Tensor, size: int, length: int) -> Tensor:
    return (pos - size // 2).clamp(min=0, max=max(length - size, 0))


def local_mask(order: Tensor, kind: str, size: int, *, shift: int = 0) -> Tensor:
    """The (N, N) bool mask ``mask[i, j]`` = "query at sequence position i may attend to key j".

    Parameters
    ----------
    order : (N, 2) integer tensor of (y, x) grid cells in sequence order.
    kind : ``"window"``, ``"neighborhood"``, ``"group"`` or ``"slide"`` (or the aliases ``"rowmajor_window"``,
        ``"rowmajor_neighborhood"``, ``"hilbert_window"``, ``"hilbert_slide"``); see the module docstring.
    size : window side (``window``), kernel side (``neighborhood``, odd), tokens per group (``group``), or
        kernel tokens (``slide``, odd).
    shift : cyclic shift of shifted-window layers (``window``: grid cells, ``group``: sequence positions).
    """
    order = _check_order(order)
    check_choice("kind", kind, KINDS)
    check_int("size", size, low=1)
    check_int(f"shift (< size = {size})", shift, low=0, high=size - 1)
    base = KINDS[kind]
    n = order.shape[0]
    y, x = order[:, 0], order[:, 1]
    if base == "window":
        gy, gx = _window_groups(y, size, shift), _window_groups(x, size, shift)
        return (gy[:, None] == gy[None, :]) & (gx[:, None] == gx[None, :])
    if base == "group":
        pos = torch.arange(n)
        g = torch.div(pos + shift, size, rounding_mode="floor")
        g[pos >= n - shift] = -1  # tokens that wrapped around in the 1D roll attend only to each other
        return g[:, None] == g[None, :]
    if size % 2 == 0:
        raise ValueError(f"size (kernel) must be odd for kind {kind!r}, got {size}")
    if shift:
        raise ValueError(f"shift is only defined for window kinds, got shift={shift} for kind {kind!r}")
    if base == "neighborhood":
        H, W = int(y.max()) + 1, int(x.max()) + 1
        if size > min(H, W):
            raise ValueError(f"size (kernel) must be <= the grid side min(H, W) = {min(H, W)}, got {size}")
        sy, sx = _clamped_start(y, size, H), _clamped_start(x, size, W)
        iny = (y[None, :] >= sy[:, None]) & (y[None, :] < sy[:, None] + size)
        inx = (x[None, :] >= sx[:, None]) & (x[None, :] < sx[:, None] + size)
        return iny & inx
    if size > n:
        raise ValueError(f"size (kernel tokens) must be <= the sequence length N = {n}, got {size}")
    pos = torch.arange(n)
    s = _clamped_start(pos, size, n)
    return (pos[None, :] >= s[:, None]) & (pos[None, :] < s[:, None] + size)


def _check_mask(mask: Tensor) -> None:
    if not isinstance(mask, Tensor) or mask.ndim != 2 or mask.dtype != torch.bool:
        raise ValueError(f"mask must be a 2-D bool tensor, got {getattr(mask, 'dtype', type(mask))}")
    if mask.numel() == 0:
        raise ValueError(f"mask must not be empty, got shape {tuple(mask.shape)}")


def block_stats(mask: Tensor, block: int = 128) -> dict[str, int]:
    """Tile counts ``{"empty", "full", "partial"}`` of a (Tq, Tk) bool mask cut into ``block x block`` tiles.

    A thin adapter over :func:`iclr26.lab.flex.block_stats`; ragged edge tiles count over their valid part, as in
    FlexAttention's ``create_block_mask``.
    """
    _check_mask(mask)
    check_int("block size", block, low=1)
    s = flex.block_stats(mask, block_size=block)
    return {"empty": s.n_empty, "full": s.n_full, "partial": s.n_partial}


def block_sparsity(mask: Tensor, block: int = 128) -> float:
    """Percentage of empty tiles, the number ``create_block_mask(...).sparsity()`` reports."""
    s = block_stats(mask, block)
    return 100.0 * s["empty"] / (s["empty"] + s["full"] + s["partial"])


class BlockSparseAttention:
    """Attention restricted to a fixed (N, N) mask that computes only its non-empty ``block x block`` tiles.

    On CPU tensors it runs :func:`iclr26.lab.flex.block_sparse_attention` on a tile plan built once
    (:func:`iclr26.lab.flex.block_plan`): ``method="gather"`` (default) batches the query blocks that have the same
    number of non-empty tiles and runs one SDPA call per batch over their gathered keys (the partial tiles
    masked); ``"loop"`` is the one-block-at-a-time reference; ``"flex"`` is compiled FlexAttention with the
    equivalent ``BlockMask`` (about 25 s to compile per shape on a CPU). On CUDA tensors it calls FlexAttention.
    After a CPU call, ``flops`` and ``dense_flops`` hold the work of the non-empty tiles and of dense attention;
    ``stats`` holds the tile counts.

    Example
    -------
    >>> from iclr26.attention.hilbert_attention.curve import gilbert_order
    >>> ex = BlockSparseAttention(local_mask(gilbert_order(8, 8), "hilbert_window", 16), block=16)
    >>> q = torch.randn(1, 2, 64, 4)
    >>> out = ex(q, q, q)
    >>> ex.stats, ex.flops / ex.dense_flops
    ({'empty': 12, 'full': 4, 'partial': 0}, 0.25)
    """

    def __init__(self, mask: Tensor, block: int = 128, method: str = "gather") -> None:
        _check_mask(mask)
        check_int("block size", block, low=1)
        if mask.shape[0] != mask.shape[1]:
            raise ValueError(f"mask must be square (N, N), got {tuple(mask.shape)}")
        check_choice("method", method, ("gather", "loop", "flex"))
        self.mask = mask.cpu()
        self.block = block
        self.method = method
        self.plan = flex.block_plan(self.mask, block_size=block)
        self.stats = block_stats(self.mask, block)
        self.flops: int | None = None
        self.dense_flops: int | None = None

    def __call__(self, q: Tensor, k: Tensor, v: Tensor, score_mod: flex.ScoreMod | None = None) -> Tensor:
        """Masked attention over (B, heads, N, d) tensors; equals dense masked attention."""
        for name, t in (("q", q), ("k", k), ("v", v)):
            if not isinstance(t, Tensor) or t.ndim != 4 or t.shape[2] != self.mask.shape[0]:
                raise ValueError(
                    f"{name} must be a 4-D tensor (batch, heads, N={self.mask.shape[0]}, dim), "
                    f"got {getattr(t, 'shape', type(t))}"
                )
            check_tensor(name, t, floating=True)
        if k.shape[:2] != q.shape[:2] or k.shape[3] != q.shape[3] or v.shape[:2] != q.shape[:2]:
            raise ValueError(
                f"k must be (batch, heads, N, dim) = {tuple(q.shape)} like q and v (batch, heads, N, d_v), "
                f"got k {tuple(k.shape)} and v {tuple(v.shape)}"
            )
        if q.is_cuda:
            return flex.attention(
                q, k, v, score_mod=score_mod, mask_mod=flex.from_dense(self.mask), backend="flex"
            )
        res = flex.block_sparse_attention(q, k, v, self.plan, score_mod=score_mod, method=self.method)
        self.flops, self.dense_flops = res.flops, res.dense_flops
        return res.out
