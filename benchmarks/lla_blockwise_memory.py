"""Blockwise (FlashLLA-style, two-pass) vs materialised local linear attention at T = 2048: memory and time.

Forward pass (inference, no autograd), float32, B = 1, H = 2, d = d_v = 16, causal, exp-dot kernel, scaled
ridge lam = 1. Variants: materialised (T x T weights and T x d x d covariances), blockwise with Cholesky
(tile 128), blockwise with matrix-free CG (tile 128). Same run, identical inputs; reported per variant:

- wall time (best of ``--repeats``) and the ratio to the materialised form;
- peak extra memory in three ways: (1) the analytic size of the largest intermediate
  (``iclr26.attention.lla.memory.largest_intermediate``), (2) the peak of the torch CPU allocator's
  "Total Allocated" counter in a ``torch.profiler`` trace (``profile_memory=True``) minus its value before the
  call, (3) the peak RSS above the pre-call RSS (psutil, sampled every 0.5 ms by a thread) in a fresh subprocess
  that runs only that variant (sampling and allocator caching make this the coarsest of the three);
- the largest absolute difference of the output from the materialised form.

No library runs LLA on a CPU (the official kernels are Triton), so the ratio reported to ``benchmarks/RESULTS.md``
(``--json``) is the one the paper's claim is about: materialised / blockwise peak memory (and time).

    python benchmarks/lla_blockwise_memory.py [--length 2048] [--block 128] [--repeats 2] [--small] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil
import torch
from _bench import row, write_result

from iclr26.attention.lla import local_linear_attention
from iclr26.attention.lla.memory import largest_intermediate

VARIANTS = {
    "materialised": (None, "cholesky"),
    "blockwise-cholesky": ("block", "cholesky"),
    "blockwise-cg": ("block", "cg"),
}
B, H, D = 1, 2, 16


def inputs(t: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    gen = torch.Generator().manual_seed(0)
    return tuple(torch.randn(B, H, t, D, generator=gen) for _ in range(3))


def call(variant: str, q, k, v, block: int) -> torch.Tensor:
    size, solver = VARIANTS[variant]
    with torch.no_grad():
        return local_linear_attention(
            q, k, v, lam=1.0, solver=solver, block_size=None if size is None else block, cg_tol=1e-6
        )


def profiler_peak_bytes(variant: str, q, k, v, block: int) -> float:
    """Peak of the allocator's 'Total Allocated' during the call, minus its value at the start."""
    with torch.profiler.profile(
        activities=[torch.profiler.ProfilerActivity.CPU], profile_memory=True
    ) as prof:
        call(variant, q, k, v, block)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "trace.json"
        prof.export_chrome_trace(str(path))
        events = json.loads(path.read_text())["traceEvents"]
    totals = [e["args"]["Total Allocated"] for e in events if e.get("name") == "[memory]"]
    return float(max(totals) - totals[0] + 0) if totals else float("nan")


def rss_child(variant: str, t: int, block: int) -> None:
    """Peak RSS above the pre-call RSS, sampled every 0.5 ms by a psutil thread while the call runs."""
    q, k, v = inputs(t)
    call("blockwise-cg", q[..., :8, :], k[..., :8, :], v[..., :8, :], 4)  # warm up the code paths
    proc = psutil.Process()
    before = proc.memory_info().rss
    peak = [before]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], proc.memory_info().rss)
            time.sleep(0.0005)

    thread = threading.Thread(target=sample)
    thread.start()
    call(variant, q, k, v, block)
    done.set()
    thread.join()
    print(json.dumps({"rss_delta_mb": (max(peak[0], proc.memory_info().rss) - before) / 2**20}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--length", type=int, default=2048)
    parser.add_argument("--block", type=int, default=128)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--rss-child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--small", action="store_true", help="make bench setting: T = 1024, one repeat")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    if args.small:
        args.length, args.repeats = 1024, 1
    torch.set_num_threads(1)
    if args.rss_child:
        rss_child(args.rss_child, args.length, args.block)
        return
    t = args.length
    q, k, v = inputs(t)
    print(f"torch {torch.__version__}, threads 1, T={t}, B={B}, H={H}, d={D}, tile={args.block}, float32")
    ref = call("materialised", q, k, v, args.block)
    rows = {}
    for name, (size, solver) in VARIANTS.items():
        times = []
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            out = call(name, q, k, v, args.block)
            times.append(time.perf_counter() - t0)
        elems = largest_intermediate(t, D, None if size is None else args.block, solver) * B * H
        child = subprocess.run(
            [sys.executable, __file__, "--rss-child", name, "--length", str(t), "--block", str(args.block)],
            capture_output=True,
            text=True,
            check=True,
        )
        rows[name] = {
            "time_s": min(times),
            "largest_mb": elems * 4 / 2**20,
            "profiler_peak_mb": profiler_peak_bytes(name, q, k, v, args.block) / 2**20,
            "rss_delta_mb": json.loads(child.stdout.strip().splitlines()[-1])["rss_delta_mb"],
            "max_abs_diff": float((out - ref).abs().max()),
        }
    base = rows["materialised"]
    print(
        f"{'variant':>20} {'time s':>8} {'x mat.':>7} {'largest MB':>11} {'prof. peak MB':>14} "
        f"{'x mat.':>7} {'RSS delta MB':>13} {'max |diff|':>11}"
    )
    for name, r in rows.items():
        print(
            f"{name:>20} {r['time_s']:>8.3f} {r['time_s'] / base['time_s']:>7.2f} {r['largest_mb']:>11.3f} "
            f"{r['profiler_peak_mb']:>14.2f} {r['profiler_peak_mb'] / base['profiler_peak_mb']:>7.3f} "
            f"{r['rss_delta_mb']:>13.1f} {r['max_abs_diff']:>11.2e}"
        )
    out_rows = []
    for name, r in rows.items():
        if name == "materialised":
            continue
        what = f"{name}, T = {t}"
        out_rows.append(
            row(
                "lla",
                f"{what}: peak memory (profiler)",
                name,
                "materialised LLA",
                base["profiler_peak_mb"] / r["profiler_peak_mb"],
                paper_value="O(nd + B_k d) vs O(n^2)",
            )
        )
        out_rows.append(row("lla", f"{what}: time", name, "materialised LLA", base["time_s"] / r["time_s"]))
    write_result(
        args.json,
        {
            "script": "lla_blockwise_memory.py",
            "title": "Blockwise vs materialised local linear attention",
            "device": "cpu",
            "settings": {k_: v_ for k_, v_ in vars(args).items() if k_ not in ("json", "rss_child")},
            "rows": out_rows,
            "raw": rows,
        },
    )


if __name__ == "__main__":
    main()
