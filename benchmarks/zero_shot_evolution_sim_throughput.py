"""Benchmark: body-steps per second of the batched 2-D voxel mass-spring simulator vs a per-body loop.

The batched form (:class:`~iclr26.decision.zero_shot_evolution.MassSpring2D`) advances every body of a batch with
one set of tensor ops per step; the loop form runs the same simulator on one body at a time (batch 1), which is
what a per-body simulator without batching pays. Both roll out random bodies under a width-64 controller, with
and without autograd (a pretraining step: forward + backward; an evaluation: forward under no_grad). Process time
on one thread is reported (the machine is shared, so ratios are more telling than seconds).

Run: ``python benchmarks/zero_shot_evolution_sim_throughput.py [--batch 16 128 512] [--steps 50]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from iclr26.decision.zero_shot_evolution import (
    MassSpring2D,
    NoveltyArchive,
    UniversalController,
    random_bodies,
)


def _rate(sim, ctrl, bodies, lights, steps, grad: bool, per_body: bool) -> float:
    t0 = time.process_time()
    chunks = (
        [(bodies[i : i + 1], lights[i : i + 1]) for i in range(len(bodies))]
        if per_body
        else [(bodies, lights)]
    )
    for b, lit in chunks:
        if grad:
            sim.rollout(b, ctrl, lit, steps).mean().backward()
        else:
            with torch.no_grad():
                sim.rollout(b, ctrl, lit, steps)
    return len(bodies) * steps / (time.process_time() - t0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, nargs="+", default=[16, 128, 512])
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--loop-bodies", type=int, default=16, help="bodies timed in the per-body loop")
    args = parser.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    sim = MassSpring2D(dt=0.008, k=3_750.0)
    ctrl = UniversalController(sim.n_masses, sim.n_springs, (64, 64, 64))
    pool = random_bodies(max(args.batch), rng, NoveltyArchive())
    lights = torch.as_tensor(rng.uniform(-2, 2, len(pool)), dtype=torch.float32)
    print(f"{'mode':<10} {'batch':>6} {'batched body-steps/s':>22} {'per-body loop':>15} {'speed-up':>9}")
    for grad in (False, True):
        mode = "train" if grad else "evaluate"
        n_loop = args.loop_bodies
        loop = _rate(sim, ctrl, pool[:n_loop], lights[:n_loop], args.steps, grad, per_body=True)
        for b in args.batch:
            fast = _rate(sim, ctrl, pool[:b], lights[:b], args.steps, grad, per_body=False)
            print(f"{mode:<10} {b:>6} {fast:>22,.0f} {loop:>15,.0f} {fast / loop:>8.1f}x")


if __name__ == "__main__":
    main()
