"""Figures of the T1 reproduction (arXiv 2602.21043); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import grouped_bars, legend, metric_mean, metric_values, new_figure, note
from iclr26.harness.store import SeedResult

__all__ = ["attention_maps", "imputed_traces", "mse_vs_rate"]

MODELS = ("t1", "saits", "mean", "interp", "locf", "knn", "iterative")


def mse_vs_rate(results: Sequence[SeedResult]) -> Figure:
    """Test MSE on hidden entries vs MCAR rate per model, and on the unseen block/sequence patterns (seed mean)."""
    rates = [float(r) for r in results[0].artifacts["rates"]]
    fig, (ax, bx) = new_figure(ncols=2, width=9, height=3.4)
    for m in MODELS:
        ys = [metric_mean(results, f"mse_mcar{round(q * 100)}_{m}") for q in rates]
        ax.plot(rates, ys, "o-", label=m, lw=2.5 if m == "t1" else 1)
    ax.set(xlabel="MCAR missing rate", ylabel="test MSE (hidden entries)", yscale="log")
    legend(ax)
    series = {
        p: [metric_values(results, f"mse_{p}_{m}", required=False) for m in MODELS] for p in ("block", "seq")
    }
    grouped_bars(bx, MODELS, series, tick_kw={"rotation": 45, "fontsize": 7})
    bx.set(ylabel="test MSE", title="unseen patterns (trained at 50% MCAR)")
    legend(bx)
    return fig


def attention_maps(results: Sequence[SeedResult]) -> Figure:
    """Per-head attention over variables before/after hiding a segment of one variable (first seed, first block)."""
    att = results[0].artifacts["attention"]
    heads = att["heads"]
    fig, axes = new_figure(ncols=len(heads), nrows=2, width=2.4 * len(heads), height=5.4, squeeze=False)
    for j, h in enumerate(heads):
        top = max(
            float(np.max(att["before"][j])), float(np.max(att["after"][j])), 1.0 / len(att["before"][j]) * 2
        )
        for i, key in enumerate(("before", "after")):
            a = axes[i][j]
            a.imshow(np.asarray(att[key][j]), vmin=0, vmax=top, cmap="viridis")
            a.axvline(att["var"], color="w", lw=0.5)
            a.set_title(f"head {h} {key}\ndelta={att['delta'][h]:+.3f}", fontsize=8)
            a.set_xticks([])
            a.set_yticks([])
    return fig


def imputed_traces(results: Sequence[SeedResult]) -> Figure:
    """One test window at 70% MCAR: truth, observed points and imputations of T1, SAITS-like and interpolation."""
    tr = results[0].artifacts.get("traces")
    if tr is None:
        fig, ax = new_figure(width=9, height=5)
        note(ax, "no 70% MCAR run in this budget")
        return fig
    fig, axes = new_figure(nrows=len(tr["truth"]), width=9, height=5, flat=True)
    for j, ax in enumerate(axes):
        t = np.arange(len(tr["truth"][j]))
        obs = np.asarray(tr["mask"][j]) > 0
        ax.plot(t, tr["truth"][j], "k-", lw=1, label="truth")
        ax.plot(t[obs], np.asarray(tr["truth"][j])[obs], "ko", ms=3, label="observed")
        for key in ("t1", "saits", "interp"):
            if key in tr:
                ax.plot(t, tr[key][j], lw=1.2, label=key)
        ax.set_ylabel(f"var {j}")
    legend(axes[0], ncol=5)
    axes[-1].set_xlabel("time step")
    return fig
