"""The lab's immersed-boundary coupling: Peskin kernel, adjoint spreading/interpolation, internal forces, a coupled
step that keeps the flow divergence-free and the body's area, and its convergence orders (second order in space on
the Taylor-Green manufactured solution, second order in time for the two-way coupled step)."""

import math

import pytest
import torch

from iclr26.lab.pde.immersed_boundary import IBSimulator, enclosed_area, peskin_delta, spectral_divergence

D = torch.float64


def _ring(b: int, m: int, radius: float, aspect: float = 1.0):
    t = torch.arange(m, dtype=D) * (2 * math.pi / m)
    X = torch.stack([math.pi + radius * aspect * torch.cos(t), math.pi + radius / aspect * torch.sin(t)], -1)
    edges = torch.stack([torch.arange(m), (torch.arange(m) + 1) % m], -1)
    rest = torch.full((m,), 2 * radius * math.sin(math.pi / m), dtype=D)
    return X.expand(b, m, 2).contiguous(), edges, rest


def test_peskin_kernel_partitions_unity():
    for shift in (0.0, 0.25, 0.5, 0.9):
        assert math.isclose(
            float(peskin_delta(torch.arange(-3, 4, dtype=D) + shift).sum()), 1.0, abs_tol=1e-12
        )


def test_interpolation_is_the_adjoint_of_spreading_and_forces_are_internal():
    X, edges, rest = _ring(2, 12, 1.0, aspect=1.4)
    sim = IBSimulator(16, torch.full((2,), 0.01), torch.zeros(2), torch.full((2,), 5.0))
    F = sim.forces(X, edges, rest)
    assert torch.allclose(F.sum(1), torch.zeros(2, 2, dtype=D), atol=1e-12)
    dx, dy = sim._deltas(X)
    u = torch.randn(2, 16, 16, dtype=D, generator=torch.Generator().manual_seed(0))
    interp = torch.einsum("byx,bmy,bmx->bm", u, dy, dx) * sim.h**2
    spread = torch.einsum("bm,bmy,bmx->byx", F[..., 0], dy, dx)
    assert torch.allclose((interp * F[..., 0]).sum(1), (u * spread).sum((1, 2)) * sim.h**2)


def test_coupled_steps_stay_divergence_free_and_keep_the_area():
    X, edges, rest = _ring(2, 24, 0.8, aspect=1.2)
    sim = IBSimulator(32, torch.tensor([0.05, 0.02]), torch.tensor([0.0, 0.3]), torch.full((2,), 20.0))
    w_hat = torch.zeros(2, 32, 17, dtype=torch.complex128)
    area0 = enclosed_area(X)
    for _ in range(40):
        w_hat, X = sim.step(w_hat, X, edges, rest, 0.01)
    u, v = sim.velocity(w_hat)
    assert float(spectral_divergence(u, v).max()) < 1e-10
    assert float((enclosed_area(X) / area0 - 1).abs().max()) < 0.02
    assert float(w_hat.abs().max()) > 0  # the body stirred the fluid


def test_forcing_must_match_the_grid():
    with pytest.raises(ValueError, match=r"forcing must be an \(n, n\)"):
        IBSimulator(16, torch.ones(1), torch.zeros(1), torch.ones(1), forcing=torch.zeros(8, 8))


def _taylor_green_tracers(n: int, dt: float, t_end: float, nu: float = 0.1):
    """Passive markers (zero stiffness) in the decaying Taylor-Green vortex w = 2 sin x sin y exp(-2 nu t), an exact
    Navier-Stokes solution (its advection term vanishes): the coupled solver must carry them along u = (sin x cos y,
    -cos x sin y) exp(-2 nu t)."""
    sim = IBSimulator(n, torch.tensor([nu]), torch.zeros(1), torch.zeros(1))
    Y, Xg = torch.meshgrid(sim.grid_x, sim.grid_x, indexing="ij")
    w_hat = torch.fft.rfft2(2 * torch.sin(Xg) * torch.sin(Y))[None]
    X0, edges, rest = _ring(1, 8, 0.6, aspect=1.3)
    X0 = X0 + torch.tensor([-1.1, -1.8], dtype=D)  # off the vortex centre, where the field varies
    X = X0
    for _ in range(round(t_end / dt)):
        w_hat, X = sim.step(w_hat, X, edges, rest, dt)
    return X[0], _exact_tracers(X0[0], t_end, nu)


def _exact_tracers(X0: torch.Tensor, t_end: float, nu: float, dt: float = 1e-3) -> torch.Tensor:
    """The exact tracer paths of the Taylor-Green field, by classical RK4 with a step far below the solver's."""

    def f(P, t):
        e = math.exp(-2 * nu * t)
        return (
            torch.stack(
                [torch.sin(P[:, 0]) * torch.cos(P[:, 1]), -torch.cos(P[:, 0]) * torch.sin(P[:, 1])], -1
            )
            * e
        )

    P, t = X0.clone(), 0.0
    for _ in range(round(t_end / dt)):
        k1 = f(P, t)
        k2 = f(P + dt / 2 * k1, t + dt / 2)
        k3 = f(P + dt / 2 * k2, t + dt / 2)
        k4 = f(P + dt * k3, t + dt)
        P, t = P + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4), t + dt
    return P


def test_tracers_in_taylor_green_converge_at_second_order_in_space():
    """Manufactured solution: marker error against the exact paths falls as h^2 (Peskin interpolation is
    second-order for smooth fields); the time step is small enough that the spatial error dominates."""
    errors = []
    for n in (8, 16, 32):
        got, exact = _taylor_green_tracers(n, dt=0.01, t_end=0.5)
        errors.append(float((got - exact).norm(dim=-1).max()))
    orders = [math.log2(a / b) for a, b in zip(errors, errors[1:], strict=False)]
    assert all(1.8 < p < 2.3 for p in orders), (errors, orders)
    assert errors[-1] < 0.02


def test_coupled_step_converges_at_second_order_in_time():
    """Self-convergence of the two-way coupled step (stretched elastic ring, Heun + Crank-Nicolson): halving dt
    divides the error against a much finer step by about 4."""

    def run(dt):
        X, edges, rest = _ring(1, 16, 0.7, aspect=1.5)
        sim = IBSimulator(16, torch.tensor([0.05]), torch.tensor([0.2]), torch.tensor([5.0]))
        w_hat = torch.zeros(1, 16, 9, dtype=torch.complex128)
        for _ in range(round(0.4 / dt)):
            w_hat, X = sim.step(w_hat, X, edges, rest, dt)
        return X[0], w_hat[0]

    ref_X, ref_w = run(0.02 / 16)
    errors = []
    for dt in (0.02, 0.01, 0.005):
        X, w = run(dt)
        errors.append(float((X - ref_X).norm(dim=-1).max()) + float((w - ref_w).abs().max()) / 16**2)
    orders = [math.log2(a / b) for a, b in zip(errors, errors[1:], strict=False)]
    assert all(1.8 < p < 2.4 for p in orders), (errors, orders)
