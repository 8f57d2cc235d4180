"""Figures of the IC-SSL reproduction (arXiv 2512.15934); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import legend, metric_mean, new_figure
from iclr26.harness.store import SeedResult

__all__ = ["accuracy_vs_labels", "decision_regions", "phi_vs_eigenvectors"]


def accuracy_vs_labels(results: Sequence[SeedResult]) -> Figure:
    """Query accuracy vs labels per class for every method, in-distribution and OOD (mean over seeds)."""
    lpcs = [int(v) for v in results[0].artifacts["labels_per_class"]]
    methods = results[0].artifacts["methods"]
    fig, axes = new_figure(ncols=2, width=9, height=3.4)
    for ax, split in zip(axes, ("id", "ood")):
        for m in methods:
            y = [metric_mean(results, f"acc_{m}_{split}_l{lpc}") for lpc in lpcs]
            ax.plot(lpcs, y, "o-", label=m, lw=2.5 if m == "icssl" else 1)
        ax.set(
            xlabel="labels per class",
            ylabel="query accuracy (%)",
            title=split.upper(),
            xscale="log",
            xticks=lpcs,
        )
        ax.set_xticklabels([str(v) for v in lpcs])
    legend(axes[0])
    return fig


def phi_vs_eigenvectors(results: Sequence[SeedResult]) -> Figure:
    """Moons task (PCA plane): 2nd/3rd true random-walk eigenvectors vs IC-SSL's learned basis aligned to them."""
    art = results[0].artifacts["moons"]
    xy = np.asarray(art["xy"])
    fig, axes = new_figure(ncols=2, nrows=2, width=8, height=5.5)
    for row, (key, name) in enumerate((("eigvecs", "true eigvec"), ("phi_aligned", "learned phi"))):
        vals = np.asarray(art[key])
        for col in range(2):
            ax = axes[row, col]
            ax.scatter(xy[:, 0], xy[:, 1], c=vals[:, col], cmap="coolwarm", s=14)
            ax.set(title=f"{name} {col + 2}", xticks=[], yticks=[])
    return fig


def decision_regions(results: Sequence[SeedResult]) -> Figure:
    """Decision regions on a 1-label-per-class moons task (PCA plane): IC-SSL vs plain labelled-only ICL."""
    art = results[0].artifacts["moons"]
    xy, y = np.asarray(art["xy"]), np.asarray(art["y_true"])
    lab = np.asarray(art["labelled"], dtype=int)
    fig, axes = new_figure(ncols=2, width=8, height=3.6)
    for ax, m in zip(axes, ("icssl", "plain_labelled")):
        ax.contourf(
            art["grid_x"],
            art["grid_y"],
            np.asarray(art["regions"][m]),
            levels=[-0.5, 0.5, 1.5],
            cmap="coolwarm",
            alpha=0.3,
        )
        ax.scatter(xy[:, 0], xy[:, 1], c=y, cmap="coolwarm", s=10)
        ax.scatter(xy[lab, 0], xy[lab, 1], c="k", marker="*", s=120)
        ax.set(title=m, xticks=[], yticks=[])
    return fig
