"""Figures of the FACT reproduction (OpenReview j3gNYqrHtl); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.store import SeedResult

__all__ = ["cost_vs_n", "kernels", "mse_bars"]


def mse_bars(results: Sequence[SeedResult]) -> Figure:
    """Test MSE per model and variable ordering (mean over seeds, bars = min/max)."""
    models, orders = results[0].artifacts["models"], results[0].artifacts["orderings"]
    fig = Figure(figsize=(6, 3.2), layout="constrained")
    ax = fig.subplots()
    w = 0.8 / len(orders)
    for j, o in enumerate(orders):
        v = np.array([[r.metrics[f"{o}_{m}_mse"] for r in results] for m in models])
        x = np.arange(len(models)) + j * w
        ax.bar(x, v.mean(1), w, label=o)
        ax.vlines(x, v.min(1), v.max(1), color="k")
    ax.set_xticks(np.arange(len(models)) + w * (len(orders) - 1) / 2, models)
    ax.set(ylabel="test MSE (standardised)")
    ax.legend()
    return fig


def cost_vs_n(results: Sequence[SeedResult]) -> Figure:
    """Training-step time and bytes saved for backward vs number of variables N (log-log)."""
    ns = results[0].artifacts["cost_n"]
    names = sorted(
        {k.split("_")[1] for k in results[0].metrics if k.startswith("mem_") and "_n" in k} - {"ratio"}
    )
    fig = Figure(figsize=(8, 3.2), layout="constrained")
    for ax, kind, label in zip(fig.subplots(1, 2), ("time", "mem"), ("seconds per step", "bytes saved")):
        for m in names:
            y = [_mean([r.metrics.get(f"{kind}_{m}_n{n}", np.nan) for r in results]) for n in ns]
            ax.plot(ns, y, "o-", label=m)
        ax.set(xscale="log", yscale="log", xlabel="N variables", ylabel=label)
    fig.axes[1].legend(fontsize=7)
    return fig


def kernels(results: Sequence[SeedResult]) -> Figure:
    """Learned depthwise 7x7 (largest) kernels of the first FACT block for four granularities (first seed)."""
    k = np.asarray(results[0].artifacts["kernels"])
    fig = Figure(figsize=(2.2 * len(k), 2.4), layout="constrained")
    axes = np.atleast_1d(fig.subplots(1, len(k)))
    for c, ax in enumerate(axes):
        ax.imshow(k[c], cmap="RdBu_r")
        ax.set(title=f"channel {c}", xticks=[], yticks=[])
    return fig


def _mean(v: list[float]) -> float:
    a = np.asarray(v, dtype=float)
    return float(a[np.isfinite(a)].mean()) if np.isfinite(a).any() else float("nan")
