"""Figures of the AtteNT reproduction (arXiv 2602.20461); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import legend, metric_mean, new_figure, seed_band
from iclr26.harness.store import SeedResult

__all__ = ["accuracy_vs_cost", "ratio_schedule", "score_histogram"]

TASKS = ("digits", "seqprop")


def _methods(results: Sequence[SeedResult]) -> list[str]:
    return list(results[0].artifacts["methods"])


def accuracy_vs_cost(results: Sequence[SeedResult]) -> Figure:
    """Test accuracy against training cost in forward-pass units, per method (mean over seeds, min-max band)."""
    fig, axes = new_figure(ncols=2, width=9, height=3.4)
    for ax, task in zip(axes, TASKS):
        for m in _methods(results):
            seed_band(ax, results, f"{task}_{m}_acc", label=m, lw=2.2 if m == "attent" else 1.1)
        ax.axhline(metric_mean(results, f"{task}_target_acc"), color="grey", ls=":", lw=1)
        ax.set(xlabel="cost (forward-pass units)", ylabel="test accuracy", title=task)
    legend(axes[0])
    return fig


def ratio_schedule(results: Sequence[SeedResult]) -> Figure:
    """Fraction of the pool trained on in each epoch: AtteNT, random and top-k on the official cycle (warm-up,
    then one subset epoch and full epochs per cycle), GraNT doubling from 0.1."""
    fig, axes = new_figure(ncols=2, width=9, height=3.0)
    for ax, task in zip(axes, TASKS):
        for m in _methods(results):
            c = results[0].curves[f"{task}_{m}_ratio"]
            ax.step(c["x"], c["y"], where="mid", label=m)
        ax.set(xlabel="epoch", ylabel="selected fraction", title=task, ylim=(0, 1.05))
    legend(axes[0])
    return fig


def score_histogram(results: Sequence[SeedResult]) -> Figure:
    """Per-example cross-entropy of selected vs rejected pool examples over all AtteNT selections (all seeds;
    the last bin holds every larger loss)."""
    fig, axes = new_figure(ncols=2, width=9, height=3.0)
    for ax, task in zip(axes, TASKS):
        bins = np.asarray(results[0].artifacts[task]["hist"]["bins"])
        for key in ("selected", "rejected"):
            counts = np.sum([r.artifacts[task]["hist"][key] for r in results], axis=0)
            ax.stairs(counts, bins, label=key, fill=True, alpha=0.5)
        ax.set(xlabel="score: per-example cross-entropy", ylabel="count", title=task, yscale="symlog")
    legend(axes[0])
    return fig
