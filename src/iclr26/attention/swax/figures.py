"""Figures of the SWAX reproduction (arXiv 2509.24552); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import grouped_bars, legend, metric_values, new_figure, seed_band
from iclr26.harness.store import SeedResult

__all__ = ["local_accuracy_curves", "recall_vs_distance", "tradeoff_bars"]


def recall_vs_distance(results: Sequence[SeedResult]) -> Figure:
    """Recall accuracy against query distance per condition (mean over seeds), window sizes marked."""
    art = results[0].artifacts
    fig, axes = new_figure(ncols=2, width=9, height=3.4)
    for ax, part, title in zip(
        axes, ("main", "extrap"), (f"T = {art['seq_len']} (training length)", f"T = {art['extrap_len']}")
    ):
        for cond in art["conditions"]:
            xs = [r.artifacts["by_distance"][cond][part][0] for r in results]
            ys = [r.artifacts["by_distance"][cond][part][1] for r in results]
            n = min(len(y) for y in ys)
            if n == 0:
                continue
            ax.plot(np.mean([x[:n] for x in xs], 0), np.mean([y[:n] for y in ys], 0), "o-", label=cond)
        for w, style in ((art["w_short"], ":"), (art["w_long"], "--")):
            ax.axvline(w, color="gray", ls=style, lw=1)
        ax.set(xlabel="query distance (tokens)", ylabel="recall accuracy", title=title, ylim=(-0.02, 1.02))
    legend(axes[0])
    return fig


def local_accuracy_curves(results: Sequence[SeedResult]) -> Figure:
    """Local-induction and recall accuracy against training step per condition (mean over seeds)."""
    conds = results[0].artifacts["conditions"]
    fig, axes = new_figure(ncols=2, width=9)
    for ax, key in zip(axes, ("local_acc", "recall_acc")):
        for cond in conds:
            seed_band(ax, results, f"{cond}_{key}", interval=None, ragged="truncate", label=cond)
        ax.set(xlabel="step", ylabel=key.replace("_", " "), ylim=(-0.02, 1.02))
    legend(axes[0])
    return fig


def _metric(cond: str, key: str) -> str:
    return f"stochastic_{key}_at_short" if cond == "stochastic_at_short" else f"{cond}_{key}"


def tradeoff_bars(results: Sequence[SeedResult]) -> Figure:
    """Short- vs long-context trade-off: local, recall and extrapolated recall accuracy per condition."""
    conds = list(results[0].artifacts["conditions"])
    if "stochastic" in conds:
        conds.append("stochastic_at_short")
    keys = ("local_acc", "recall_acc", "extrap_recall_acc")
    fig, ax = new_figure(width=8)
    series = {
        key.replace("_", " "): [metric_values(results, _metric(c, key), required=False) for c in conds]
        for key in keys
    }
    grouped_bars(ax, conds, series, tick_kw={"fontsize": 7})
    ax.set(ylabel="accuracy", ylim=(0, 1.05))
    legend(ax)
    return fig
