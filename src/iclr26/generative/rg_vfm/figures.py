"""Figures of the RG-VFM reproduction (arXiv 2502.12981); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Circle

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
    fig = Figure(figsize=(2.4 * len(names), 2.5 * len(tasks)), layout="constrained")
    axes = np.atleast_2d(fig.subplots(len(tasks), len(names)))
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
    fig = Figure(figsize=(9, 3.2), layout="constrained")
    for ax, task in zip(fig.subplots(1, 2), TASKS):
        keys = sorted({k for r in results for k in r.curves if k.startswith(f"{task}_")})
        for key in keys:
            cs = [r.curves[key] for r in results if key in r.curves]
            ys = np.mean([np.asarray(c["y"], dtype=float) for c in cs], axis=0)
            ax.plot(cs[0]["x"], ys, "o-", label=key.split("_", 1)[1].removesuffix("_incell"))
        ax.set(xlabel="training step", ylabel="in-cell rate", title=task, ylim=(0, 1.02))
        if keys:
            ax.legend(fontsize=7)
    return fig


def jacobi_histogram(results: Sequence[SeedResult]) -> Figure:
    """|J(1)|^2 - |J'(0)|^2 = d(mu, x1)^2 - |log mu - log x1|^2 on training pairs: < 0 on S^2, > 0 on H^2."""
    fig = Figure(figsize=(5, 3.2), layout="constrained")
    ax = fig.subplots()
    for task in TASKS:
        vals = np.concatenate(
            [np.asarray(r.artifacts[task]["jacobi_gap"]) for r in results if task in r.artifacts]
        )
        if vals.size:
            ax.hist(vals, bins=40, alpha=0.6, label=task)
    ax.axvline(0, color="k", lw=0.8)
    ax.set(xlabel="|J(1)|^2 - |J'(0)|^2", ylabel="pairs")
    ax.legend()
    return fig
