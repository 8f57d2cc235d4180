"""Figures of the AtteNT reproduction (arXiv 2602.20461); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.store import SeedResult

__all__ = ["accuracy_vs_cost", "ratio_schedule", "score_histogram"]

METHODS = ("full", "attent", "random", "topk")
TASKS = ("digits", "seqprop")


def accuracy_vs_cost(results: Sequence[SeedResult]) -> Figure:
    """Test accuracy against training cost in forward-pass units, per method (mean over seeds, min-max band)."""
    fig = Figure(figsize=(9, 3.4), layout="constrained")
    for ax, task in zip(fig.subplots(1, 2), TASKS):
        for m in METHODS:
            curves = [r.curves[f"{task}_{m}_acc"] for r in results]
            x = np.asarray(curves[0]["x"])
            ys = np.array([c["y"] for c in curves])
            ax.plot(x, ys.mean(0), label=m, lw=2.2 if m == "attent" else 1.1)
            ax.fill_between(x, ys.min(0), ys.max(0), alpha=0.2)
        target = np.mean([r.metrics[f"{task}_target_acc"] for r in results])
        ax.axhline(target, color="grey", ls=":", lw=1)
        ax.set(xlabel="cost (forward-pass units)", ylabel="test accuracy", title=task)
    fig.axes[0].legend(fontsize=7)
    return fig


def ratio_schedule(results: Sequence[SeedResult]) -> Figure:
    """Fraction of the pool trained on in each epoch (AtteNT and random share the step schedule)."""
    fig = Figure(figsize=(9, 3.0), layout="constrained")
    for ax, task in zip(fig.subplots(1, 2), TASKS):
        for m in METHODS:
            c = results[0].curves[f"{task}_{m}_ratio"]
            ax.step(c["x"], c["y"], where="mid", label=m)
        ax.set(xlabel="epoch", ylabel="selected fraction", title=task, ylim=(0, 1.05))
    fig.axes[0].legend(fontsize=7)
    return fig


def score_histogram(results: Sequence[SeedResult]) -> Figure:
    """Scores ||softmax - onehot|| of selected vs rejected pool examples over all AtteNT selections (all seeds)."""
    fig = Figure(figsize=(9, 3.0), layout="constrained")
    for ax, task in zip(fig.subplots(1, 2), TASKS):
        bins = np.asarray(results[0].artifacts[task]["hist"]["bins"])
        for key in ("selected", "rejected"):
            counts = np.sum([r.artifacts[task]["hist"][key] for r in results], axis=0)
            ax.stairs(counts, bins, label=key, fill=True, alpha=0.5)
        ax.set(xlabel="score ||softmax - onehot||_2", ylabel="count", title=task, yscale="symlog")
    fig.axes[0].legend(fontsize=7)
    return fig
