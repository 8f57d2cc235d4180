"""Figures of the PLMC reproduction, drawn from stored per-seed results.

Paper: "Poisson Midpoint Method for Log Concave Sampling: Beyond the Strong Error Lower Bounds" (arXiv
2506.07614). Each function takes the per-seed results of one budget and returns a matplotlib Figure (built
without pyplot); its docstring's first line is the caption.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import NullFormatter

from iclr26.harness.figures import curve_matrix, legend, metric_mean, new_figure, seed_errorbar

__all__ = ["plmc_histograms", "strong_vs_weak", "w2_vs_cost"]

_SETTINGS = (("over", "overdamped"), ("under", "underdamped"))
_LABELS = {
    ("over", "lmc"): "LMC",
    ("under", "lmc"): "ULMC",
    ("over", "rlmc"): "RLMC",
    ("under", "rlmc"): "RLMC (underdamped)",
}


def _label(setting: str, method: str) -> str:
    if (setting, method) in _LABELS:
        return _LABELS[setting, method]
    return "PLMC" + ("" if method == "plmc" else f" ({method.removeprefix('plmc_')})")


def w2_vs_cost(results: Sequence[Any]) -> Figure:
    """W2 to the 1-D target vs gradient calls per unit time (log-log), mean over seeds with min-max bars; dashed:
    the mean fitted slope over points above twice the noise floor (grey: floor, dotted: twice the floor)."""
    fig, axes = new_figure(ncols=2, width=11, height=4.4)
    floor = metric_mean(results, "noise_floor")
    methods = results[0].artifacts["methods"]
    for ax, (s, name) in zip(axes, _SETTINGS):
        for m in methods:
            key = f"w2_vs_cost_{s}_{m}"
            cost = curve_matrix(results, key, field="x", same_x=False)[1].mean(axis=0)  # measured per seed
            w2 = curve_matrix(results, key, same_x=False)[1]
            mean = w2.mean(axis=0)
            slope = metric_mean(results, f"slope_{s}_{m}")
            text = f"slope {slope:.2f}" if np.isfinite(slope) else "slope n/a"
            line = seed_errorbar(
                ax, cost, list(w2.T), interval="minmax", marker="o", label=f"{_label(s, m)}, {text}"
            )
            usable = mean > 2.0 * floor
            if np.isfinite(slope) and usable.sum() >= 2:
                x_ref, y_ref = np.exp(np.log(cost[usable]).mean()), np.exp(np.log(mean[usable]).mean())
                xs = cost[usable]
                ax.plot(xs, y_ref * (xs / x_ref) ** slope, "--", color=line[0].get_color(), alpha=0.7)
        ax.axhline(floor, color="grey", lw=1)
        ax.axhline(2.0 * floor, color="grey", lw=1, ls=":")
        ax.set(xscale="log", yscale="log", xlabel="gradient calls per unit time", ylabel="W2", title=name)
        ax.xaxis.set_minor_formatter(NullFormatter())
        legend(ax, fontsize=8)
    return fig


def plmc_histograms(results: Sequence[Any]) -> Figure:
    """Histogram of PLMC samples at the largest and smallest step size (and LMC at the largest) against the
    target density exp(-x^2/2)/cosh(2x), first seed."""
    fig, axes = new_figure(ncols=2, width=11, height=4.2)
    hist = results[0].artifacts["hist"]
    edges = np.asarray(hist["edges"])
    centers = 0.5 * (edges[1:] + edges[:-1])
    steps = results[0].artifacts["step_sizes"]
    h_max, h_min = max(steps), min(steps)
    for ax, (s, name) in zip(axes, _SETTINGS):
        for key, label in (
            (f"{s}_lmc_h{h_max:g}", f"{_label(s, 'lmc')}, h = {h_max:g}"),
            (f"{s}_plmc_h{h_max:g}", f"PLMC, h = {h_max:g}"),
            (f"{s}_plmc_h{h_min:g}", f"PLMC, h = {h_min:g}"),
        ):
            ax.stairs(hist[key], edges, label=label)
        ax.plot(centers, hist["target"], "k-", lw=1.2, label="target density")
        ax.set(xlabel="x", ylabel="density", title=name)
        legend(ax, fontsize=8)
    return fig


def strong_vs_weak(results: Sequence[Any]) -> Figure:
    """Underdamped dynamics: strong L2 error against a fine reference path on the same Brownian motion (solid)
    and W2 to the target (dashed) vs step size h, PLMC and ULMC, mean over seeds; grey: noise floor of W2."""
    fig, ax = new_figure(width=6, height=4.4)
    floor = metric_mean(results, "noise_floor")
    for m, label in (("plmc", "PLMC"), ("lmc", "ULMC")):
        h, strong = curve_matrix(results, f"strong_vs_h_under_{m}")
        strong = strong.mean(axis=0)
        w2 = curve_matrix(results, f"w2_vs_h_under_{m}", same_x=False)[1].mean(axis=0)
        line = ax.plot(h, strong, "o-", label=f"{label}: strong error")
        ax.plot(h, w2, "s--", color=line[0].get_color(), label=f"{label}: W2")
    ax.axhline(floor, color="grey", lw=1, label="W2 noise floor")
    ax.set(
        xscale="log", yscale="log", xlabel="step size h", ylabel="error", title="underdamped: strong vs weak"
    )
    ax.xaxis.set_minor_formatter(NullFormatter())
    legend(ax, fontsize=8)
    return fig
