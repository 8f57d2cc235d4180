"""Benchmark: BAM's GGD bias (and BAM-SSMax attention) at 32x the training length, chunked vs unchunked.

The chunked form evaluates the prior one (chunk x T) block of queries at a time (keys beyond the block are
skipped, as the attention is causal) and never holds the (T x T) bias; the unchunked form builds the whole
(1, H, T, T) bias. Each case runs in a fresh subprocess so that its peak resident memory (``ru_maxrss``) is its
own; the table reports the peak above a baseline process that only built the inputs, the wall time, and the
ratios (the machine is shared, so ratios are more telling than seconds).

The user's alternative for BAM-SSMax attention is torch's ``scaled_dot_product_attention`` with the whole prior
as a float ``attn_mask`` (the (1, H, T, T) bias times SSMax's ``s log n`` per query, the causal triangle -inf, the
queries scaled by ``s log n``): with ``--json`` its time and peak memory over the chunked form's go to
``benchmarks/RESULTS.md``. ``--small``: training length 64 (T = 2048), chunk 256, the forms interleaved over
2 repeats (median time, largest peak).

Run: ``python benchmarks/bam_long_context_bias.py [--train-len 64 512] [--chunk 512] [--repeats 1] [--small]
[--json PATH]``.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

import torch
import torch.nn.functional as F
from _bench import median, row, write_result

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
        elif kind == "attn-sdpa":  # the user's alternative: SDPA with the whole scaled prior as attn_mask
            pos = torch.arange(length)
            c = torch.log(pos + 1.0).view(1, 1, length, 1)  # SSMax, s = 1: logits * s log(i + 1)
            mask = (prior(pos, pos) * c).masked_fill(pos[None, :] > pos[:, None], float("-inf"))
            checksum = float(F.scaled_dot_product_attention(q * c, k, v, attn_mask=mask).sum())
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
    parser.add_argument("--repeats", type=int, default=1, help="runs of each form, interleaved")
    parser.add_argument(
        "--small", action="store_true", help="make bench: train length 64, chunk 256, 2 repeats"
    )
    parser.add_argument("--json", default=None)
    parser.add_argument("--case", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.small:
        args.train_len, args.chunk, args.repeats = [64], 256, 2
    if args.case:
        print(json.dumps(_case(args.case[0], int(args.case[1]), int(args.case[2]))))
        return
    print(f"H={H} heads, d_head={D}, float32, one thread, chunk={args.chunk}")
    print(
        f"{'what':<6} {'T':>6} {'form':<8} {'seconds':>8} {'peak MB':>8} {'block MB':>8}  ratio full/chunked"
    )
    out_rows = []
    for train_len in args.train_len:
        length = 32 * train_len
        for what in ("bias", "attn"):
            if what == "attn" and length > args.attn_max_len:
                continue
            rows = {}
            forms = ("chunked", "full", "sdpa") if what == "attn" else ("chunked", "full")
            for form in forms:
                block = H * length * (args.chunk if form == "chunked" else length) * 4 / 1e6
                if form != "chunked" and block * 1e6 > MAX_DENSE_BYTES:
                    print(
                        f"{what:<6} {length:>6} {form:<8} {'skipped: bias alone would be':>17} {block:.0f} MB"
                    )
                    continue
                rows[form] = None
            runs: dict[str, list[dict]] = {form: [] for form in rows}
            for i in range(args.repeats):  # interleaved, the order alternating
                for form in list(rows) if i % 2 == 0 else list(reversed(rows)):
                    runs[form].append(_spawn(f"{what}-{form}", length, args.chunk))
            for form in list(rows):
                rs = runs[form]
                rows[form] = r = {
                    "seconds": median([x["seconds"] for x in rs]),
                    "peak_mb": max(x["peak_mb"] for x in rs),
                    "checksum": rs[0]["checksum"],
                }
                block = H * length * (args.chunk if form == "chunked" else length) * 4 / 1e6
                print(f"{what:<6} {length:>6} {form:<8} {r['seconds']:8.2f} {r['peak_mb']:8.0f} {block:8.0f}")
            if "full" in rows and "chunked" in rows:
                f, c = rows["full"], rows["chunked"]
                agree = abs(f["checksum"] - c["checksum"]) <= 1e-4 * max(1.0, abs(f["checksum"]))
                print(
                    f"{'':<6} {length:>6} ratio    time {f['seconds'] / c['seconds']:.2f}x, peak memory "
                    f"{f['peak_mb'] / max(c['peak_mb'], 1e-9):.1f}x, results agree: {agree}"
                )
            if "sdpa" in rows and "chunked" in rows:
                u, c = rows["sdpa"], rows["chunked"]
                agree = abs(u["checksum"] - c["checksum"]) <= 1e-4 * max(1.0, abs(u["checksum"]))
                for metric, key in (("time", "seconds"), ("peak memory", "peak_mb")):
                    out_rows.append(
                        row(
                            "bam",
                            f"GGD prior + SSMax attention, T {length} (32x train), {metric} (agree: {agree})",
                            f"bias_attention, chunk {args.chunk}",
                            "SDPA, whole prior as attn_mask",
                            u[key] / max(c[key], 1e-9),
                        )
                    )
    write_result(
        args.json,
        {
            "script": "bam_long_context_bias.py",
            "title": "BAM prior attention, chunked vs SDPA with the whole bias",
            "device": "cpu",
            "settings": {k: v for k, v in vars(args).items() if k not in ("json", "case")},
            "rows": out_rows,
            "notes": ["BAM: each form runs in its own subprocess, one thread; peak memory above the inputs."],
        },
    )


if __name__ == "__main__":
    main()
