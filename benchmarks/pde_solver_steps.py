"""Benchmark: steps per second of the lab's PDE solvers, batched vs one trajectory at a time.

For the finite-difference acoustic wave solver (shots as the batch), the pseudo-spectral Navier-Stokes solver
and the immersed-boundary coupling of :mod:`iclr26.lab.pde`, the batched form advances ``B`` trajectories with one set of tensor ops per step; the loop form runs the same solver on one trajectory at a time, which is what an unbatched solver pays. Reported: trajectory-steps
per second of process time on one thread, and the ratio (the machine may be shared; the ratio is more telling).

Run: ``python benchmarks/pde_solver_steps.py [--batch 1 8 32] [--n 64] [--steps 20]``.
"""

from __future__ import annotations

import argparse
import math
import time

import torch

from iclr26.lab.pde.immersed_boundary import IBSimulator
from iclr26.lab.pde.navier_stokes import NavierStokes2D, gaussian_random_field, kolmogorov_forcing
from iclr26.lab.pde.wave import leapfrog


def _timed(fn) -> float:
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


def acoustic_wave(batch: int, n: int, steps: int) -> tuple[float, float]:
    """Damped leapfrog on an n x n grid (v dt / dx = 0.2, a sponge ring), each shot starting from its own pulse."""
    dx, dt = 10.0, 0.001
    v = torch.full((n, n), 2000.0, dtype=torch.float64)
    edge = torch.minimum(torch.arange(n), torch.arange(n).flip(0)).double()
    ramp = (1 - (edge / 8).clamp(max=1.0)) ** 2
    damping_dt = 30.0 * dt * (ramp[:, None] + ramp[None, :])
    u1 = torch.randn(batch, n, n, dtype=torch.float64, generator=torch.Generator().manual_seed(0))

    def run(u: torch.Tensor) -> None:
        leapfrog(v**2 * dt**2, damping_dt, dx, steps + 1, u0=torch.zeros_like(u), u1=u, batch=u.shape[0])

    batched = _timed(lambda: run(u1))
    looped = _timed(lambda: [run(u1[i : i + 1]) for i in range(batch)])
    return batch * steps / batched, batch * steps / looped


def navier_stokes(batch: int, n: int, steps: int) -> tuple[float, float]:
    solver = NavierStokes2D(n, nu=1e-3, forcing=kolmogorov_forcing(n, wavenumber=4, amplitude=0.1))
    w0 = gaussian_random_field(batch, n, generator=torch.Generator().manual_seed(0))
    batched = _timed(lambda: solver.simulate(w0, dt=0.01, n_steps=steps, save_every=steps))
    looped = _timed(
        lambda: [
            solver.simulate(w0[i : i + 1], dt=0.01, n_steps=steps, save_every=steps) for i in range(batch)
        ]
    )
    return batch * steps / batched, batch * steps / looped


def immersed_boundary(batch: int, n: int, steps: int) -> tuple[float, float]:
    m = 32
    t = torch.arange(m, dtype=torch.float64) * (2 * math.pi / m)
    ring = torch.stack([math.pi + 1.2 * torch.cos(t), math.pi + 0.8 * torch.sin(t)], -1)
    edges = torch.stack([torch.arange(m), (torch.arange(m) + 1) % m], -1)
    rest = torch.full((m,), 2 * math.sin(math.pi / m), dtype=torch.float64)

    def run(b: int) -> None:
        sim = IBSimulator(n, torch.full((b,), 0.02), torch.full((b,), 0.2), torch.full((b,), 20.0))
        w_hat = torch.zeros(b, n, n // 2 + 1, dtype=torch.complex128)
        X = ring.expand(b, m, 2).contiguous()
        for _ in range(steps):
            w_hat, X = sim.step(w_hat, X, edges, rest, 0.005)

    batched = _timed(lambda: run(batch))
    looped = _timed(lambda: [run(1) for _ in range(batch)])
    return batch * steps / batched, batch * steps / looped


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument("--n", type=int, default=64)
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(f"trajectory-steps per second of process time, one thread, n = {args.n}, {args.steps} steps")
    print(f"{'solver':<20} {'batch':>5} {'batched':>10} {'loop':>10} {'ratio':>6}")
    solvers = (
        ("acoustic-wave", acoustic_wave),
        ("navier-stokes", navier_stokes),
        ("immersed-boundary", immersed_boundary),
    )
    for name, fn in solvers:
        fn(1, args.n, 2)  # warm-up (first FFT plans, allocations)
        for b in args.batch:
            fast, slow = fn(b, args.n, args.steps)
            print(f"{name:<20} {b:>5} {fast:>10.1f} {slow:>10.1f} {fast / slow:>6.1f}")


if __name__ == "__main__":
    main()
