"""IG-FWI: NTK identities of the representations, the wave-based NTK, metrics, FWI and the claim rule."""

import numpy as np
import pytest
import torch

from iclr26.harness.claims import Outcome
from iclr26.lab.pde.wave import ricker
from iclr26.science.ig_fwi import (
    AcousticFD2D,
    FourierFeatureRep,
    IGRep,
    MultiResGridRep,
    OptConfig,
    PixelGrid,
    SirenRep,
    fwi_fit,
    grid_coords,
    highpass_error,
    linear_gradient_model,
    marmousi_like,
    power_law_exponent,
    relative_model_error,
    representation_ntk,
    ssim,
    surface_acquisition,
    wave_ntk_topk,
)
from iclr26.science.ig_fwi.claim_check import ig_beats_baselines

D = torch.float64


def test_pixel_grid_ntk_is_the_identity():
    theta = representation_ntk(PixelGrid(5, 7).double(), grid_coords(5, 7, D))
    assert torch.equal(theta, torch.eye(35, dtype=D))


@pytest.mark.parametrize(
    "rep",
    [
        SirenRep(hidden=16),
        FourierFeatureRep(sigma=2.0, n_features=8, hidden=16),
        MultiResGridRep(levels=3, base_res=4),
        IGRep(levels=3, base_res=4, hidden=16),
    ],
)
def test_ntk_is_symmetric_psd(rep):
    torch.manual_seed(0)
    theta = representation_ntk(rep.double(), grid_coords(6, 8, D))
    assert torch.allclose(theta, theta.T, atol=1e-12)
    lam = torch.linalg.eigvalsh(theta)
    assert float(lam.min()) > -1e-8 * float(lam.max())


@pytest.mark.parametrize("alpha", [0.0, 0.3, 1.0])
def test_ig_linear_head_ntk_splits_exactly(alpha):
    torch.manual_seed(1)
    rep = IGRep(alpha=alpha, levels=3, base_res=4, hidden=16).double()
    with torch.no_grad():  # give the grid tables non-trivial values
        for t in rep.grid.tables:
            t.normal_()
    coords = grid_coords(6, 8, D)
    theta = representation_ntk(rep, coords)
    theta_h = representation_ntk(rep, coords, branch="grid")
    theta_i = representation_ntk(rep, coords, branch="siren")
    expected = alpha * theta_h + (1 - alpha) * theta_i + 1.0
    assert float((theta - expected).norm() / theta.norm()) < 1e-6


def _tiny(nt=80):
    src, rec = surface_acquisition(8, 2)
    return AcousticFD2D(
        8, 8, 20.0, 0.003, src, rec, ricker(12.0, nt, 0.003, dtype=D), pml_width=4, v_max=3000.0
    )


def _jacobian(op, v):
    lin = op.linearize(v)
    cols = [lin.jvp(e.view(v.shape)).reshape(-1) for e in torch.eye(v.numel(), dtype=D)]
    return torch.stack(cols, dim=1)


def test_wave_ntk_changes_with_the_model_for_a_frozen_pixel_kernel():
    op = _tiny()
    v0 = torch.full((8, 8), 2000.0, dtype=D)
    dv = 300.0 * torch.rand(8, 8, generator=torch.Generator().manual_seed(0), dtype=D)
    k0 = (lambda j: j.T @ j)(_jacobian(op, v0))  # same nonzero spectrum and Frobenius norm as J J^T
    k1 = (lambda j: j.T @ j)(_jacobian(op, v0 + dv))
    assert float((k1 - k0).norm() / k0.norm()) > 1e-3


def test_wave_ntk_topk_matches_the_dense_spectrum():
    op = _tiny(nt=60)
    torch.manual_seed(0)
    rep = SirenRep(hidden=8).double()
    v = torch.full((8, 8), 2200.0, dtype=D)
    j = _jacobian(op, v)
    theta = representation_ntk(rep, grid_coords(8, 8, D)) * 1000.0**2
    dense = torch.linalg.eigvalsh(j @ theta @ j.T).flip(0)[:3].numpy()
    top = wave_ntk_topk(rep, op, v, k=3, tol=1e-10)
    assert np.allclose(top, dense, rtol=1e-6)
    pix = wave_ntk_topk(PixelGrid(8, 8), op, v, k=2, tol=1e-10)
    assert np.allclose(pix, torch.linalg.eigvalsh(j @ j.T).flip(0)[:2].numpy() * 1e6, rtol=1e-6)


def _slow_ssim(x, y, win=7):
    rng = y.max() - y.min()
    c1, c2 = (0.01 * rng) ** 2, (0.03 * rng) ** 2
    p = win // 2
    vals = []
    for i in range(p, x.shape[0] - p):
        for j in range(p, x.shape[1] - p):
            a, b = (
                x[i - p : i + p + 1, j - p : j + p + 1].ravel(),
                y[i - p : i + p + 1, j - p : j + p + 1].ravel(),
            )
            ma, mb = a.mean(), b.mean()
            va, vb, cab = a.var(ddof=1), b.var(ddof=1), np.cov(a, b)[0, 1]
            vals.append((2 * ma * mb + c1) * (2 * cab + c2) / ((ma**2 + mb**2 + c1) * (va + vb + c2)))
    return float(np.mean(vals))


def test_ssim_matches_a_window_by_window_loop_and_its_invariants():
    rng = np.random.default_rng(0)
    y = rng.normal(size=(16, 20))
    x = y + 0.3 * rng.normal(size=y.shape)
    assert ssim(x, y) == pytest.approx(_slow_ssim(x, y), rel=1e-10)
    assert ssim(y, y) == pytest.approx(1.0)
    assert ssim(x, y) < 1.0


def test_model_error_metrics_and_power_law_fit():
    vt = marmousi_like(24, 48, 40.0)
    assert float(vt.min()) == 1500.0 and float(vt.max()) == 4200.0 and bool((vt[0] == 1500.0).all())
    assert relative_model_error(vt, vt) == 0.0 and highpass_error(vt, vt) == 0.0
    assert relative_model_error(2 * vt, vt) == pytest.approx(1.0)
    j = np.arange(1, 301)
    assert power_law_exponent(3.0 * j**-1.7) == pytest.approx(1.7)
    assert power_law_exponent(np.ones(300)) == pytest.approx(0.0, abs=1e-12)


def test_fwi_fit_lowers_the_misfit():
    src, rec = surface_acquisition(16, 2)
    op = AcousticFD2D(12, 16, 40.0, 0.004, src, rec, nt=120, freq=4.0)
    vt = marmousi_like(12, 16, 40.0)
    d = op(vt)
    hist = fwi_fit(PixelGrid(12, 16), op, d, linear_gradient_model(12, 16), 6, OptConfig(), v_true=vt)
    assert len(hist.loss) == 7 and hist.loss[-1] < hist.loss[0]
    assert len(hist.model_error) == len(hist.ssim) == len(hist.highpass_error) == 7


def _rows(ig, inr, grid, good):
    return [
        {
            "err_ig": ig + 1e-3 * i,
            "err_inr": inr + 2e-3 * i,
            "err_grid": grid,
            "err_grid_good": good if i == 0 else float("nan"),
        }
        for i in range(3)
    ]


def test_claim_rule_three_ways_and_the_cycle_skipping_guard():
    assert ig_beats_baselines(_rows(0.10, 0.15, 0.23, 0.05)).outcome is Outcome.SUPPORTED
    assert ig_beats_baselines(_rows(0.16, 0.15, 0.23, 0.05)).outcome is Outcome.NOT_SUPPORTED
    assert ig_beats_baselines(_rows(0.148, 0.15, 0.23, 0.05)).outcome is Outcome.INCONCLUSIVE  # < 5% better
    skip = ig_beats_baselines(_rows(0.10, 0.15, 0.23, 0.22))
    assert skip.outcome is Outcome.INCONCLUSIVE and "no cycle skipping" in skip.explanation
