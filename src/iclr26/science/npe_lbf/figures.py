"""Figures of the NPE-LBF reproduction (OpenReview jsPQFNmnln); the first docstring line is the caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import legend, metric_values, new_figure, note, seed_bars
from iclr26.harness.store import SeedResult

__all__ = ["contours", "nll_bars", "sbc_histograms", "training_curves"]


def _families(results: Sequence[SeedResult], task: str) -> list[str]:
    return list(results[0].artifacts["tasks"][task]["families"])


def contours(results: Sequence[SeedResult]) -> Figure:
    """Two-moons posteriors for test observations (first seed): exact reference, then each trained family."""
    art = results[0].artifacts["tasks"].get("two_moons", {})
    cont = art.get("contours", {})
    names = [n for n in ("reference", *art.get("families", [])) if n in cont]
    n_x = len(cont[names[0]]) if names else 0
    if not names:
        fig, ax = new_figure(width=2.2, height=2.2)
        note(ax, "no two-moons contours stored")
        return fig
    fig, axes = new_figure(
        ncols=len(names), nrows=n_x, width=2.2 * len(names), height=2.2 * n_x, squeeze=False
    )
    lo, hi = art["low"], art["high"]
    for c, name in enumerate(names):
        for r in range(n_x):
            lp = np.asarray(cont[name][r], dtype=float)
            dens = np.exp(lp - lp.max())
            ax = axes[r][c]
            ax.imshow(
                dens.T, origin="lower", extent=(lo[0], hi[0], lo[1], hi[1]), cmap="viridis", aspect="auto"
            )
            ax.set_xticks([])
            ax.set_yticks([])
            if r == 0:
                ax.set_title(name, fontsize=8)
    return fig


def nll_bars(results: Sequence[SeedResult]) -> Figure:
    """Held-out NLL per task and family (mean over seeds, error bars: across-seed std); lower is better."""
    tasks = list(results[0].artifacts["tasks"])
    fig, axes = new_figure(ncols=len(tasks), width=3.2 * len(tasks), height=3, flat=True)
    for ax, task in zip(axes, tasks):
        fams = _families(results, task)
        nll = [metric_values(results, f"{task}_{f}_nll") for f in fams]
        seed_bars(ax, range(len(fams)), nll, interval="sd", dots=False, capsize=0, color="tab:blue")
        ax.set_xticks(range(len(fams)))
        ax.set_xticklabels(fams, rotation=30, fontsize=8)
        ax.set(title=task, ylabel="held-out NLL (nats)")
    return fig


def training_curves(results: Sequence[SeedResult]) -> Figure:
    """Validation NLL per epoch for every family and task (all seeds overlaid)."""
    tasks = list(results[0].artifacts["tasks"])
    fig, axes = new_figure(ncols=len(tasks), width=3.4 * len(tasks), height=3, flat=True)
    colors = {}
    for ax, task in zip(axes, tasks):
        for f in _families(results, task):
            col = colors.setdefault(f, f"C{len(colors)}")
            for i, r in enumerate(results):
                c = r.curves.get(f"{task}_{f}_val")
                if c:
                    ax.plot(c["x"], c["y"], color=col, alpha=0.8, label=f if i == 0 else None)
        ax.set(title=task, xlabel="epoch", ylabel="validation NLL")
        legend(ax)
    return fig


def sbc_histograms(results: Sequence[SeedResult]) -> Figure:
    """HPD-rank histograms (SBC, summed over seeds): flat = calibrated; a U shape = overconfident."""
    tasks = list(results[0].artifacts["tasks"])
    fams = sorted({f for t in tasks for f in _families(results, t)})
    fig, axes = new_figure(
        ncols=len(fams), nrows=len(tasks), width=2.2 * len(fams), height=2 * len(tasks), squeeze=False
    )
    for r_i, task in enumerate(tasks):
        for c_i, f in enumerate(fams):
            ax = axes[r_i][c_i]
            hists = [r.artifacts["tasks"][task]["ranks"].get(f) for r in results]
            hists = [h for h in hists if h is not None]
            if hists:
                h = np.sum(np.asarray(hists, dtype=float), axis=0)
                ax.bar(np.arange(len(h)) / len(h), h, width=1 / len(h), align="edge", color="tab:gray")
                ax.axhline(h.sum() / len(h), color="tab:red", lw=1)
            ax.set_xticks([])
            ax.set_yticks([])
            if r_i == 0:
                ax.set_title(f, fontsize=8)
            if c_i == 0:
                ax.set_ylabel(task, fontsize=8)
    return fig
