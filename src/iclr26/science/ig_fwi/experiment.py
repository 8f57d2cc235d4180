"""Reproduction of IG-FWI (ICLR 2026, arXiv 2603.22362) on a code-generated Marmousi-like model, CPU fallback.

One harness seed = one network initialisation and one noise draw (the true model is fixed). Survey (the brief's
PyTorch fallback): 24 x 48 cells, dx = 40 m, dt = 4 ms, nt = 300 (1.2 s), a 3.5 Hz Ricker wavelet, 6 surface
shots, a receiver at every surface node, 1% Gaussian noise; the same solver makes and inverts the data.

From the poor start (a 1500 -> 3000 m/s linear gradient), 150 Adam iterations each of FWI-grid (PixelGrid),
INR-FWI (SIREN 2 x 64) and IG-FWI (alpha = 0.5, linear head); in seed 0 also FWI-grid from the good start (true
model smoothed with sigma = 6 cells), the reference of the cycle-skipping check. At init, each representation's
NTK Theta on all 1,152 nodes and the power-law exponent of its top-200 eigenvalues; in seed 0 the top-k
eigenvalues of K_wave = J Theta J^T for IG-FWI at init and at the end.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from iclr26.harness.claims import Claim, Precondition, all_of, difference_at_least
from iclr26.harness.experiment import Curve, Experiment, Metrics
from iclr26.harness.progress import task
from iclr26.science.ig_fwi.claim_check import ig_beats_baselines
from iclr26.science.ig_fwi.figures import error_curves, kwave_spectra, models, ntk_spectra
from iclr26.science.ig_fwi.fwi import OptConfig, fwi_fit, velocity
from iclr26.science.ig_fwi.models import (
    AcousticFD2D,
    linear_gradient_model,
    marmousi_like,
    smoothed_model,
    surface_acquisition,
)
from iclr26.science.ig_fwi.ntk import power_law_exponent, representation_ntk, subsample_nodes, wave_ntk_topk
from iclr26.science.ig_fwi.representations import IGRep, PixelGrid, SirenRep, grid_coords

__all__ = ["EXPERIMENT", "IGFWIConfig", "make_representation", "run"]

SALT = 2603_22362


@dataclass(frozen=True)
class IGFWIConfig:
    """One budget of the IG-FWI reproduction."""

    nz: int = 24
    nx: int = 48
    dx: float = 40.0
    dt: float = 0.004
    nt: int = 300
    freq: float = 3.5
    n_shots: int = 6
    pml_width: int = 10
    noise: float = 0.01
    iters: int = 150
    alpha: float = 0.5
    head: str = "linear"
    good_sigma: float = 6.0
    hp_sigma: float = 2.0
    hp_check_iter: int = 75
    ntk_top: int = 200
    kwave_k: int = 3  # 0: skip K_wave
    ntk_nodes: int = 1500
    model_seed: int = 2603

    def __post_init__(self) -> None:
        if self.hp_check_iter > self.iters:
            raise ValueError(f"hp_check_iter ({self.hp_check_iter}) must be <= iters ({self.iters})")


def make_representation(method: str, cfg: IGFWIConfig) -> PixelGrid | SirenRep | IGRep:
    """grid (FWI-grid), inr (INR-FWI, SIREN) or ig (IG-FWI)."""
    if method == "grid":
        return PixelGrid(cfg.nz, cfg.nx)
    if method == "inr":
        return SirenRep()
    if method == "ig":
        return IGRep(alpha=cfg.alpha, head=cfg.head)
    raise ValueError(f"method must be one of 'grid', 'inr', 'ig', got {method!r}")


def run(cfg: IGFWIConfig, seed: int, device: str) -> Metrics:
    """One replication: data with this seed's noise, three inversions from the poor start, kernels at init."""
    torch.manual_seed(SALT + seed)
    v_true = marmousi_like(cfg.nz, cfg.nx, cfg.dx, cfg.model_seed)
    src, rec = surface_acquisition(cfg.nx, cfg.n_shots)
    op = AcousticFD2D(
        cfg.nz, cfg.nx, cfg.dx, cfg.dt, src, rec, nt=cfg.nt, freq=cfg.freq, pml_width=cfg.pml_width
    )
    with torch.no_grad():
        clean = op(v_true)
    gen = torch.Generator().manual_seed(SALT + seed)
    d_obs = clean + cfg.noise * clean.square().mean().sqrt() * torch.randn(clean.shape, generator=gen)
    v_poor = linear_gradient_model(cfg.nz, cfg.nx)
    opt = OptConfig(hp_sigma=cfg.hp_sigma)
    coords = grid_coords(cfg.nz, cfg.nx)[subsample_nodes(cfg.nz * cfg.nx, cfg.ntk_nodes)]
    values: dict[str, float] = {}
    curves: dict[str, Curve] = {}
    art: dict = {"v_true": v_true.tolist(), "v_poor": v_poor.tolist(), "spectra": {}, "kwave": {}}
    runs = [("grid", v_poor), ("inr", v_poor), ("ig", v_poor)] + ([("grid_good", None)] if seed == 0 else [])
    with task("ig-fwi inversions", total=len(runs)) as bar:
        for name, v0 in runs:
            method = "grid" if name == "grid_good" else name
            if v0 is None:
                v0 = smoothed_model(v_true, cfg.good_sigma)
            torch.manual_seed(SALT + 7919 * seed + len(name))
            rep = make_representation(method, cfg)
            if name != "grid_good":
                theta = representation_ntk(rep, coords).double()
                lam = torch.linalg.eigvalsh(theta).flip(0).clamp_min(0).numpy()
                values[f"ntk_exp_{name}"] = power_law_exponent(lam, cfg.ntk_top)
                art["spectra"][name] = lam[: cfg.ntk_top].tolist()
            if name == "ig" and seed == 0 and cfg.kwave_k:
                v_init = velocity(rep, v_poor, opt)
                full = theta if coords.shape[0] == cfg.nz * cfg.nx else None  # Theta on every node
                kw = wave_ntk_topk(rep, op, v_init, cfg.kwave_k, tol=1e-2, theta=full)
                art["kwave"]["init"] = kw.tolist()
            hist = fwi_fit(rep, op, d_obs, v0, cfg.iters, opt, v_true=v_true)
            it = list(range(len(hist.loss)))
            values[f"err_{name}"] = hist.model_error[-1]
            values[f"ssim_{name}"] = hist.ssim[-1]
            values[f"hp_{name}"] = hist.highpass_error[-1]
            values[f"hp_mid_{name}"] = hist.highpass_error[cfg.hp_check_iter]
            values[f"loss_ratio_{name}"] = hist.loss[-1] / hist.loss[0]
            curves[f"err_{name}"] = Curve(it, hist.model_error, "iteration", "relative model error")
            curves[f"hp_{name}"] = Curve(it, hist.highpass_error, "iteration", "high-pass error")
            curves[f"ssim_{name}"] = Curve(it, hist.ssim, "iteration", "SSIM")
            art[f"v_{name}"] = np.round(hist.v_final.numpy(), 1).tolist()
            if name == "ig" and seed == 0 and cfg.kwave_k:
                art["kwave"]["end"] = wave_ntk_topk(rep, op, hist.v_final, cfg.kwave_k, tol=1e-2).tolist()
                a, b = np.array(art["kwave"]["init"]), np.array(art["kwave"]["end"])
                values["kwave_change_ig"] = float(np.linalg.norm(b - a) / np.linalg.norm(a))
            bar.advance()
    values.setdefault("err_grid_good", float("nan"))
    values["err_init_poor"] = float(np.linalg.norm(v_poor - v_true) / np.linalg.norm(v_true))
    return Metrics(values=values, curves=curves, artifacts=art)


IG_FITS = Precondition(
    "loss_ratio_ig",
    "<",
    0.9,
    "IG-FWI's data misfit ends at least 10% below the initial model's (the trivial baseline: no update)",
)

EXPERIMENT = Experiment(
    slug="ig-fwi",
    configs={
        "smoke": IGFWIConfig(
            n_shots=2, nt=200, iters=5, hp_check_iter=3, kwave_k=0, ntk_nodes=150, ntk_top=50
        ),
        "quick": IGFWIConfig(),
        "full": IGFWIConfig(iters=600),
    },
    seeds={"smoke": 1, "quick": 3, "full": 5},
    run=run,
    claims=[
        Claim(
            id="ig-beats-inr-and-grid",
            statement=(
                "From a poor initial model that cycle-skips conventional FWI, IG-FWI (alpha = 0.5) ends with a "
                "relative model error at least 5% below both INR-FWI and FWI-grid (paired interval vs INR < 0)"
            ),
            paper_value=(
                "IG-FWI beats conventional FWI and INR-FWI in model error and SSIM on Marmousi, SEG/EAGE Salt "
                "and Overthrust, BP 2004, Chevron 2014 (no exact values seen)"
            ),
            decide=ig_beats_baselines,
            scale_gap="24 x 48 code-generated model, 6 shots, 3.5 Hz, 150 Adam iterations, 3 seeds",
            preconditions=(IG_FITS,),
        ),
        Claim(
            id="ntk-decay-ordering",
            statement=(
                "Mechanism: the power-law exponent of the top-200 representation-NTK eigenvalues at init is "
                "ordered grid < IG < INR (alpha interpolates the decay)"
            ),
            paper_value="INR: fast eigenvalue decay; pixel grid: flat spectrum; IG in between (qualitative)",
            decide=all_of(
                difference_at_least("ntk_exp_inr", "ntk_exp_ig"),
                difference_at_least("ntk_exp_ig", "ntk_exp_grid"),
            ),
            scale_gap="NTK on the 1,152 nodes of the 24 x 48 grid, at initialisation only",
        ),
        Claim(
            id="ig-high-wavenumber-sooner",
            statement="Mechanism: IG-FWI's high-pass (sigma = 2 cells) model error is below INR-FWI's by iteration 75",
            paper_value="INR-FWI converges slowly on high-wavenumber detail; IG-FWI recovers it faster (qualitative)",
            decide=difference_at_least("hp_mid_ig", "hp_mid_inr", higher_is_better=False),
            scale_gap="one frequency band (3.5 Hz), 24 x 48 cells",
        ),
    ],
    figures=[models, error_curves, ntk_spectra, kwave_spectra],
    scale_gap=(
        "A 24 x 48 Marmousi-like model on the pure-PyTorch solver (deepwave's interior scheme), 6 shots, 150 iterations and "
        "3 seeds, instead of five benchmark models at full scale with frequency continuation."
    ),
)
