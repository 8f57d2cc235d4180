"""Figures of the hybrid ZO/FO reproduction (arXiv 2604.09940); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import curve_matrix, legend, new_figure, note, plot_band
from iclr26.harness.store import SeedResult

__all__ = ["accuracy_vs_cost", "accuracy_vs_step", "hybrid_lr_grid"]


def accuracy_vs_step(results: Sequence[SeedResult]) -> Figure:
    """Task-B test accuracy against optimizer step for each method (mean over seeds)."""
    fig, ax = new_figure(width=5, height=3.4)
    for m in results[0].artifacts["methods"]:
        plot_band(
            ax, *curve_matrix(results, f"acc_{m}"), interval=None, label=m, lw=2.5 if m == "hybrid" else 1.2
        )
    ax.set(xlabel="optimizer step", ylabel="task-B test accuracy")
    legend(ax)
    return fig


def accuracy_vs_cost(results: Sequence[SeedResult]) -> Figure:
    """Task-B test accuracy against cost in forward-pass equivalents (a backward pass counted as two)."""
    fig, ax = new_figure(width=5, height=3.4)
    cost = results[0].artifacts["pass_cost"]
    for m in results[0].artifacts["methods"]:
        x, Y = curve_matrix(results, f"acc_{m}")
        plot_band(ax, x * float(cost[m]), Y, interval=None, label=m, lw=2.5 if m == "hybrid" else 1.2)
    ax.set(xlabel="forward-pass equivalents", ylabel="task-B test accuracy")
    legend(ax)
    return fig


def hybrid_lr_grid(results: Sequence[SeedResult]) -> Figure:
    """Hybrid's tuning-seed accuracy over the (eta_theta, eta_phi) learning-rate grid."""
    fig, ax = new_figure(width=4.2, height=3.4)
    tune = results[0].artifacts["tuning"].get("hybrid")
    if tune is None:
        note(ax, "no hybrid run")
        return fig
    grid = np.asarray(tune["grid"], dtype=float)
    zs, fs = sorted(set(grid[:, 0])), sorted(set(grid[:, 1]))
    table = np.full((len(zs), len(fs)), np.nan)
    for (z, f), a in zip(grid, tune["acc"]):
        table[zs.index(z), fs.index(f)] = a
    im = ax.imshow(table, origin="lower", cmap="viridis", aspect="auto")
    ax.set_xticks(range(len(fs)), [f"{v:.0e}" for v in fs])
    ax.set_yticks(range(len(zs)), [f"{v:.0e}" for v in zs])
    ax.set(xlabel="eta_phi (LoRA, Adam)", ylabel="eta_theta (base, SPSA)")
    fig.colorbar(im, ax=ax, label="tuning accuracy")
    return fig
