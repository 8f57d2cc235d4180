"""Benchmark: body-steps per second of the batched 2-D voxel mass-spring simulator vs torch.vmap and a per-body loop.

Ours (:class:`~iclr26.decision.zero_shot_evolution.MassSpring2D`) advances every body of a batch with one set of
tensor ops per step. No library simulator of these voxel bodies is installed, so the alternatives are what a user
would write without the batched simulator: ``torch.vmap`` over a one-body rollout (the same simulator's step,
sensors and controller on a batch of 1, the body masks computed inside the timed call as ours does), and a Python
loop running the simulator on one body at a time (timed on ``--loop-bodies`` bodies, its rate then compared).
All roll out random bodies under a width-64 controller, with and without autograd (a pretraining step: forward +
backward; an evaluation: forward under no_grad). The losses of the three forms are compared (max |difference|).

Wall time, one thread, interleaved (each repeat runs the three in turn), median; ratio = our body-steps per
second / the alternative's, i.e. its time per body-step / ours (> 1: ours is faster).

    python benchmarks/zero_shot_evolution_sim_throughput.py [--batch 16 128 512] [--steps 50] [--loop-bodies 16]
        [--repeats 3] [--small] [--json PATH]
"""

from __future__ import annotations

import argparse

import numpy as np
import torch
from _bench import interleaved, median, row, write_result

from iclr26.decision.zero_shot_evolution import (
    MassSpring2D,
    NoveltyArchive,
    UniversalController,
    random_bodies,
)


def vmap_rollout(sim: MassSpring2D, ctrl, steps: int):
    """``(bodies, lights) -> loss (B,)``: torch.vmap over a one-body rollout built from the simulator's parts."""
    m = sim.n_masses

    def one(mw: torch.Tensor, sw: torch.Tensor, light: torch.Tensor) -> torch.Tensor:
        mw, sw, light = mw[None], sw[None], light[None]
        x = sim.rest_x[None]
        p = torch.cat([x[..., 0], x[..., 1]], 1)
        vel = torch.zeros_like(p)
        w = mw[..., None]
        com0 = (x * w).sum(1) / w.sum(1)
        for t in range(steps):
            p, vel = sim.step(p, vel, ctrl(sim.sensors(p, mw, light, t)), mw, sw)
        com1 = (torch.stack([p[:, :m], p[:, m:]], -1) * w).sum(1) / w.sum(1)
        return ((com1[:, 0] - light).abs() / ((com0[:, 0] - light).abs() + sim.eps))[0]

    batched_one = torch.vmap(one)

    def rollout(bodies, lights: torch.Tensor) -> torch.Tensor:
        mm, sm = sim.masks(bodies)
        return batched_one(mm.to(sim.dtype), sm.to(sim.dtype), lights)

    return rollout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, nargs="+", default=[16, 128, 512])
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--loop-bodies", type=int, default=16, help="bodies timed in the per-body loop")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--small", action="store_true", help="make bench setting: batch 16 and 128, 10 steps, 4 loop bodies"
    )
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    if args.small:
        args.batch, args.steps, args.loop_bodies = [16, 128], 10, 4
    torch.set_num_threads(1)
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    sim = MassSpring2D(dt=0.008, k=3_750.0)
    ctrl = UniversalController(sim.n_masses, sim.n_springs, (64, 64, 64))
    pool = random_bodies(max(args.batch), rng, NoveltyArchive())
    lights = torch.as_tensor(rng.uniform(-2, 2, len(pool)), dtype=torch.float32)
    vm = vmap_rollout(sim, ctrl, args.steps)

    def ours(b, lit):
        return sim.rollout(b, ctrl, lit, args.steps)

    def loop(b, lit):
        return torch.cat([sim.rollout(b[i : i + 1], ctrl, lit[i : i + 1], args.steps) for i in range(len(b))])

    with torch.no_grad():
        n = min(max(args.batch), 32)
        ref = ours(pool[:n], lights[:n])
        diff_vmap = float((vm(pool[:n], lights[:n]) - ref).abs().max())
        diff_loop = float((loop(pool[:n], lights[:n]) - ref).abs().max())
    print(f"max |loss difference| vs ours on {n} bodies: vmap {diff_vmap:.1e}, per-body loop {diff_loop:.1e}")
    print(f"body-steps per second, {args.steps} steps, 1 thread")
    print(
        f"{'mode':<10} {'batch':>6} {'ours':>10} {'vmap':>10} {'loop':>10} {'vmap/ours':>10} {'loop/ours':>10}"
    )
    rows = []
    for grad in (False, True):
        mode = "train" if grad else "evaluate"

        def timed(fn, b, lit, grad=grad):
            def go():
                if grad:
                    fn(b, lit).mean().backward()
                else:
                    with torch.no_grad():
                        fn(b, lit)

            return go

        n_loop = args.loop_bodies
        for b in args.batch:
            t = interleaved(
                {
                    "ours": timed(ours, pool[:b], lights[:b]),
                    "vmap": timed(vm, pool[:b], lights[:b]),
                    "loop": timed(loop, pool[:n_loop], lights[:n_loop]),
                },
                args.repeats,
            )
            rate = {
                k: (b if k != "loop" else n_loop) * args.steps / median(v) for k, v in t.items()
            }  # body-steps per second
            r_vmap, r_loop = rate["ours"] / rate["vmap"], rate["ours"] / rate["loop"]
            print(
                f"{mode:<10} {b:>6} {rate['ours']:>10,.0f} {rate['vmap']:>10,.0f} {rate['loop']:>10,.0f} "
                f"{r_vmap:>10.2f} {r_loop:>10.2f}"
            )
            what = f"mass-spring rollout, {mode} ({'forward + backward' if grad else 'no_grad'}), {b} bodies"
            rows.append(
                row(
                    "zero-shot-evolution",
                    what,
                    "MassSpring2D, batched",
                    "torch.vmap over a one-body rollout",
                    r_vmap,
                )
            )
            rows.append(
                row(
                    "zero-shot-evolution",
                    what,
                    "MassSpring2D, batched",
                    f"one body at a time, a Python loop (rate on {n_loop} bodies)",
                    r_loop,
                )
            )
    write_result(
        args.json,
        {
            "script": "zero_shot_evolution_sim_throughput.py",
            "title": "Batched voxel mass-spring simulator vs torch.vmap and a per-body loop",
            "device": "cpu",
            "settings": {k: v for k, v in vars(args).items() if k != "json"},
            "rows": rows,
            "notes": [
                f"Mass-spring losses vs the batched simulator on {n} bodies: vmap max |diff| {diff_vmap:.1e}, "
                f"per-body loop {diff_loop:.1e}."
            ],
        },
    )


if __name__ == "__main__":
    main()
