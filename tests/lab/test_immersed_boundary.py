"""The lab's immersed-boundary coupling: Peskin kernel, adjoint spreading/interpolation, internal forces, and a
coupled step that keeps the flow divergence-free and the body's area."""

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
