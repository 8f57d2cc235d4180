"""Figures of the FACT reproduction: agreement over training, feature-matrix heatmaps, RFM test accuracy."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.store import SeedResult

__all__ = ["agreement_curves", "feature_heatmaps", "grokking_curves"]

_STYLE = {"fact": ("FACT", "C0"), "agop": ("AGOP", "C1"), "agop_sqrt": ("AGOP^1/2", "C2")}


def _mean_curve(results: Sequence[SeedResult], name: str) -> tuple[np.ndarray, np.ndarray] | None:
    found = [r.curves[name] for r in results if name in r.curves]
    if not found:
        return None
    n = min(len(c["y"]) for c in found)
    return np.asarray(found[0]["x"][:n]), np.mean([c["y"][:n] for c in found], axis=0)


def agreement_curves(results: Sequence[SeedResult]) -> Figure:
    """Correlation of the first layer's W^T W with FACT, AGOP and AGOP^1/2 over training (mean over seeds), gradient norm dashed."""
    lambdas = results[0].artifacts.get("lambdas", [])
    fig = Figure(figsize=(5 * max(len(lambdas), 1), 3.8))
    axes = fig.subplots(1, max(len(lambdas), 1), squeeze=False)[0]
    for ax, lam in zip(axes, lambdas):
        tag = f"lam{lam:g}"
        for key, (label, color) in _STYLE.items():
            curve = _mean_curve(results, f"corr_{key}_{tag}")
            if curve is not None:
                ax.plot(*curve, color=color, label=label, marker=".")
        ax.set(
            title=f"lambda = {lam:g}",
            xlabel="step (last point: after L-BFGS)",
            ylabel="Pearson corr with W^T W",
        )
        grad = _mean_curve(results, f"grad_norm_{tag}")
        if grad is not None:
            twin = ax.twinx()
            twin.semilogy(*grad, color="grey", linestyle="--")
            twin.set_ylabel("gradient norm")
        ax.legend(loc="lower right")
    fig.tight_layout()
    return fig


def feature_heatmaps(results: Sequence[SeedResult]) -> Figure:
    """First-layer W^T W, FACT (symmetric part) and AGOP at the end of training, first seed, largest lambda."""
    lam = results[0].artifacts.get("lambdas", [0.0])[-1]
    mats = results[0].artifacts.get(f"matrices_lam{lam:g}", {})
    fig = Figure(figsize=(12, 3.8))
    axes = fig.subplots(1, 3)
    for ax, name in zip(axes, ("WtW", "FACT", "AGOP")):
        if name in mats:
            m = np.asarray(mats[name])
            vmax = float(np.abs(m).max()) or 1.0
            image = ax.imshow(m, cmap="RdBu_r", vmin=-vmax, vmax=vmax)
            fig.colorbar(image, ax=ax, shrink=0.8)
        ax.set_title(f"{name} (lambda = {lam:g}, seed {results[0].seed})")
    fig.tight_layout()
    return fig


def grokking_curves(results: Sequence[SeedResult]) -> Figure:
    """Modular-addition test accuracy per RFM iteration (thin: seeds; the dotted line is M = I kernel ridge)."""
    fig = Figure(figsize=(6, 4))
    ax = fig.subplots()
    for name, color in (("fact_rfm", "C0"), ("fact_geomean_rfm", "C2"), ("nfa_rfm", "C1")):
        for i, r in enumerate(results):
            if f"acc_{name}" in r.curves:
                c = r.curves[f"acc_{name}"]
                ax.plot(c["x"], c["y"], color=color, alpha=0.7, label=name if i == 0 else None)
    base = np.mean([r.metrics.get("acc_kernel_ridge", np.nan) for r in results])
    ax.axhline(base, color="grey", linestyle=":", label="M = I kernel ridge")
    ax.axhline(0.95, color="black", linewidth=0.5)
    ax.set(xlabel="RFM iteration", ylabel="test accuracy", ylim=(-0.02, 1.02))
    ax.legend()
    fig.tight_layout()
    return fig
