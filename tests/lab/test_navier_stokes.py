"""The lab's pseudo-spectral 2-D Navier-Stokes solver: exact solutions, convergence order (Taylor-Green, a
manufactured solution, self-convergence), conservation laws, the energy budget, batching and bad input."""

import math

import pytest
import torch

from iclr26.lab.pde.navier_stokes import (
    NavierStokes2D,
    energy,
    enstrophy,
    gaussian_random_field,
    kolmogorov_forcing,
    taylor_green_vorticity,
    velocity_from_vorticity,
    wavenumbers,
)

D = torch.float64


def _grid(n):
    x = torch.arange(n, dtype=D) * (2 * math.pi / n)
    return x[None, :], x[:, None]  # X varies along columns, Y along rows


def _grf(batch=2, n=32, seed=0):
    return gaussian_random_field(batch, n, generator=torch.Generator().manual_seed(seed))


def _order(errs):
    return [math.log2(a / b) for a, b in zip(errs, errs[1:])]


def test_velocity_is_divergence_free_and_its_curl_is_the_vorticity():
    kx, ky = wavenumbers(32)
    w_hat = torch.fft.rfft2(_grf(n=32))
    w = torch.fft.irfft2(w_hat * ((kx.abs() < 16) & (ky.abs() < 16)), s=(32, 32))  # no Nyquist mode
    u, v = velocity_from_vorticity(w)
    div = torch.fft.irfft2(1j * kx * torch.fft.rfft2(u) + 1j * ky * torch.fft.rfft2(v), s=(32, 32))
    curl = torch.fft.irfft2(1j * kx * torch.fft.rfft2(v) - 1j * ky * torch.fft.rfft2(u), s=(32, 32))
    assert float(div.abs().max()) < 1e-12
    assert torch.allclose(curl, w - w.mean(dim=(-2, -1), keepdim=True), atol=1e-12)


def test_taylor_green_vortex_decays_exactly_at_second_order_in_time():
    nu, T, errs = 0.1, 2.0, []
    for steps in (10, 20, 40):
        s = NavierStokes2D(16, nu=nu)
        w = s.simulate(taylor_green_vorticity(16), dt=T / steps, n_steps=steps)[-1]
        errs.append(float((w - taylor_green_vorticity(16, T, nu)).abs().max()))
    assert all(o > 1.9 for o in _order(errs)), errs
    assert errs[-1] < 1e-4


def _manufactured(n, nu):
    """w*(x, y, t) = cos(t) sin(2x) cos(y) + sin(t) cos(x + 2y), and the forcing that makes it exact."""
    X, Y = _grid(n)
    kx, ky = wavenumbers(n)
    k2 = kx**2 + ky**2

    def w_star(t):
        return math.cos(t) * torch.sin(2 * X) * torch.cos(Y) + math.sin(t) * torch.cos(X + 2 * Y)

    def dw_dt(t):
        return -math.sin(t) * torch.sin(2 * X) * torch.cos(Y) + math.cos(t) * torch.cos(X + 2 * Y)

    def forcing(t):
        w = w_star(t)
        wh = torch.fft.rfft2(w)
        u, v = velocity_from_vorticity(w)
        wx = torch.fft.irfft2(1j * kx * wh, s=(n, n))
        wy = torch.fft.irfft2(1j * ky * wh, s=(n, n))
        lap = torch.fft.irfft2(-k2 * wh, s=(n, n))
        return dw_dt(t) + u * wx + v * wy - nu * lap

    return w_star, forcing


def test_manufactured_solution_converges_at_second_order():
    n, nu, T, errs = 24, 0.05, 1.0, []
    w_star, forcing = _manufactured(n, nu)
    for steps in (8, 16, 32):
        s = NavierStokes2D(n, nu=nu, forcing=forcing)
        w = s.simulate(w_star(0.0), dt=T / steps, n_steps=steps)[-1]
        errs.append(float((w - w_star(T)).abs().max()))
    assert all(1.8 < o < 2.3 for o in _order(errs)), errs


def test_turbulent_run_self_converges_at_second_order():
    n, T = 24, 1.0
    s = NavierStokes2D(n, nu=1e-3, forcing=kolmogorov_forcing(n, 4, 0.1))
    w0 = 3 * _grf(1, n)
    ref = s.simulate(w0, dt=T / 160, n_steps=160)[..., -1, :, :]
    errs = [
        float((s.simulate(w0, dt=T / m, n_steps=m)[..., -1, :, :] - ref).abs().max()) for m in (10, 20, 40)
    ]
    assert all(o > 1.7 for o in _order(errs)), errs


def test_steady_kolmogorov_flow_is_a_fixed_point():
    n, nu, A, k = 32, 0.05, 0.1, 4
    f = kolmogorov_forcing(n, k, A)
    s = NavierStokes2D(n, nu=nu, forcing=f)
    w_lam = f / (nu * k**2)  # nu k^2 w = f, and a shear flow does not advect its own vorticity
    out = s.simulate(w_lam, dt=0.05, n_steps=40)[-1]
    assert float((out - w_lam).abs().max()) < 1e-12


def test_mean_vorticity_is_conserved_exactly():
    s = NavierStokes2D(32, nu=1e-3, forcing=kolmogorov_forcing(32))
    w0 = _grf(2, 32) + 0.3
    traj = s.simulate(w0, dt=0.05, n_steps=40, save_every=10)
    assert torch.allclose(traj.mean(dim=(-2, -1)), torch.full((2, 5), 0.3, dtype=D), atol=1e-12)


def test_inviscid_unforced_flow_conserves_energy_and_enstrophy():
    s, (kx, ky) = NavierStokes2D(32, nu=0.0), wavenumbers(32)
    keep = (kx.abs() <= 10) & (ky.abs() <= 10)  # a field inside the dealiased band: Galerkin-exact invariants
    w0 = torch.fft.irfft2(torch.fft.rfft2(3 * _grf(1, 32)) * keep, s=(32, 32))
    drift = {}
    for dt in (0.02, 0.01):
        w = s.simulate(w0, dt=dt, n_steps=int(round(1.0 / dt)))[:, -1]
        drift[dt] = (
            abs(float(energy(w) / energy(w0)) - 1),
            abs(float(enstrophy(w) / enstrophy(w0)) - 1),
        )
    assert max(drift[0.01]) < 1e-4, drift
    assert drift[0.01][0] < drift[0.02][0] or drift[0.01][0] < 1e-10


def test_energy_budget_matches_viscous_dissipation():
    """Unforced: dE/dt = -nu <w^2> = -2 nu Z (centred difference over a short interval)."""
    nu, dt = 0.01, 0.002
    s = NavierStokes2D(32, nu=nu)
    traj = s.simulate(_grf(1, 32), dt=dt, n_steps=20, save_every=10)[0]
    dE = float(energy(traj[2]) - energy(traj[0])) / (20 * dt)
    assert dE == pytest.approx(-2 * nu * float(enstrophy(traj[1])), rel=2e-3)


def test_batched_run_equals_one_field_at_a_time_and_float32_runs():
    s = NavierStokes2D(16, nu=1e-2, forcing=kolmogorov_forcing(16, 2, 0.1))
    w0 = _grf(3, 16)
    batch = s.simulate(w0, dt=0.05, n_steps=10, save_every=5)
    one = torch.stack([s.simulate(w0[i], dt=0.05, n_steps=10, save_every=5) for i in range(3)])
    assert torch.allclose(batch, one, atol=1e-13)
    f32 = s.simulate(w0.float(), dt=0.05, n_steps=10)
    assert f32.dtype == torch.float32 and torch.allclose(f32[:, -1].double(), batch[:, -1], atol=1e-4)


def test_gaussian_random_field_is_seeded_zero_mean_and_periodic_smooth():
    a, b = _grf(4, 32, seed=3), _grf(4, 32, seed=3)
    assert torch.equal(a, b) and a.shape == (4, 32, 32)
    assert float(a.mean(dim=(-2, -1)).abs().max()) < 1e-12
    spec = torch.fft.rfft2(a).abs().pow(2).mean(0)
    assert float(spec[1, 1]) > 100 * float(spec[10, 10])  # a decaying spectrum


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: NavierStokes2D(16, nu=-1.0), ["nu", ">= 0"]),
        (
            lambda: NavierStokes2D(16, nu=0.1).step(torch.zeros(16, 12, dtype=D), 0.1),
            ["w must have shape", "16"],
        ),
        (lambda: NavierStokes2D(16, nu=0.1).step(torch.zeros(16, 16, dtype=D), 0.0), ["dt", "> 0"]),
        (lambda: NavierStokes2D(16, nu=0.1, forcing=torch.zeros(8, 8)), ["forcing", "(..., 16, 16)"]),
        (
            lambda: NavierStokes2D(16, nu=0.1).simulate(torch.zeros(16, 16), 0.1, 10, 3),
            ["multiple", "save_every"],
        ),
    ],
)
def test_bad_input_is_refused_with_a_clear_message(call, words):
    with pytest.raises(ValueError) as info:
        call()
    assert all(w in str(info.value) for w in words), str(info.value)


def test_blow_up_is_reported():
    s = NavierStokes2D(16, nu=0.0)
    with pytest.raises(FloatingPointError, match="lower dt"):
        s.simulate(200 * _grf(1, 16), dt=5.0, n_steps=50)
