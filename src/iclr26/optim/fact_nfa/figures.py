"""Figures of the FACT reproduction: agreement over training, feature-matrix heatmaps, RFM test accuracy."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import legend, metric_mean, new_figure, seed_band
from iclr26.harness.store import SeedResult

__all__ = ["agreement_curves", "feature_heatmaps", "grokking_curves"]

_STYLE = {"fact": ("FACT", "C0"), "agop": ("AGOP", "C1"), "agop_sqrt": ("AGOP^1/2", "C2")}


def _has_curve(results: Sequence[SeedResult], name: str) -> bool:
    return any(name in r.curves for r in results)


def agreement_curves(results: Sequence[SeedResult]) -> Figure:
    """Correlation of the first layer's W^T W with FACT, AGOP and AGOP^1/2 over training (mean over seeds), gradient norm dashed."""
    lambdas = results[0].artifacts.get("lambdas", [])
    fig, axes = new_figure(ncols=max(len(lambdas), 1), width=5 * max(len(lambdas), 1), height=3.8, flat=True)
    for ax, lam in zip(axes, lambdas):
        tag = f"lam{lam:g}"
        for key, (label, color) in _STYLE.items():
            if _has_curve(results, f"corr_{key}_{tag}"):
                seed_band(
                    ax,
                    results,
                    f"corr_{key}_{tag}",
                    interval=None,
                    ragged="truncate",
                    color=color,
                    label=label,
                    marker=".",
                )
        ax.set(
            title=f"lambda = {lam:g}",
            xlabel="step (last point: after L-BFGS)",
            ylabel="Pearson corr with W^T W",
        )
        if _has_curve(results, f"grad_norm_{tag}"):
            twin = ax.twinx()
            seed_band(
                twin, results, f"grad_norm_{tag}", interval=None, ragged="truncate", color="grey", ls="--"
            )
            twin.set_yscale("log")
            twin.set_ylabel("gradient norm")
        legend(ax, fontsize=None, loc="lower right")
    return fig


def feature_heatmaps(results: Sequence[SeedResult]) -> Figure:
    """First-layer W^T W, FACT (symmetric part) and AGOP at the end of training, first seed, largest lambda."""
    lam = results[0].artifacts.get("lambdas", [0.0])[-1]
    mats = results[0].artifacts.get(f"matrices_lam{lam:g}", {})
    fig, axes = new_figure(ncols=3, width=12, height=3.8)
    for ax, name in zip(axes, ("WtW", "FACT", "AGOP")):
        if name in mats:
            m = np.asarray(mats[name])
            vmax = float(np.abs(m).max()) or 1.0
            image = ax.imshow(m, cmap="RdBu_r", vmin=-vmax, vmax=vmax)
            fig.colorbar(image, ax=ax, shrink=0.8)
        ax.set_title(f"{name} (lambda = {lam:g}, seed {results[0].seed})")
    return fig


def _readings(results: Sequence[SeedResult]) -> list[tuple[str, str]]:
    """(metric suffix, title) per RFM reading of the config: the first (judged) has no suffix."""
    readings = results[0].config.get("rfm_readings") or [{"name": "official"}]
    return [
        ("" if i == 0 else f"_{r['name']}", r["name"] + (" (judged)" if i == 0 else ""))
        for i, r in enumerate(readings)
    ]


def grokking_curves(results: Sequence[SeedResult]) -> Figure:
    """Modular-addition test accuracy per RFM iteration, one panel per RFM reading (thin: seeds; dotted: M = I kernel ridge)."""
    readings = _readings(results)
    fig, axes = new_figure(ncols=len(readings), width=6 * len(readings), height=4, flat=True)
    for ax, (tag, title) in zip(axes, readings):
        for name, color in (("fact_rfm", "C0"), ("fact_geomean_rfm", "C2"), ("nfa_rfm", "C1")):
            for i, r in enumerate(results):
                if f"acc_{name}{tag}" in r.curves:
                    c = r.curves[f"acc_{name}{tag}"]
                    ax.plot(c["x"], c["y"], color=color, alpha=0.7, label=name if i == 0 else None)
        base = metric_mean(results, f"acc_kernel_ridge{tag}", required=False)
        ax.axhline(base, color="grey", linestyle=":", label="M = I kernel ridge")
        ax.axhline(0.95, color="black", linewidth=0.5)
        ax.set(
            title=f"RFM setting: {title}", xlabel="RFM iteration", ylabel="test accuracy", ylim=(-0.02, 1.02)
        )
        ax.legend()
    return fig
