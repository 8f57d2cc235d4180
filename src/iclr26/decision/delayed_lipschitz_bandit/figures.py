"""Figures of the delayed Lipschitz bandit reproduction, drawn from stored per-seed results.

Paper: "Lipschitz Bandits with Stochastic Delayed Feedback" (Liu, Kang and Lee, ICLR 2026, arXiv 2510.00309).
Each function takes the per-seed results of one budget and returns a matplotlib Figure (built without pyplot);
its docstring's first line is the caption.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from iclr26.decision.delayed_lipschitz_bandit.claim_check import fit_slope
from iclr26.harness.figures import (
    curve_matrix,
    grouped_bars,
    legend,
    metric_mean,
    metric_values,
    new_figure,
    plot_band,
)
from iclr26.harness.stats import bootstrap_interval

__all__ = ["active_arms", "regret_bars", "regret_curves", "regret_vs_horizon"]

ALGO_LABELS = {
    "dz": "Delayed Zooming (lazy)",
    "naive": "naive delayed zooming",
    "dlpp": "DLPP",
    "grid_ucb": "grid + Delayed-UCB1",
    "blin": "BLiN (counts pulls)",
    "dlpp_e2": "DLPP, eliminate at 2 r_m (ablation)",
}
DELAY_LABELS = {
    "none": "no delay",
    "uniform20": "uniform, mean 20",
    "uniform50": "uniform, mean 50",
    "geometric20": "geometric, mean 20",
    "geometric50": "geometric, mean 50",
    "censored": "censored p=0.5, geom. 20",
}


def _setup(results: Sequence[Any]) -> dict[str, Any]:
    return results[0].artifacts["setup"]


def regret_curves(results: Sequence[Any]) -> Figure:
    """Cumulative regret vs round, mean over seeds with a pointwise 95% t band, per function (rows) and delay
    (columns); every algorithm of a seed faces the same noise and delay draws."""
    setup = _setup(results)
    functions, delays, algos = setup["functions"], setup["delays"], setup["algorithms"]
    fig, axes = new_figure(
        ncols=len(delays),
        nrows=len(functions),
        width=3.4 * len(delays),
        height=3.0 * len(functions),
        squeeze=False,
    )
    for i, f in enumerate(functions):
        for j, d in enumerate(delays):
            ax = axes[i, j]
            for a in algos:
                x, ys = curve_matrix(results, f"regret_{f}_{d}_{a}")
                plot_band(ax, x, ys, interval="t", lw=1.4, label=ALGO_LABELS.get(a, a))
            ax.set_title(f"{f}, {DELAY_LABELS.get(d, d)}", fontsize=9)
            ax.set_xlabel("round t")
            if j == 0:
                ax.set_ylabel("cumulative regret")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=len(algos), fontsize=8)
    return fig


def regret_bars(results: Sequence[Any]) -> Figure:
    """Regret at T per algorithm and delay (mean over seeds, 95% t interval), one panel per function."""
    setup = _setup(results)
    functions, delays, algos = setup["functions"], setup["delays"], setup["algorithms"]
    fig, axes = new_figure(ncols=len(functions), width=6.0 * len(functions), height=4.0, flat=True)
    for ax, f in zip(axes, functions):
        series = {
            ALGO_LABELS.get(a, a): [metric_values(results, f"regret_{f}_{d}_{a}") for d in delays]
            for a in algos
        }
        delay_names = [DELAY_LABELS.get(d, d) for d in delays]
        grouped_bars(ax, delay_names, series, interval="t", capsize=2, tick_kw={"fontsize": 7})
        ax.axhline(
            metric_mean(results, f"uniform_regret_{f}"),
            color="grey",
            ls="--",
            lw=1,
            label="uniform random play",
        )
        ax.set(ylabel=f"regret at T = {setup['horizon']}", title=f)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=4, fontsize=8)
    return fig


def regret_vs_horizon(results: Sequence[Any]) -> Figure:
    """Delayed Zooming's regret at T vs T (log-log) over the T-sweep, per seed (thin) and mean (thick), with the
    fitted slope (mean over seeds, 95% bootstrap interval); dotted: slopes 1/2 and 1 for reference."""
    setup = _setup(results)
    horizons = np.asarray(setup["sweep_horizons"], dtype=float)
    regrets = np.array([[r.metrics[f"regret_sweep_{i}"] for i in range(len(horizons))] for r in results])
    slopes = np.array([fit_slope(horizons, row) for row in regrets])
    fig, ax = new_figure(width=5.6, height=4.2)
    for row in regrets:
        ax.plot(horizons, row, color="tab:blue", alpha=0.25, lw=0.8)
    mean = regrets.mean(axis=0)
    text = "slope n/a"
    if np.all(np.isfinite(slopes)):
        iv = bootstrap_interval(slopes)
        text = f"mean slope {iv.estimate:.2f}" + (f" [{iv.lo:.2f}, {iv.hi:.2f}]" if iv.defined else "")
    ax.plot(horizons, mean, "o-", color="tab:blue", lw=2, label=f"Delayed Zooming, {text}")
    for power in (0.5, 1.0):
        ax.plot(horizons, mean[0] * (horizons / horizons[0]) ** power, ":", color="grey", lw=1)
    f, d = setup["sweep"]
    ax.set(
        xscale="log",
        yscale="log",
        xlabel="horizon T",
        ylabel="regret at T",
        title=f"{f}, {DELAY_LABELS.get(d, d)}",
    )
    legend(ax, fontsize=8)
    return fig


def active_arms(results: Sequence[Any]) -> Figure:
    """Active arms of Delayed Zooming (mean over seeds, per delay) and active cubes of DLPP (first seed, dashed
    vertical lines: phase ends) vs round, per function."""
    setup = _setup(results)
    functions, delays = setup["functions"], setup["delays"]
    fig, axes = new_figure(
        ncols=len(functions), nrows=2, width=5.2 * len(functions), height=6.4, squeeze=False
    )
    for j, f in enumerate(functions):
        for d in delays:
            for row, a in ((0, "dz"), (1, "dlpp")):
                key = f"active_{f}_{d}_{a}"
                if key not in results[0].curves:
                    continue
                x, ys = curve_matrix(results, key)
                y = ys.mean(axis=0) if a == "dz" else ys[0]
                (line,) = axes[row, j].plot(x, y, lw=1.3, label=DELAY_LABELS.get(d, d))
                if a == "dlpp":
                    for end in results[0].artifacts["phase_ends"].get(f"{f}_{d}", []):
                        axes[row, j].axvline(end, color=line.get_color(), ls="--", lw=0.6, alpha=0.6)
        axes[0, j].set(title=f"{f}: Delayed Zooming", ylabel="active arms")
        axes[1, j].set(title=f"{f}: DLPP (first seed)", ylabel="active cubes", xlabel="round t")
        legend(axes[0, j])
    return fig
