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


def _stack(results: Sequence[Any], key: str, axis: str) -> np.ndarray:
    return np.array([r.curves[key][axis] for r in results], dtype=float)


def w2_vs_cost(results: Sequence[Any]) -> Figure:
    """W2 to the 1-D target vs gradient calls per unit time (log-log), mean over seeds with min-max bars; dashed:
    the mean fitted slope over points above twice the noise floor (grey: floor, dotted: twice the floor)."""
    fig = Figure(figsize=(11, 4.4), layout="constrained")
    axes = fig.subplots(1, 2)
    floor = float(np.mean([r.metrics["noise_floor"] for r in results]))
    methods = results[0].artifacts["methods"]
    for ax, (s, name) in zip(axes, _SETTINGS):
        for m in methods:
            cost = _stack(results, f"w2_vs_cost_{s}_{m}", "x").mean(axis=0)
            w2 = _stack(results, f"w2_vs_cost_{s}_{m}", "y")
            mean = w2.mean(axis=0)
            slopes = np.array([r.metrics[f"slope_{s}_{m}"] for r in results], dtype=float)
            slope = float(np.nanmean(slopes)) if np.any(np.isfinite(slopes)) else float("nan")
            bars = np.vstack([mean - w2.min(axis=0), w2.max(axis=0) - mean])
            text = f"slope {slope:.2f}" if np.isfinite(slope) else "slope n/a"
            line = ax.errorbar(cost, mean, yerr=bars, marker="o", capsize=3, label=f"{_label(s, m)}, {text}")
            usable = mean > 2.0 * floor
            if np.isfinite(slope) and usable.sum() >= 2:
                x_ref, y_ref = np.exp(np.log(cost[usable]).mean()), np.exp(np.log(mean[usable]).mean())
                xs = cost[usable]
                ax.plot(xs, y_ref * (xs / x_ref) ** slope, "--", color=line[0].get_color(), alpha=0.7)
        ax.axhline(floor, color="grey", lw=1)
        ax.axhline(2.0 * floor, color="grey", lw=1, ls=":")
        ax.set(xscale="log", yscale="log", xlabel="gradient calls per unit time", ylabel="W2", title=name)
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.legend(fontsize=8)
    return fig


def plmc_histograms(results: Sequence[Any]) -> Figure:
    """Histogram of PLMC samples at the largest and smallest step size (and LMC at the largest) against the
    target density exp(-x^2/2)/cosh(2x), first seed."""
    fig = Figure(figsize=(11, 4.2), layout="constrained")
    axes = fig.subplots(1, 2)
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
        ax.legend(fontsize=8)
    return fig


def strong_vs_weak(results: Sequence[Any]) -> Figure:
    """Underdamped dynamics: strong L2 error against a fine reference path on the same Brownian motion (solid)
    and W2 to the target (dashed) vs step size h, PLMC and ULMC, mean over seeds; grey: noise floor of W2."""
    fig = Figure(figsize=(6, 4.4), layout="constrained")
    ax = fig.subplots()
    floor = float(np.mean([r.metrics["noise_floor"] for r in results]))
    for m, label in (("plmc", "PLMC"), ("lmc", "ULMC")):
        h = _stack(results, f"strong_vs_h_under_{m}", "x")[0]
        strong = _stack(results, f"strong_vs_h_under_{m}", "y").mean(axis=0)
        w2 = _stack(results, f"w2_vs_h_under_{m}", "y").mean(axis=0)
        line = ax.plot(h, strong, "o-", label=f"{label}: strong error")
        ax.plot(h, w2, "s--", color=line[0].get_color(), label=f"{label}: W2")
    ax.axhline(floor, color="grey", lw=1, label="W2 noise floor")
    ax.set(
        xscale="log", yscale="log", xlabel="step size h", ylabel="error", title="underdamped: strong vs weak"
    )
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.legend(fontsize=8)
    return fig
