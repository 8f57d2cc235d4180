"""MeanCache: network evaluations and wall time vs plain Euler at matched quality (not a test).

Trains the digits rectified-flow MLP (CFG w = 2) once, takes 50-step shifted Euler as the reference, and for each
budget B runs MeanCache (PSSP gamma = 2 + JVP, steps 0-2 and 49 forced). Plain Euler at matched quality is the
smallest number of Euler steps whose PSNR vs the reference reaches MeanCache's. Wall time is the median over
repeats of one sampling call on the batch (model evaluation plus the sampler's own overhead).

With ``--json``, two ratios per budget go to ``benchmarks/RESULTS.md``: the claim's (50-step Euler wall time /
MeanCache's, beside the paper's 4.12x on FLUX.1-dev) and the one against what a user would do instead without
MeanCache (plain Euler with the fewest steps reaching MeanCache's PSNR).

    python benchmarks/meancache_speedup.py [--samples 256] [--repeats 5] [--train-steps 1500] [--small] [--json PATH]
"""

import argparse
import time

import numpy as np
import torch
from _bench import row, write_result

from iclr26.inference.meancache import (
    MeanCacheSampler,
    estimate_edge_costs,
    euler_sample,
    force_compute,
    pssp_schedule,
)
from iclr26.inference.meancache.models import FlowTrainConfig, cfg_velocity, digits_data, psnr, train_flow
from iclr26.inference.meancache.sampler import shifted_sigmas

K_VALUES = (1, 2, 3, 4, 5, 6)


def median_s(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=256)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--train-steps", type=int, default=1500)
    ap.add_argument(
        "--small", action="store_true", help="make bench setting: 128 samples, 3 repeats, 600 steps"
    )
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    if args.small:
        args.samples, args.repeats, args.train_steps = 128, 3, 600
    rows = []
    torch.set_num_threads(1)
    x, y, _, _ = digits_data(0)
    vel = cfg_velocity(train_flow(x, y, 10, FlowTrainConfig(steps=args.train_steps), 1))
    sig = shifted_sigmas(50)
    gen = torch.Generator().manual_seed(7)
    zc, z0 = torch.randn(64, 64, generator=gen), torch.randn(args.samples, 64, generator=gen)
    yc, yy = torch.arange(64) % 10, torch.arange(args.samples) % 10
    cost = force_compute(estimate_edge_costs(vel, sig, zc, K_VALUES, yc), (0, 1, 2, 49))
    ref, _ = euler_sample(vel, sig, z0, yy)
    t_ref = median_s(lambda: euler_sample(vel, sig, z0, yy), args.repeats)
    euler_psnr = {
        n: float(psnr(euler_sample(vel, shifted_sigmas(n), z0, yy)[0], ref).mean()) for n in range(4, 50)
    }
    print(f"reference: 50-step Euler, {t_ref * 1e3:.1f} ms per batch of {args.samples}")
    print(
        f"{'B':>3} {'NFE':>4} {'PSNR dB':>8} {'ms':>7} {'x NFE':>6} {'x wall':>7} | {'Euler n':>7} {'ms':>7}"
    )
    for b in (25, 17, 12, 10):
        steps, k = pssp_schedule(cost, b, 2.0, K_values=K_VALUES)
        s = MeanCacheSampler(vel, sig, [i in steps for i in range(50)], [max(v, 1) for v in k])
        z, nfe = s.sample(z0, yy)
        p = float(psnr(z, ref).mean())
        t = median_s(lambda s=s: s.sample(z0, yy), args.repeats)
        n_match = next((n for n in sorted(euler_psnr) if euler_psnr[n] >= p), 50)
        t_e = median_s(lambda n=n_match: euler_sample(vel, shifted_sigmas(n), z0, yy), args.repeats)
        print(
            f"{b:>3} {nfe:>4} {p:>8.2f} {t * 1e3:>7.1f} {50 / nfe:>6.2f} {t_ref / t:>7.2f} | {n_match:>7} {t_e * 1e3:>7.1f}"
        )
        rows.append(
            row(
                "meancache",
                f"budget {b} ({nfe} NFE, PSNR {p:.1f} dB): wall time",
                "MeanCache",
                "50-step Euler (the claim's reference)",
                t_ref / t,
                paper_value="4.12x (FLUX.1-dev)",
            )
        )
        rows.append(
            row(
                "meancache",
                f"budget {b}: wall time at matched PSNR",
                "MeanCache",
                f"plain Euler, {n_match} steps (same PSNR)",
                t_e / t,
            )
        )
    write_result(
        args.json,
        {
            "script": "meancache_speedup.py",
            "title": "MeanCache vs Euler sampling on the digits flow",
            "device": "cpu",
            "settings": {k_: v_ for k_, v_ in vars(args).items() if k_ != "json"},
            "rows": rows,
        },
    )


if __name__ == "__main__":
    main()
