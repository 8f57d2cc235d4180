"""Figures of the RG-VFM reproduction (arXiv 2502.12981); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Circle

from iclr26.harness.figures import legend, new_figure, seed_band
from iclr26.harness.store import SeedResult

__all__ = ["incell_curves", "jacobi_histogram", "sample_scatter"]

TASKS = ("s2", "h2")


def _poincare(x: np.ndarray) -> np.ndarray:
    return x[:, 1:] / (x[:, :1] + 1.0)


def sample_scatter(results: Sequence[SeedResult]) -> Figure:
    """Samples of every method (first seed): S^2 in orthographic view from +z, H^2 on the Poincare disk."""
    art = results[0].artifacts
    tasks = [t for t in TASKS if t in art]
    names = ["data", *art["s2"]["samples"]]
    fig, axes = new_figure(
        ncols=len(names), nrows=len(tasks), width=2.4 * len(names), height=2.5 * len(tasks), squeeze=False
    )
    for row, task in zip(axes, tasks):
        for ax, name in zip(row, names):
            pts = art[task]["data"] if name == "data" else art[task]["samples"].get(name)
            ax.set_xticks([])
            ax.set_yticks([])
            ax.set_aspect("equal")
            if not pts:
                ax.axis("off")
                continue
            x = np.asarray(pts)
            if task == "s2":
                front = x[:, 2] > 0
                ax.scatter(x[front, 0], x[front, 1], s=2)
            else:
                p = _poincare(x)
                ax.scatter(p[:, 0], p[:, 1], s=2)
                ax.add_patch(Circle((0, 0), 1, fill=False))
            ax.set(xlim=(-1.05, 1.05), ylim=(-1.05, 1.05), title=f"{task} {name}")
    return fig


def incell_curves(results: Sequence[SeedResult]) -> Figure:
    """In-cell rate of quick samples against training step, mean over seeds, per method and manifold."""
    fig, axes = new_figure(ncols=2, width=9)
    for ax, task in zip(axes, TASKS):
        for key in sorted({k for r in results for k in r.curves if k.startswith(f"{task}_")}):
            label = key.split("_", 1)[1].removesuffix("_incell")
            seed_band(ax, results, key, interval=None, marker="o", label=label)
        ax.set(xlabel="training step", ylabel="in-cell rate", title=task, ylim=(0, 1.02))
        legend(ax)
    return fig


def jacobi_histogram(results: Sequence[SeedResult]) -> Figure:
    """|J(1)|^2 - |J'(0)|^2 = d(mu, x1)^2 - |log mu - log x1|^2 on training pairs: < 0 on S^2, > 0 on H^2."""
    fig, ax = new_figure(width=5)
    for task in TASKS:
        vals = np.concatenate(
            [np.asarray(r.artifacts[task]["jacobi_gap"]) for r in results if task in r.artifacts]
        )
        if vals.size:
            ax.hist(vals, bins=40, alpha=0.6, label=task)
    ax.axvline(0, color="k", lw=0.8)
    ax.set(xlabel="|J(1)|^2 - |J'(0)|^2", ylabel="pairs")
    legend(ax, fontsize=None)
    return fig
