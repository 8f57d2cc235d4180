"""Figures of the FACT reproduction (OpenReview j3gNYqrHtl); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import grouped_bars, legend, metric_mean, metric_values, new_figure, note
from iclr26.harness.store import SeedResult

__all__ = ["cost_vs_n", "kernels", "mse_bars"]


def mse_bars(results: Sequence[SeedResult]) -> Figure:
    """Test MSE per model and variable ordering (mean over seeds, bars = min/max)."""
    models, orders = results[0].artifacts["models"], results[0].artifacts["orderings"]
    fig, ax = new_figure(width=6)
    series = {o: [metric_values(results, f"{o}_{m}_mse") for m in models] for o in orders}
    grouped_bars(ax, models, series, interval="minmax")
    ax.set(ylabel="test MSE (standardised)")
    legend(ax, fontsize=None)
    return fig


def cost_vs_n(results: Sequence[SeedResult]) -> Figure:
    """Training-step time and bytes saved for backward vs number of variables N (log-log)."""
    ns = results[0].artifacts["cost_n"]
    names = sorted(
        {k.split("_")[1] for k in results[0].metrics if k.startswith("mem_") and "_n" in k} - {"ratio"}
    )
    fig, axes = new_figure(ncols=2, width=8)
    for ax, kind, label in zip(axes, ("time", "mem"), ("seconds per step", "bytes saved")):
        ys = {m: [metric_mean(results, f"{kind}_{m}_n{n}", required=False) for n in ns] for m in names}
        if not np.isfinite(
            list(ys.values())
        ).any():  # e.g. no timings at the smoke budget: no log axis to draw
            note(ax, f"no {label} measured at this budget")
            continue
        for m, y in ys.items():
            ax.plot(ns, y, "o-", label=m)
        ax.set(xscale="log", yscale="log", xlabel="N variables", ylabel=label)
    legend(axes[1])
    return fig


def kernels(results: Sequence[SeedResult]) -> Figure:
    """Learned depthwise 7x7 (largest) kernels of the first FACT block for four granularities (first seed)."""
    k = np.asarray(results[0].artifacts["kernels"])
    fig, axes = new_figure(ncols=len(k), width=2.2 * len(k), height=2.4, flat=True)
    for c, ax in enumerate(axes):
        ax.imshow(k[c], cmap="RdBu_r")
        ax.set(title=f"channel {c}", xticks=[], yticks=[])
    return fig
