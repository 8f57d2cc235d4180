"""Hilbert vs raster local attention on a 64x64 token grid, against what a user would run instead (not a test).

For each pair (8x8 raster windows vs 64-token Hilbert groups; 7x7 2D neighbourhood vs 49-token Hilbert slide) on
the same random (1, heads, 4096, dim) inputs, side by side in one run, repeats interleaved:

* ``sdpa``: ``torch.nn.functional.scaled_dot_product_attention`` with the (4096, 4096) bool mask (dense masked);
* ``flex``: torch's FlexAttention, ``torch.compile``-d, with ``create_block_mask`` of the same mask at 128-blocks
  (block masks built once, outside the timing; the first call compiles, ~25 s on a CPU);
* ``ours``: :class:`BlockSparseAttention` (``lab.flex.block_sparse_attention``, method ``"gather"``): the query
  blocks with the same number of non-empty tiles batched into one SDPA call over their gathered keys, at block 128
  (the same tiles as ``flex``) and at smaller blocks (``--blocks``), tile plans built once.

Ratios: SDPA time / ours and compiled-Flex time / ours (the goals of issue 29: >= 8x SDPA on the window mask,
>= 0.8x compiled Flex on both), and the paper's own claim, conventional / Hilbert with the same kernel (compiled
Flex at 128-blocks; the paper's 4x / 18x are GPU FlexAttention numbers). Every output is checked against SDPA.

    python benchmarks/hilbert_attention_block_sparse.py [--small] [--json PATH] [--grid 64] [--heads 4]
        [--dim 32] [--threads 2] [--repeats 7] [--blocks 128 64 32]
"""

from __future__ import annotations

import argparse
import warnings

import torch
from _bench import interleaved, median, row, write_result

from iclr26.attention.hilbert_attention import BlockSparseAttention
from iclr26.attention.hilbert_attention.structure import pair_masks
from iclr26.lab import flex
from iclr26.lab.threads import limited_threads

PAPER = {"window": "4x", "slide": "18x"}
SIZES = {"window": 8, "slide": 7}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grid", type=int, default=64)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--dim", type=int, default=32)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--blocks", type=int, nargs="+", default=[128, 64, 32])
    parser.add_argument("--no-flex", action="store_true", help="skip compiled FlexAttention (no compiler)")
    parser.add_argument("--small", action="store_true", help="make bench setting: 5 repeats")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    if args.small:
        args.repeats = 5
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention

    n = args.grid * args.grid
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, args.heads, n, args.dim, generator=g) for _ in range(3))
    rows, raw, notes = [], {}, []
    with limited_threads(args.threads), warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        compiled = torch.compile(flex_attention, dynamic=False)
        for pair in ("window", "slide"):
            rm, hb = pair_masks(args.grid, pair, SIZES[pair])
            fns, ref = {}, {}
            for name, m in (("raster", rm), ("hilbert", hb)):
                dense_m = m[None, None]
                fns[f"sdpa_{name}"] = lambda dm=dense_m: torch.nn.functional.scaled_dot_product_attention(
                    q, k, v, attn_mask=dm
                )
                if not args.no_flex:
                    bm = create_block_mask(flex.from_dense(m), None, None, n, n, device="cpu", BLOCK_SIZE=128)
                    fns[f"flex_{name}"] = lambda bm=bm: compiled(q, k, v, block_mask=bm)
                for block in args.blocks:
                    ex = BlockSparseAttention(m, block)
                    fns[f"ours{block}_{name}"] = lambda ex=ex: ex(q, k, v)
                ref[name] = fns[f"sdpa_{name}"]()
            diffs = {key: float((fn() - ref[key.split("_")[-1]]).abs().max()) for key, fn in fns.items()}
            if max(diffs.values()) > 1e-5:
                raise AssertionError(f"outputs differ from SDPA: {diffs}")
            times = interleaved(fns, args.repeats)
            med = {key: median(ts) for key, ts in times.items()}
            raw[pair] = {"median_ms": {key: 1e3 * t for key, t in med.items()}, "max_abs_diff": diffs}
            best = min(args.blocks, key=lambda bl: med[f"ours{bl}_hilbert"])
            for block in sorted({128, best} & set(args.blocks)):
                ours = med[f"ours{block}_hilbert"]
                label = f"BlockSparseAttention gather, block {block}"
                rows.append(
                    row(
                        "hilbert-attention",
                        f"Hilbert {pair} mask, {args.grid}^2 tokens",
                        label,
                        "SDPA dense masked",
                        med["sdpa_hilbert"] / ours,
                    )
                )
                if not args.no_flex:
                    rows.append(
                        row(
                            "hilbert-attention",
                            f"Hilbert {pair} mask, {args.grid}^2 tokens",
                            label,
                            "compiled FlexAttention, block 128",
                            med["flex_hilbert"] / ours,
                        )
                    )
            if not args.no_flex:
                rows.append(
                    row(
                        "hilbert-attention",
                        f"claim: {pair} raster / Hilbert, same kernel",
                        "Hilbert mask",
                        "raster mask (compiled FlexAttention, block 128)",
                        med["flex_raster"] / med["flex_hilbert"],
                        paper_value=f"{PAPER[pair]} (GPU)",
                    )
                )
            rows.append(
                row(
                    "hilbert-attention",
                    f"{pair} raster / Hilbert, our executor",
                    f"Hilbert mask, block {best}",
                    f"raster mask, block {best}",
                    med[f"ours{best}_raster"] / med[f"ours{best}_hilbert"],
                    paper_value=f"{PAPER[pair]} (GPU)",
                )
            )
            print(f"{pair}: " + "  ".join(f"{key} {1e3 * t:.1f} ms" for key, t in med.items()), flush=True)
    notes.append("FlexAttention has no backward on the CPU (torch 2.13); the gather executor has one.")
    for r in rows:
        print(f"{r['what']:45s} {r['ours']:38s} vs {r['baseline']:45s} {r['ratio']:7.2f}x")
    write_result(
        args.json,
        {
            "script": "hilbert_attention_block_sparse.py",
            "title": "Block-sparse Hilbert attention vs SDPA and compiled FlexAttention",
            "device": "cpu",
            "settings": {k_: v_ for k_, v_ in vars(args).items() if k_ != "json"},
            "rows": rows,
            "raw": raw,
            "notes": notes,
        },
    )


if __name__ == "__main__":
    main()
