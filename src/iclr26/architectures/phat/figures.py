"""Figures of the PHAT reproduction (arXiv 2602.00654); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import grouped_bars, legend, metric_values, new_figure
from iclr26.harness.store import SeedResult

__all__ = ["attention_maps", "forecast_traces", "mse_bars"]


def mse_bars(results: Sequence[SeedResult]) -> Figure:
    """Test MSE per model on heterogeneous vs homogeneous periods (mean over seeds, bars = min/max)."""
    models = results[0].artifacts["models"]
    fig, ax = new_figure(width=7)
    series = {}
    for data in ("hetero", "homo"):
        series[data] = [
            metric_values(results, f"{data}_{m}_mse") if f"{data}_{m}_mse" in results[0].metrics else [np.nan]
            for m in models
        ]
    grouped_bars(ax, models, series, interval="minmax")
    ax.set(ylabel="test MSE (standardised)")
    legend(ax, fontsize=None)
    return fig


def attention_maps(results: Sequence[SeedResult]) -> Figure:
    """One bucket of the trained PHAT (first seed, first test window, first head pair, first cycle): positive
    and negative offset softmax weights (query x key) and the period-aligned weights (cycle x cycle)."""
    art = results[0].artifacts["attention"]
    fig, axes = new_figure(ncols=3, width=9, height=3, flat=True)
    for ax, key, title in zip(axes, ("positive", "negative", "aligned"), ("offset +", "offset -", "aligned")):
        m = np.asarray(art[key], dtype=float)
        ax.imshow(m if m.size else np.zeros((1, 1)), cmap="viridis")
        ax.set(title=f"{title} (P={art['period']})", xlabel="key", ylabel="query")
    return fig


def forecast_traces(results: Sequence[SeedResult]) -> Figure:
    """One test window, one variable per period group: truth, PHAT and DLinear forecasts (first seed)."""
    traces = results[0].artifacts["traces"]
    fig, axes = new_figure(ncols=len(traces), width=3 * len(traces), height=2.6, flat=True)
    for ax, tr in zip(np.atleast_1d(axes), traces):
        L = len(tr["lookback"])
        ax.plot(range(L), tr["lookback"], color="0.6", lw=0.8)
        h = range(L, L + len(tr["truth"]))
        for key, style in (("truth", "k-"), ("phat", "C0-"), ("dlinear", "C1--")):
            ax.plot(h, tr[key], style, lw=1, label=key)
        ax.set(title=f"var {tr['var']} (period {tr['period']})", xlabel="step")
    legend(np.atleast_1d(axes)[0])
    return fig
