"""Figures of the IG-FWI reproduction, drawn from stored per-seed results (first docstring line: the caption).

Paper: "Unveiling the Mechanism of Continuous Representation Full-Waveform Inversion" (ICLR 2026, arXiv
2603.22362).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import legend, new_figure, note, seed_band

__all__ = ["error_curves", "kwave_spectra", "models", "ntk_spectra"]

LABELS = {
    "grid": "FWI-grid",
    "inr": "INR-FWI (SIREN)",
    "ig": "IG-FWI (alpha 0.5)",
    "grid_good": "FWI-grid, good start",
}


def models(results: Sequence[Any]) -> Figure:
    """True and poor initial models and the inverted models of seed 0 (m/s)."""
    art = results[0].artifacts if results else {}
    panels = [("true", "v_true"), ("initial (poor)", "v_poor")] + [
        (LABELS[k], f"v_{k}") for k in ("grid", "inr", "ig", "grid_good") if f"v_{k}" in art
    ]
    fig, axes = new_figure(
        ncols=2, nrows=(len(panels) + 1) // 2, width=9, height=1.9 * ((len(panels) + 1) // 2), flat=True
    )
    if "v_true" not in art:
        note(axes[0], "no models stored")
        return fig
    lo, hi = float(np.min(art["v_true"])), float(np.max(art["v_true"]))
    for ax, (title, key) in zip(axes, panels):
        im = ax.imshow(np.asarray(art[key]), vmin=lo, vmax=hi, cmap="viridis", aspect="auto")
        ax.set_title(title, fontsize=8)
        ax.set_xticks([])
        ax.set_yticks([])
    for ax in axes[len(panels) :]:
        ax.set_axis_off()
    fig.colorbar(im, ax=list(axes), shrink=0.8)
    return fig


def error_curves(results: Sequence[Any]) -> Figure:
    """Relative model error (left) and high-pass error (right) vs Adam iteration (band: min-max over seeds)."""
    fig, (left, right) = new_figure(ncols=2, width=10, height=3.6)
    for key in ("grid", "inr", "ig", "grid_good"):
        for ax, prefix in ((left, "err"), (right, "hp")):
            have = [r for r in results if f"{prefix}_{key}" in r.curves]
            if have:
                seed_band(
                    ax, have, f"{prefix}_{key}", label=LABELS[key], ls="--" if key == "grid_good" else "-"
                )
    left.set_ylabel("||v - v*|| / ||v*||")
    right.set_ylabel("high-pass (sigma 2 cells) error")
    for ax in (left, right):
        ax.set_xlabel("iteration")
        legend(ax, fontsize=7)
    return fig


def ntk_spectra(results: Sequence[Any]) -> Figure:
    """Eigenvalues of the representation NTK Theta_G at init (log-log, seed 0), normalised by the largest."""
    fig, ax = new_figure(width=5, height=3.6)
    spectra = results[0].artifacts.get("spectra", {}) if results else {}
    if not spectra:
        note(ax, "no spectra stored")
        return fig
    for key, lam in spectra.items():
        lam = np.asarray(lam, dtype=float)
        lam = lam[lam > 0]
        exp = results[0].metrics.get(f"ntk_exp_{key}", float("nan"))
        ax.loglog(np.arange(1, lam.size + 1), lam / lam[0], label=f"{LABELS[key]} (p = {exp:.2f})")
    ax.set_xlabel("eigenvalue index j")
    ax.set_ylabel("lambda_j / lambda_1")
    legend(ax, fontsize=7)
    return fig


def kwave_spectra(results: Sequence[Any]) -> Figure:
    """Top-k eigenvalues of the wave-based NTK K = J Theta J^T for IG-FWI, at init and after inversion (seed 0)."""
    fig, ax = new_figure(width=5, height=3.6)
    kw = results[0].artifacts.get("kwave", {}) if results else {}
    if not kw:
        note(ax, "K_wave not computed at this budget")
        return fig
    for when, marker in (("init", "o"), ("end", "s")):
        if when in kw:
            lam = np.asarray(kw[when], dtype=float)
            ax.semilogy(np.arange(1, lam.size + 1), lam, marker=marker, label=when)
    ax.set_xlabel("index")
    ax.set_ylabel("eigenvalue of K_wave")
    legend(ax, fontsize=7)
    return fig
