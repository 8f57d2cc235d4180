"""The lab's 2-D acoustic solver: adjoint and Born against autograd and finite differences, convergence order,
absorbing boundary, reciprocity, moveout and CFL validation."""

import math

import numpy as np
import pytest
import torch

from iclr26.lab.pde.wave import (
    CFL_LIMIT,
    AcousticWave2D,
    laplacian,
    leapfrog,
    ricker,
    second_difference_matrix,
)

D = torch.float64


def _op(nz=10, nx=12, nt=60, pml=4, src=((1, 3), (1, 8)), rec=None, **kw):
    rec = rec if rec is not None else [(1, x) for x in range(nx)]
    return AcousticWave2D(
        (nz, nx), 10.0, 0.002, src, rec, ricker(20.0, nt, 0.002, dtype=D), pml_width=pml, **kw
    )


def _model(nz=10, nx=12, seed=0):
    g = torch.Generator().manual_seed(seed)
    return 2000.0 + 400.0 * torch.rand(nz, nx, generator=g, dtype=D)


def test_fast_path_equals_autograd_reference_in_outputs_and_gradients():
    op, v = _op(v_max=2500.0), _model().requires_grad_(True)
    d, dr = op(v), op.forward_reference(v)
    assert torch.allclose(d, dr, rtol=0, atol=1e-12 * float(dr.detach().abs().max()))
    g = torch.randn_like(d)
    (gv,), (gr,) = torch.autograd.grad(d, v, g), torch.autograd.grad(dr, v, g)
    assert torch.allclose(gv, gr, rtol=1e-10, atol=1e-12 * float(gr.detach().abs().max()))


def test_gradcheck_through_the_solver():
    op = _op(nt=30, v_max=2500.0)
    v = _model().requires_grad_(True)
    assert torch.autograd.gradcheck(lambda x: op(x)[:, ::3, ::3], (v,), eps=1e-3, atol=1e-8, rtol=1e-4)


def test_dot_product_adjoint_and_born_vs_finite_differences():
    op, v = _op(v_max=2500.0), _model()
    lin = op.linearize(v)
    g = torch.Generator().manual_seed(1)
    dv, dd = torch.randn(v.shape, generator=g, dtype=D), torch.randn(lin.data.shape, generator=g, dtype=D)
    jdv, jtdd = lin.jvp(dv), lin.vjp(dd)
    lhs, rhs = float((jdv * dd).sum()), float((dv * jtdd).sum())
    scale = float(jdv.norm() * dd.norm())
    assert abs(lhs - rhs) / scale < 1e-6
    eps = 1e-3
    fd = (op(v + eps * dv) - op(v - eps * dv)) / (2 * eps)
    assert float((fd - jdv).abs().max() / fd.abs().max()) < 1e-6


def test_laplacian_is_fourth_order_and_symmetric():
    errs = []
    for n in (32, 64):
        h = 1.0 / n
        x = (torch.arange(n, dtype=D) - n / 2) * h
        u = torch.exp(-((x[:, None] ** 2 + x[None, :] ** 2) / 0.02))
        exact = u * ((4 * (x[:, None] ** 2 + x[None, :] ** 2) / 0.02**2) - 4 / 0.02)
        errs.append(float((laplacian(u, h) - exact).abs().max()))
    assert math.log2(errs[0] / errs[1]) > 3.7
    m = second_difference_matrix(9, 1.0)
    assert torch.equal(m, m.T)


def test_manufactured_solution_converges_at_second_order():
    """u* = exp(-r^2/w) cos(omega t) with its forcing: leapfrog error O(dt^2 + dx^4), dt ~ dx -> order 2."""
    errs = []
    v, w, omega, T = 1.0, 0.01, 2 * math.pi, 0.25
    for n in (40, 80):
        h = 1.0 / n
        dt = 0.3 * h
        steps = round(T / dt)
        x = (torch.arange(n, dtype=D) - n / 2) * h
        r2 = x[:, None] ** 2 + x[None, :] ** 2
        g = torch.exp(-r2 / w)
        lap_g = g * (4 * r2 / w**2 - 4 / w)

        def exact(t, g=g):
            return (g * math.cos(omega * t))[None]

        def forcing(k, g=g, lap_g=lap_g, dt=dt):
            t = k * dt
            return ((-(omega**2) * g / v**2 - lap_g) * math.cos(omega * t))[None]

        c2 = torch.full((n, n), v**2 * dt**2, dtype=D)
        _, _, u = leapfrog(
            c2, torch.zeros(n, n, dtype=D), h, steps, forcing=forcing, u0=exact(0.0), u1=exact(dt)
        )
        errs.append(float((u - exact(steps * dt)).abs().max()))
    order = math.log2(errs[0] / errs[1])
    assert order > 1.9, (errs, order)  # formal order min(2, 4) = 2; the spatial O(dx^4) term dominates here


def test_sponge_absorbs_boundary_reflections():
    nz = nx = 30
    src, rec = [(15, 15)], [(15, 3), (3, 15)]
    wav = ricker(25.0, 300, 0.001, dtype=D)
    v = torch.full((nz, nx), 2000.0, dtype=D)

    def traces(pml, big=0):
        s = [(a + big, b + big) for a, b in src]
        r = [(a + big, b + big) for a, b in rec]
        op = AcousticWave2D((nz + 2 * big, nx + 2 * big), 10.0, 0.001, s, r, wav, pml_width=pml)
        return op(torch.full((nz + 2 * big, nx + 2 * big), 2000.0, dtype=D))

    ref = traces(0, big=60)  # boundary too far to be seen within 0.3 s
    absorbed = float((traces(20) - ref).norm() / ref.norm())
    reflected = float((traces(0) - ref).norm() / ref.norm())
    assert absorbed < 0.05 and reflected > 0.3, (absorbed, reflected)
    assert v.shape == (nz, nx)


def test_source_receiver_reciprocity():
    v = _model(16, 16, seed=3)
    wav = ricker(20.0, 150, 0.002, dtype=D)
    a, b = (2, 3), (12, 11)
    ab = AcousticWave2D((16, 16), 10.0, 0.002, [a], [b], wav, pml_width=6, v_max=2500.0)(v)
    ba = AcousticWave2D((16, 16), 10.0, 0.002, [b], [a], wav, pml_width=6, v_max=2500.0)(v)
    assert float((ab - ba).norm() / ab.norm()) < 1e-3


def test_moveout_between_far_receivers_matches_offset_over_velocity():
    v0, dx, dt, nt = 2000.0, 10.0, 0.001, 700
    nx = 140
    op = AcousticWave2D(
        (20, nx), dx, dt, [(10, 5)], [(10, 45), (10, 125)], ricker(20.0, nt, dt, dtype=D), pml_width=20
    )
    d = op(torch.full((20, nx), v0, dtype=D))[0].numpy()
    xc = np.correlate(d[1], d[0], mode="full")
    lag = int(np.argmax(xc)) - (nt - 1)
    expected = (125 - 45) * dx / v0 / dt
    assert abs(lag - expected) <= 2, (lag, expected)


def test_cfl_violation_and_bad_inputs_raise_clear_errors():
    op = _op()
    too_fast = torch.full((10, 12), 10.0 * CFL_LIMIT / 0.002 * 1.1, dtype=D)
    with pytest.raises(ValueError, match=r"v_max\*dt/dx .* exceeds the limit"):
        op(too_fast)
    with pytest.raises(ValueError, match="must be > 0"):
        op(torch.zeros(10, 12, dtype=D))
    with pytest.raises(ValueError, match="finite"):
        op(torch.full((10, 12), float("nan"), dtype=D))
    with pytest.raises(ValueError, match="outside the grid"):
        _op(src=[(1, 40)])
