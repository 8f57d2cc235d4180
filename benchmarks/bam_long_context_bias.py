"""Benchmark: BAM's GGD bias (and BAM-SSMax attention) at 32x the training length, chunked vs unchunked.

The chunked form evaluates the prior one (chunk x T) block of queries at a time (keys beyond the block are
skipped, as the attention is causal) and never holds the (T x T) bias; the unchunked form builds the whole
(1, H, T, T) bias. Each case runs in a fresh subprocess so that its peak resident memory (``ru_maxrss``) is its
own; the table reports the peak above a baseline process that only built the inputs, the wall time, and the
ratios (the machine is shared, so ratios are more telling than seconds).

Run: ``python benchmarks/bam_long_context_bias.py [--train-len 64 512] [--chunk 512]``.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

import torch

from iclr26.attention.bam import GGDPrior, bias_attention

H, D = 4, 16
MAX_DENSE_BYTES = 2.5e9  # skip the unchunked form when its (H, T, T) bias alone would exceed this


def _case(kind: str, length: int, chunk: int) -> dict:
    torch.set_num_threads(1)
    prior = GGDPrior(H, init_scale="alibi", init_shape="linspace")
    gen = torch.Generator().manual_seed(0)
    q, k, v = (
        (torch.randn(1, H, length, D, generator=gen) for _ in range(3))
        if kind.startswith("attn")
        else (None,) * 3
    )
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.perf_counter()
    with torch.no_grad():
        if kind == "bias-full":
            checksum = float(prior(torch.arange(length), torch.arange(length)).tril().sum())
        elif kind == "bias-chunked":
            checksum = 0.0
            for a in range(0, length, chunk):
                e = min(length, a + chunk)
                block = prior(torch.arange(a, e), torch.arange(e))  # (1, H, chunk, e): one block at a time
                checksum += float(block.tril(a).sum())
        elif kind == "attn-full":
            checksum = float(bias_attention(q, k, v, prior, ssmax_scale=1.0).sum())
        else:
            checksum = float(bias_attention(q, k, v, prior, ssmax_scale=1.0, chunk_size=chunk).sum())
    seconds = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"seconds": seconds, "peak_mb": (peak - base) / 1024, "checksum": checksum}


def _spawn(kind: str, length: int, chunk: int) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--case", kind, str(length), str(chunk)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train-len", type=int, nargs="+", default=[64, 512])
    parser.add_argument("--chunk", type=int, default=512)
    parser.add_argument(
        "--attn-max-len", type=int, default=4096, help="longest length for the attention rows"
    )
    parser.add_argument("--case", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case:
        print(json.dumps(_case(args.case[0], int(args.case[1]), int(args.case[2]))))
        return
    print(f"H={H} heads, d_head={D}, float32, one thread, chunk={args.chunk}")
    print(
        f"{'what':<6} {'T':>6} {'form':<8} {'seconds':>8} {'peak MB':>8} {'block MB':>8}  ratio full/chunked"
    )
    for train_len in args.train_len:
        length = 32 * train_len
        for what in ("bias", "attn"):
            if what == "attn" and length > args.attn_max_len:
                continue
            rows = {}
            for form in ("chunked", "full"):
                block = H * length * (args.chunk if form == "chunked" else length) * 4 / 1e6
                if form == "full" and block * 1e6 > MAX_DENSE_BYTES:
                    print(
                        f"{what:<6} {length:>6} {form:<8} {'skipped: bias alone would be':>17} {block:.0f} MB"
                    )
                    continue
                rows[form] = r = _spawn(f"{what}-{form}", length, args.chunk)
                print(f"{what:<6} {length:>6} {form:<8} {r['seconds']:8.2f} {r['peak_mb']:8.0f} {block:8.0f}")
            if len(rows) == 2:
                f, c = rows["full"], rows["chunked"]
                agree = abs(f["checksum"] - c["checksum"]) <= 1e-4 * max(1.0, abs(f["checksum"]))
                print(
                    f"{'':<6} {length:>6} ratio    time {f['seconds'] / c['seconds']:.2f}x, peak memory "
                    f"{f['peak_mb'] / max(c['peak_mb'], 1e-9):.1f}x, results agree: {agree}"
                )


if __name__ == "__main__":
    main()
