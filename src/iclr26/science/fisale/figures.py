"""Figures of the Fisale reproduction, drawn from stored per-seed results (first docstring line: the caption).

Paper: "Fisale: Neural Latent Arbitrary Lagrangian-Eulerian Grids for Fluid-Solid Interaction" (ICLR 2026, arXiv
2603.00792).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import legend, metric_values, new_figure, note, seed_band, seed_bars

__all__ = ["ale_grid_overlay", "domain_errors", "rollout_error", "vorticity_snapshots"]

MODELS = {
    "fisale": ("Fisale", "tab:red"),
    "transolver": ("TransolverLite", "tab:blue"),
    "nopcm": ("Fisale-noPCM", "tab:orange"),
    "staticgrid": ("Fisale-staticgrid", "tab:green"),
}
DOMAINS = ("solid", "fluid", "interface")


def domain_errors(results: Sequence[Any]) -> Figure:
    """One-step test relative L2 per domain (bars: mean over seeds, dots: seeds, error bars: 95% t)."""
    fig, ax = new_figure(width=6, height=3.6)
    names = [m for m in MODELS if results and all(f"l2_solid_{m}" in r.metrics for r in results)]
    if not names:
        note(ax, "no errors stored")
        return fig
    w = 0.8 / len(names)
    for j, m in enumerate(names):
        pos = np.arange(3) + (j - (len(names) - 1) / 2) * w
        groups = [metric_values(results, f"l2_{d}_{m}") for d in DOMAINS]
        interval = "t" if len(results) > 1 else None
        seed_bars(
            ax, pos, groups, width=w, interval=interval, color=MODELS[m][1], label=MODELS[m][0], alpha=0.8
        )
    ax.set_xticks(range(3), DOMAINS)
    ax.set_ylabel("one-step relative L2 (normalized)")
    legend(ax)
    return fig


def rollout_error(results: Sequence[Any]) -> Figure:
    """Rollout relative L2 (mean over domains and test trajectories) vs autoregressive step; band: seed range."""
    fig, ax = new_figure(width=6, height=3.6)
    drawn = False
    for m, (label, color) in MODELS.items():
        have = [r for r in results if f"rollout_{m}" in r.curves]
        if have:
            seed_band(ax, have, f"rollout_{m}", label=label, color=color)
            drawn = True
    if not drawn:
        note(ax, "no rollouts stored")
        return fig
    ax.set_xlabel("rollout step")
    ax.set_ylabel("relative L2 (normalized)")
    ax.set_yscale("log")
    legend(ax)
    return fig


def _body(ax, art) -> None:
    ring = np.asarray(art["interface_xy"])
    ring = np.vstack([ring, ring[:1]])
    ax.plot(ring[:, 0], ring[:, 1], "k-", lw=1.2)
    s = np.asarray(art["solid_xy"])
    ax.scatter(s[:, 0], s[:, 1], s=4, color="k")


def vorticity_snapshots(results: Sequence[Any]) -> Figure:
    """Vorticity on the fluid points of test trajectory 0 at step 20 (seed 0): truth and one-step predictions, body outline."""
    art = results[0].artifacts if results else {}
    keys = [k for k in ("vort_true", "vort_fisale", "vort_transolver") if k in art]
    fig, axes = new_figure(ncols=max(len(keys), 1), width=3.0 * max(len(keys), 1), height=3.2, flat=True)
    if not keys or "fluid_xy" not in art:
        note(axes[0], "no snapshots stored")
        return fig
    xy = np.asarray(art["fluid_xy"])
    lim = float(np.abs(np.asarray(art["vort_true"])).max())
    titles = {"vort_true": "true", "vort_fisale": "Fisale", "vort_transolver": "TransolverLite"}
    for ax, k in zip(axes, keys):
        ax.scatter(xy[:, 0], xy[:, 1], c=np.asarray(art[k]), cmap="RdBu_r", vmin=-lim, vmax=lim, s=6)
        _body(ax, art)
        ax.set_title(f"vorticity: {titles[k]}", fontsize=8)
        ax.set_aspect("equal")
        ax.set_xticks([])
        ax.set_yticks([])
    return fig


def ale_grid_overlay(results: Sequence[Any]) -> Figure:
    """Fisale's learned (moved) 8 x 8 latent ALE grid over the true vorticity and the body (seed 0, test frame 20)."""
    art = results[0].artifacts if results else {}
    fig, ax = new_figure(width=4.2, height=4.2)
    if "ale_grid" not in art or "vort_grid" not in art:
        note(ax, "no grid stored")
        return fig
    box = float(art.get("box", 2 * np.pi))
    ax.imshow(np.asarray(art["vort_grid"]), origin="lower", extent=(0, box, 0, box), cmap="RdBu_r", alpha=0.6)
    g = np.asarray(art["ale_grid"])
    side = int(round(np.sqrt(g.shape[0])))
    G = g.reshape(side, side, 2)
    for i in range(side):
        ax.plot(G[i, :, 0], G[i, :, 1], color="tab:green", lw=0.7)
        ax.plot(G[:, i, 0], G[:, i, 1], color="tab:green", lw=0.7)
    ax.scatter(g[:, 0], g[:, 1], s=8, color="tab:green", label="latent ALE grid nodes")
    _body(ax, art)
    ax.set_xlim(-1, box + 1)
    ax.set_ylim(-1, box + 1)
    ax.set_aspect("equal")
    legend(ax)
    return fig
