"""Benchmark: steps per second of the lab's PDE solvers against what a user would run instead (not a test).

* 2-D acoustic wave (:class:`iclr26.lab.pde.wave.AcousticWave2D`, the forward operator of ig-fwi) against
  ``deepwave.scalar`` (compiled C backend, ``accuracy=4``) on the same model, grid, time step (deepwave's internal
  step ratio is checked to be 1), shots, wavelet and receivers: the ig-fwi reproduction's setting (Marmousi-like
  24 x 48 model, dx 40 m, dt 4 ms, 6 surface shots, a 3.5 Hz Ricker, a 10-cell absorbing layer), float32. Two
  rows: forward modelling, and forward plus the FWI gradient (sum of squared traces, backward). Both codes use
  the same interior scheme (leapfrog in time, the 4th-order 5-point Laplacian, a point source); they differ in
  the absorbing layer (our quadratic sponge, deepwave's C-PML). Agreement, printed and stored in the notes:
  with no absorbing layer on either side (u = 0 beyond the grid) the traces agree to rounding; with the layers,
  on a homogeneous model with a central source, the traces before the first boundary reflection can reach a
  receiver agree to ~1e-7 (relative L2, float64), and the whole traces differ by the boundary treatment.
* Pseudo-spectral Navier-Stokes (:class:`~iclr26.lab.pde.navier_stokes.NavierStokes2D`) and the immersed-boundary
  coupling (:class:`~iclr26.lab.pde.immersed_boundary.IBSimulator`), batched over B trajectories. No library
  solver is installed here (jax-cfd, PhiFlow are not), so the alternative is what a user would write without
  the batched solver: the same solver run on one trajectory at a time in a Python loop; the batched and looped
  final states are compared (max |difference|).

Timings are wall seconds on one thread, interleaved (every repeat runs each contender in turn), median of the
repeats; each ratio is the alternative's time / ours (> 1: ours is faster). Steps per second of each solver
(shot-steps or trajectory-steps) are printed.

    python benchmarks/pde_solver_steps.py [--batch 8 32] [--n 64] [--steps 20] [--nt 300] [--repeats 5]
        [--small] [--json PATH]
"""

from __future__ import annotations

import argparse
import math
import warnings

import torch
from _bench import interleaved, median, row, write_result

from iclr26.lab.pde.immersed_boundary import IBSimulator
from iclr26.lab.pde.navier_stokes import NavierStokes2D, gaussian_random_field, kolmogorov_forcing
from iclr26.lab.pde.wave import AcousticWave2D, ricker

try:
    import deepwave
except ImportError:  # the `compare` extra is not installed: the wave rows are skipped
    deepwave = None


def _deepwave_traces(v, dx, dt, src, rec, wavelet, pml_width, pml_freq):
    """deepwave.scalar's traces in our convention: deepwave injects -dx^2 times our point source, so ours =
    -traces / dx^2 (measured: identical to rounding when neither side absorbs)."""
    n_shots = wavelet.shape[0]
    out = deepwave.scalar(
        v,
        dx,
        dt,
        source_amplitudes=wavelet[:, None, :],
        source_locations=torch.as_tensor(src)[:, None, :],
        receiver_locations=torch.as_tensor(rec)[None].expand(n_shots, -1, -1),
        accuracy=4,
        pml_width=pml_width,
        pml_freq=pml_freq,
        max_vel=float(v.detach().max()),
    )
    if out.info.step_ratio != 1:
        raise RuntimeError(f"deepwave subdivided the time step (step ratio {out.info.step_ratio})")
    return -out.receiver_amplitudes / dx**2


def wave_agreement() -> dict[str, float]:
    """Relative L2 of our traces vs deepwave's on a homogeneous 40 x 40 model (float64, central source)."""
    nz = nx = 40
    dx, dt, nt, f, vel = 10.0, 0.001, 250, 20.0, 2000.0
    sx = (20, 20)
    rec = [(20, x) for x in range(nx)]
    w = ricker(f, nt, dt, dtype=torch.float64)[None]
    v = torch.full((nz, nx), vel, dtype=torch.float64)
    out = {}
    for width in (0, 10):
        ours = AcousticWave2D((nz, nx), dx, dt, [sx], rec, w, pml_width=width)(v)
        with warnings.catch_warnings():  # a zero-width face is a reflecting (u = 0) edge, as ours
            warnings.simplefilter("ignore")
            theirs = _deepwave_traces(v, dx, dt, [sx], rec, w, width, f)
        if width == 0:
            out["no absorbing layer, whole traces"] = float((ours - theirs).norm() / ours.norm())
            continue
        # before the first boundary reflection: the shortest source -> edge -> receiver path (images across
        # the four faces just outside the model) over the velocity
        mask = torch.zeros_like(ours, dtype=torch.bool)
        for j, (iz, ix) in enumerate(rec):
            path = min(
                math.hypot(sx[0] + iz + 2, sx[1] - ix),
                math.hypot(2 * nz - sx[0] - iz, sx[1] - ix),
                math.hypot(sx[0] - iz, sx[1] + ix + 2),
                math.hypot(sx[0] - iz, 2 * nx - sx[1] - ix),
            )
            mask[0, j, : int(path * dx / vel / dt)] = True
        diff = (ours - theirs) * mask
        out["10-cell layers, before the first boundary reflection"] = float(
            diff.norm() / (ours * mask).norm()
        )
        out["10-cell layers, whole traces"] = float((ours - theirs).norm() / ours.norm())
    return out


def wave_rows(nt: int, repeats: int) -> tuple[list[dict], list[str]]:
    from iclr26.science.ig_fwi import AcousticFD2D, marmousi_like, surface_acquisition

    nz, nx, dx, dt, freq, width = 24, 48, 40.0, 0.004, 3.5, 10
    v = marmousi_like(nz, nx, dx=dx)
    src, rec = surface_acquisition(nx, n_shots=6)
    op = AcousticFD2D(nz, nx, dx, dt, src, rec, nt=nt, freq=freq, pml_width=width)
    w = op.wavelet
    vg = v.clone().requires_grad_(True)

    def ours_fwd():
        with torch.no_grad():
            return op(v)

    def dw_fwd():
        with torch.no_grad():
            return _deepwave_traces(v, dx, dt, src, rec, w, width, freq)

    def ours_grad():
        vg.grad = None
        op(vg).square().sum().backward()

    def dw_grad():
        vg.grad = None
        _deepwave_traces(vg, dx, dt, src, rec, w, width, freq).square().sum().backward()

    t_fwd = interleaved({"ours": ours_fwd, "deepwave": dw_fwd}, repeats)
    t_grad = interleaved({"ours": ours_grad, "deepwave": dw_grad}, repeats)
    with torch.no_grad():
        a, b = ours_fwd(), dw_fwd()
        ref = op.forward_reference(v)
    shot_steps = len(src) * nt
    setting = f"ig-fwi setting: 24 x 48, 6 shots, nt {nt}, float32"
    rows, notes = [], []
    print(f"acoustic wave, {setting} (shot-steps per second)")
    for what, t in (("forward modelling", t_fwd), ("forward + FWI gradient", t_grad)):
        ours_s, dw_s = median(t["ours"]), median(t["deepwave"])
        print(
            f"  {what:<24} ours {shot_steps / ours_s:>9.0f}/s   deepwave {shot_steps / dw_s:>9.0f}/s   "
            f"ratio {dw_s / ours_s:.2f}"
        )
        rows.append(
            row(
                "ig-fwi",
                f"2-D acoustic wave, {what} ({setting})",
                "AcousticWave2D (PyTorch, adjoint-state gradient)",
                "deepwave.scalar 0.1.0 (compiled C, accuracy 4), same grid and time step",
                dw_s / ours_s,
            )
        )
    agree = wave_agreement()
    full = float((a - b).norm() / a.norm())
    print(f"  ours vs our plain-autograd reference: max |diff| {float((a - ref).abs().max()):.1e}")
    print(f"  ours vs deepwave, this setting (sponge vs C-PML, sources 40 m deep), whole traces: {full:.3f}")
    for k, val in agree.items():
        print(f"  ours vs deepwave, homogeneous 40 x 40 float64, {k}: {val:.1e}")
    notes.append(
        "Acoustic wave vs deepwave (relative L2 of the traces): homogeneous 40 x 40 model, float64: "
        + "; ".join(f"{k} {val:.1e}" for k, val in agree.items())
        + f"; the ig-fwi setting, whole traces (sponge vs C-PML, sources near the top edge): {full:.2f}."
    )
    return rows, notes


def navier_stokes(batch: int, n: int, steps: int, repeats: int) -> tuple[dict, float]:
    solver = NavierStokes2D(n, nu=1e-3, forcing=kolmogorov_forcing(n, wavenumber=4, amplitude=0.1))
    w0 = gaussian_random_field(batch, n, generator=torch.Generator().manual_seed(0))

    def batched():
        return solver.simulate(w0, dt=0.01, n_steps=steps, save_every=steps)

    def looped():
        return torch.cat(
            [solver.simulate(w0[i : i + 1], dt=0.01, n_steps=steps, save_every=steps) for i in range(batch)]
        )

    t = interleaved({"batched": batched, "loop": looped}, repeats)
    return t, float((batched() - looped()).abs().max())


def immersed_boundary(batch: int, n: int, steps: int, repeats: int) -> tuple[dict, float]:
    m = 32
    t = torch.arange(m, dtype=torch.float64) * (2 * math.pi / m)
    ring = torch.stack([math.pi + 1.2 * torch.cos(t), math.pi + 0.8 * torch.sin(t)], -1)
    edges = torch.stack([torch.arange(m), (torch.arange(m) + 1) % m], -1)
    rest = torch.full((m,), 2 * math.sin(math.pi / m), dtype=torch.float64)
    flows = torch.linspace(0.1, 0.3, batch)  # trajectories differ (one background flow each)

    def run(flow: torch.Tensor) -> torch.Tensor:
        b = flow.shape[0]
        sim = IBSimulator(n, torch.full((b,), 0.02), flow, torch.full((b,), 20.0))
        w_hat = torch.zeros(b, n, n // 2 + 1, dtype=torch.complex128)
        X = ring.expand(b, m, 2).contiguous()
        for _ in range(steps):
            w_hat, X = sim.step(w_hat, X, edges, rest, 0.005)
        return X

    def batched():
        return run(flows)

    def looped():
        return torch.cat([run(flows[i : i + 1]) for i in range(batch)])

    times = interleaved({"batched": batched, "loop": looped}, repeats)
    return times, float((batched() - looped()).abs().max())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, nargs="+", default=[8, 32])
    parser.add_argument("--n", type=int, default=64)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--nt", type=int, default=300, help="time steps of the wave rows (ig-fwi quick: 300)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--small", action="store_true", help="make bench setting: batch 8, n 32, 10 steps, nt 300, 3 repeats"
    )
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    if args.small:
        args.batch, args.n, args.steps, args.nt, args.repeats = [8], 32, 10, 300, 3
    torch.set_num_threads(1)
    rows: list[dict] = []
    notes: list[str] = []
    if deepwave is None:
        print("deepwave not installed (the `compare` extra): the acoustic-wave rows are skipped")
    else:
        wr, wn = wave_rows(args.nt, args.repeats)
        rows += wr
        notes += wn
    print(
        f"batched vs one trajectory at a time, n = {args.n}, {args.steps} steps (trajectory-steps per second)"
    )
    print(f"{'solver':<20} {'batch':>5} {'batched':>10} {'loop':>10} {'ratio':>6} {'max |diff|':>11}")
    solvers = (
        ("navier-stokes", "pseudo-spectral Navier-Stokes", "NavierStokes2D", navier_stokes),
        ("immersed-boundary", "immersed-boundary coupling", "IBSimulator", immersed_boundary),
    )
    for name, label, cls, fn in solvers:
        for b in args.batch:
            t, diff = fn(b, args.n, args.steps, args.repeats)
            fast, slow = median(t["batched"]), median(t["loop"])
            rate = b * args.steps
            print(
                f"{name:<20} {b:>5} {rate / fast:>10.1f} {rate / slow:>10.1f} {slow / fast:>6.1f} {diff:>11.1e}"
            )
            rows.append(
                row(
                    "",
                    f"{label}, {b} trajectories, n {args.n}, {args.steps} steps",
                    f"{cls}, batched",
                    "the same solver on one trajectory at a time, a Python loop (no library solver installed)",
                    slow / fast,
                )
            )
            notes.append(
                f"{label}, batch {b}: batched vs looped final states agree to max |diff| {diff:.1e}."
            )
    write_result(
        args.json,
        {
            "script": "pde_solver_steps.py",
            "title": "PDE solvers: acoustic wave vs deepwave; Navier-Stokes and immersed boundary batched vs looped",
            "device": "cpu",
            "settings": {k: v for k, v in vars(args).items() if k != "json"},
            "rows": rows,
            "notes": notes,
        },
    )


if __name__ == "__main__":
    main()
