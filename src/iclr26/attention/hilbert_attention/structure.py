"""The structural study: tile occupancy of raster-order vs Hilbert-order local masks, and executor timings.

For a square grid of G x G tokens and a block size, each pair compares a conventional mask in raster order with its
Hilbert counterpart of the same size:

- ``window``: ``ws x ws`` windows (raster) vs groups of ``ws^2`` tokens along the curve;
- ``slide``: ``k x k`` 2D neighbourhood (raster) vs the 1D neighbourhood of ``k^2`` tokens along the curve.

:func:`tile_table` gives the empty / full / partial counts; :func:`executor_times` times the CPU block-sparse
executor and dense masked attention on the same inputs; :func:`flex_speedups` times FlexAttention on a GPU.
"""

from __future__ import annotations

import time
from functools import lru_cache

import torch

from iclr26.attention.hilbert_attention.curve import gilbert_order, rowmajor_order
from iclr26.attention.hilbert_attention.masks import BlockSparseAttention, block_stats, local_mask
from iclr26.lab import flex

__all__ = ["executor_times", "flex_speedups", "pair_masks", "tile_table"]


@lru_cache(maxsize=64)
def pair_masks(grid: int, pair: str, size: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(raster mask, Hilbert mask) of one pair on a ``grid x grid`` token grid."""
    ro, go = rowmajor_order(grid, grid), gilbert_order(grid, grid)
    if pair == "window":
        return local_mask(ro, "window", size), local_mask(go, "group", size * size)
    if pair == "slide":
        return local_mask(ro, "neighborhood", size), local_mask(go, "slide", size * size)
    raise ValueError(f"pair must be 'window' or 'slide', got {pair!r}")


@lru_cache(maxsize=16)
def _tiles(grid: int, pair: str, size: int, block: int) -> tuple[dict[str, int], dict[str, int]]:
    rm, hb = pair_masks(grid, pair, size)
    return block_stats(rm, block), block_stats(hb, block)


def tile_table(
    grids: tuple[int, ...], blocks: tuple[int, ...], windows: tuple[int, ...], kernels: tuple[int, ...]
) -> list[dict]:
    """One row per (grid, block, pair, size): the raster and Hilbert tile counts."""
    rows = []
    for grid in grids:
        for block in blocks:
            for pair, sizes in (("window", windows), ("slide", kernels)):
                for size in sizes:
                    rm, hb = _tiles(grid, pair, size, block)
                    rows.append(
                        {
                            "grid": grid,
                            "block": block,
                            "pair": pair,
                            "size": size,
                            "rowmajor": rm,
                            "hilbert": hb,
                        }
                    )
    return rows


def _median_time(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return sorted(times)[len(times) // 2]


def executor_times(
    grid: int,
    pair: str,
    size: int,
    block: int = 128,
    heads: int = 2,
    dim: int = 32,
    repeats: int = 3,
    seed: int = 0,
) -> dict[str, float]:
    """Median CPU seconds of the block-sparse executor (raster and Hilbert masks) and of dense masked attention.

    All three run side by side on the same random (1, heads, N, dim) inputs; ``max_abs_diff`` is the largest
    difference between the executor's and the dense output (Hilbert mask).
    """
    rm, hb = pair_masks(grid, pair, size)
    g = torch.Generator().manual_seed(seed)
    q, k, v = (torch.randn(1, heads, grid * grid, dim, generator=g) for _ in range(3))
    ex_rm, ex_hb = BlockSparseAttention(rm, block), BlockSparseAttention(hb, block)
    mod = flex.from_dense(hb)
    out = {
        "rowmajor_s": _median_time(lambda: ex_rm(q, k, v), repeats),
        "hilbert_s": _median_time(lambda: ex_hb(q, k, v), repeats),
        "dense_s": _median_time(lambda: flex.attention(q, k, v, mask_mod=mod, backend="dense"), repeats),
    }
    out["max_abs_diff"] = float(
        (ex_hb(q, k, v) - flex.attention(q, k, v, mask_mod=mod, backend="dense")).abs().max()
    )
    out["rowmajor_flops"], out["hilbert_flops"] = float(ex_rm.flops), float(ex_hb.flops)
    return out


def flex_speedups(
    grid: int = 64, block: int = 128, heads: int = 4, dim: int = 32, repeats: int = 100
) -> dict[str, float]:
    """GPU only: median FlexAttention time, conventional mask / Hilbert mask, for the window and slide pairs.

    The conventional kernels run FlexAttention with the raster-order masks (the same kernel, so the ratio isolates
    the tile structure); timed with CUDA events after a compile warm-up.
    """
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention

    dev = torch.device("cuda")
    q, k, v = (torch.randn(1, heads, grid * grid, dim, device=dev, dtype=torch.float16) for _ in range(3))
    fa = torch.compile(flex_attention)
    res = {}
    for pair, size in (("window", 8), ("slide", 7)):
        ts = []
        for mask in pair_masks(grid, pair, size):
            bm = create_block_mask(
                flex.from_dense(mask.to(dev)),
                None,
                None,
                grid * grid,
                grid * grid,
                device=dev,
                BLOCK_SIZE=block,
            )
            for _ in range(5):
                fa(q, k, v, block_mask=bm)
            times = []
            for _ in range(repeats):
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                fa(q, k, v, block_mask=bm)
                end.record()
                torch.cuda.synchronize()
                times.append(start.elapsed_time(end))
            ts.append(sorted(times)[len(times) // 2])
        res[f"gpu_speedup_{pair}"] = ts[0] / ts[1]
    return res
