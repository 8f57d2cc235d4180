"""Figures of the SWAX reproduction (arXiv 2509.24552); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.store import SeedResult

__all__ = ["local_accuracy_curves", "recall_vs_distance", "tradeoff_bars"]


def recall_vs_distance(results: Sequence[SeedResult]) -> Figure:
    """Recall accuracy against query distance per condition (mean over seeds), window sizes marked."""
    art = results[0].artifacts
    fig = Figure(figsize=(9, 3.4), layout="constrained")
    axes = fig.subplots(1, 2)
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
    axes[0].legend(fontsize=7)
    return fig


def local_accuracy_curves(results: Sequence[SeedResult]) -> Figure:
    """Local-induction and recall accuracy against training step per condition (mean over seeds)."""
    conds = results[0].artifacts["conditions"]
    fig = Figure(figsize=(9, 3.2), layout="constrained")
    for ax, key in zip(fig.subplots(1, 2), ("local_acc", "recall_acc")):
        for cond in conds:
            curves = [r.curves[f"{cond}_{key}"] for r in results]
            n = min(len(c["y"]) for c in curves)
            ax.plot(curves[0]["x"][:n], np.mean([c["y"][:n] for c in curves], 0), label=cond)
        ax.set(xlabel="step", ylabel=key.replace("_", " "), ylim=(-0.02, 1.02))
    fig.axes[0].legend(fontsize=7)
    return fig


def tradeoff_bars(results: Sequence[SeedResult]) -> Figure:
    """Short- vs long-context trade-off: local, recall and extrapolated recall accuracy per condition."""
    conds = list(results[0].artifacts["conditions"])
    if "stochastic" in conds:
        conds.append("stochastic_at_short")
    keys = ("local_acc", "recall_acc", "extrap_recall_acc")
    fig = Figure(figsize=(8, 3.2), layout="constrained")
    ax = fig.subplots()
    width = 0.8 / len(keys)
    for j, key in enumerate(keys):
        vals = []
        for cond in conds:
            name = f"stochastic_{key}_at_short" if cond == "stochastic_at_short" else f"{cond}_{key}"
            vals.append([r.metrics.get(name, float("nan")) for r in results])
        ax.bar(np.arange(len(conds)) + j * width, np.nanmean(vals, 1), width, label=key.replace("_", " "))
    ax.set_xticks(np.arange(len(conds)) + width, conds, fontsize=7)
    ax.set(ylabel="accuracy", ylim=(0, 1.05))
    ax.legend(fontsize=7)
    return fig
