"""Figures of the continuous-thought superposition reproduction (arXiv 2509.23365); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import legend, metric_values, new_figure, seed_band, seed_bars
from iclr26.harness.store import SeedResult

__all__ = ["accuracy_bars", "attention_heatmap", "frontier_plot", "mu_trajectory"]


def _stage_lines(ax, result: SeedResult) -> None:
    bounds = np.cumsum(result.artifacts["epochs_per_stage"])[:-1]
    for b in bounds:
        ax.axvline(b, color="0.8", lw=0.8, zorder=0)


def mu_trajectory(results: Sequence[SeedResult]) -> Figure:
    """Index-matching logit mu vs epoch per seed (separator-token keys; dashed: target-token keys); grey = stages."""
    fig, ax = new_figure(width=5.5, height=3.4)
    for r in results:
        c = r.curves["mu"]
        line = ax.plot(c["x"], c["y"], "o-", ms=3, label=f"seed {r.seed}")
        t = r.curves["mu_tgt"]
        ax.plot(t["x"], t["y"], "--", color=line[0].get_color(), lw=0.8)
    _stage_lines(ax, results[0])
    ax.set(xlabel="epoch", ylabel="mu (logit gap, nats)", title="index-matching logit on held-out graphs")
    legend(ax)
    return fig


def frontier_plot(results: Sequence[SeedResult]) -> Figure:
    """Decoded-thought mass on the frontier R_c and normalised entropy inside it vs epoch (mean over seeds)."""
    fig, axes = new_figure(ncols=2, width=9)
    depth = int(results[0].artifacts["depth"])
    for c in range(1, depth + 1):
        for ax, key in zip(axes, ("mass", "entropy")):
            seed_band(ax, results, f"{key}_step{c}", interval=None, label=f"thought {c}")
    for ax, lab in zip(axes, ("mass on R_c", "normalised entropy in R_c")):
        _stage_lines(ax, results[0])
        ax.set(xlabel="epoch", ylabel=lab, ylim=(0, 1.05))
    legend(axes[0])
    return fig


def attention_heatmap(results: Sequence[SeedResult]) -> Figure:
    """Last-layer attention logits thought 1 -> edge separator tokens (index-matching head), 8 graphs, two epochs."""
    heat = results[0].artifacts["heatmap"]
    keys = sorted(heat, key=int)
    fig, axes = new_figure(ncols=len(keys), flat=True)
    for ax, k in zip(axes, keys):
        s = np.asarray(heat[k]["scores"])
        f = np.asarray(heat[k]["frontier"])
        im = ax.imshow(s, aspect="auto", cmap="viridis")
        ys, xs = np.nonzero(f)
        ax.scatter(xs, ys, marker="o", facecolors="none", edgecolors="r", s=30, label="frontier edge")
        ax.set(xlabel="edge (prompt order)", ylabel="graph", title=f"epoch {k}, head {heat[k]['head']}")
        fig.colorbar(im, ax=ax)
    legend(axes[0], loc="upper right")
    return fig


def accuracy_bars(results: Sequence[SeedResult]) -> Figure:
    """Held-out accuracy of each trained method (mean and per-seed points; chance between candidates = 0.5)."""
    methods = list(results[0].artifacts["methods"])
    fig, ax = new_figure()
    values = [metric_values(results, f"acc_{m}") for m in methods]
    seed_bars(
        ax, range(len(methods)), values, color=["C0" if m.startswith("coconut") else "C7" for m in methods]
    )
    ax.axhline(0.5, ls=":", color="0.5")
    ax.set_xticks(range(len(methods)), methods)
    ax.set(ylabel="accuracy", ylim=(0, 1.05))
    return fig
