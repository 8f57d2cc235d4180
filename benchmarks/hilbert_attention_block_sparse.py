"""Hilbert vs raster local attention on a 64x64 token grid: empty tiles and CPU block-sparse executor time.

For each pair (8x8 raster windows vs 64-token Hilbert groups; 7x7 2D neighbourhood vs 49-token Hilbert slide) the
script builds both (4096, 4096) masks, reports the empty / full / partial tile counts at block 128, then times, side
by side in one run on the same inputs, the block-sparse executor (``BlockSparseAttention``: only non-empty tiles
are computed) with each mask and dense masked attention (``iclr26.lab.flex.attention`` with the Hilbert mask), and
checks that the executor's output equals the dense one. Times are medians of ``--repeats`` interleaved runs.

    python benchmarks/hilbert_attention_block_sparse.py [--grid 64] [--block 128] [--heads 4] [--dim 32]
        [--threads 2] [--repeats 5]
"""

import argparse
import time

import torch

from iclr26.attention.hilbert_attention import BlockSparseAttention, block_stats
from iclr26.attention.hilbert_attention.structure import pair_masks
from iclr26.lab import flex
from iclr26.lab.threads import limited_threads


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grid", type=int, default=64)
    parser.add_argument("--block", type=int, default=128)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--dim", type=int, default=32)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    n = args.grid * args.grid
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, args.heads, n, args.dim, generator=g) for _ in range(3))
    with limited_threads(args.threads):
        for pair, size in (("window", 8), ("slide", 7)):
            rm, hb = pair_masks(args.grid, pair, size)
            for name, m in (("raster", rm), ("hilbert", hb)):
                s = block_stats(m, args.block)
                print(f"{pair:6s} {name:7s} tiles {s}  empty {100 * s['empty'] / sum(s.values()):.3f}%")
            ex = {
                "raster": BlockSparseAttention(rm, args.block),
                "hilbert": BlockSparseAttention(hb, args.block),
            }
            mods = {"raster": flex.from_dense(rm), "hilbert": flex.from_dense(hb)}
            times: dict[str, list[float]] = {
                key: [] for key in ("exec_raster", "exec_hilbert", "dense_raster", "dense_hilbert")
            }
            outs = {}
            for _ in range(args.repeats):  # interleaved, so load changes hit every method alike
                for name in ("raster", "hilbert"):
                    t0 = time.perf_counter()
                    outs[f"exec_{name}"] = ex[name](q, k, v)
                    times[f"exec_{name}"].append(time.perf_counter() - t0)
                    t0 = time.perf_counter()
                    outs[f"dense_{name}"] = flex.attention(q, k, v, mask_mod=mods[name], backend="dense")
                    times[f"dense_{name}"].append(time.perf_counter() - t0)
            med = {key: sorted(ts)[len(ts) // 2] for key, ts in times.items()}
            for name in ("raster", "hilbert"):
                diff = (outs[f"exec_{name}"] - outs[f"dense_{name}"]).abs().max().item()
                print(
                    f"{pair:6s} {name:7s} executor {med[f'exec_{name}'] * 1e3:8.1f} ms  dense {med[f'dense_{name}'] * 1e3:8.1f} ms"
                    f"  dense/executor {med[f'dense_{name}'] / med[f'exec_{name}']:5.2f}x  flops {ex[name].flops / ex[name].dense_flops:.4f} of dense"
                    f"  max|exec - dense| {diff:.2e}"
                )
            print(
                f"{pair:6s} raster executor / hilbert executor = {med['exec_raster'] / med['exec_hilbert']:.2f}x; "
                f"dense / hilbert executor = {med['dense_hilbert'] / med['exec_hilbert']:.2f}x"
            )


if __name__ == "__main__":
    main()
