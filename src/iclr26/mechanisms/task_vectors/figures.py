"""Figures of the task-vector reproduction (arXiv 2506.09048); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import grouped_bars, legend, metric_mean, metric_values, new_figure, seed_band
from iclr26.harness.store import SeedResult

__all__ = [
    "format_comparison",
    "layer_curve",
    "rank_share_plot",
    "risk_vs_shots",
    "taskv_m_plot",
    "tv_vs_icl_by_task",
]

TASKS = ("base", "inverse", "bijection", "copy")


def risk_vs_shots(results: Sequence[SeedResult]) -> Figure:
    """Normalised risk of the linear model vs number of shots; R_TV, R_1 and TaskV-M as horizontal lines."""
    fig, ax = new_figure(width=5, height=3.4)
    seed_band(ax, results, "risk_by_shots", interval=None, marker="o", label="ICL (k real demos)")
    for key, label, style in (("rtv", "TV", "--"), ("r1", "1-shot model", ":"), ("rtv_m", "TaskV-M", "-.")):
        ax.axhline(metric_mean(results, key), ls=style, color="k" if key == "rtv" else None, label=label)
    ax.set(xlabel="shots", ylabel="normalised risk", title="linear-attention transformer")
    legend(ax)
    return fig


def rank_share_plot(results: Sequence[SeedResult]) -> Figure:
    """Rank share S (energy on the top direction) of TV outputs and of n-shot ICL outputs, per seed."""
    fig, ax = new_figure()
    seeds = [r.seed for r in results]
    ax.plot(seeds, [r.metrics["s_tv"] for r in results], "o", label="TV outputs")
    ax.plot(seeds, [r.metrics["s_icl"] for r in results], "s", label="n-shot ICL outputs")
    ax.axhline(0.9, ls=":", color="gray")
    ax.set(xlabel="seed", ylabel="S", ylim=(0, 1.05))
    legend(ax)
    return fig


def tv_vs_icl_by_task(results: Sequence[SeedResult]) -> Figure:
    """Discrete GPT accuracy by task type: ICL, 1-shot ICL, zero-shot and task-vector injection."""
    fig, ax = new_figure(width=6, height=3.4)
    series = {
        m: [metric_values(results, f"acc_{t}_{m}") for t in TASKS] for m in ("icl", "icl1", "zero", "tv")
    }
    grouped_bars(ax, TASKS, series)
    ax.set(ylabel="accuracy", ylim=(0, 1.05))
    legend(ax)
    return fig


def taskv_m_plot(results: Sequence[SeedResult]) -> Figure:
    """TaskV-M (a TV in every arrow) vs plain few-shot ICL by number of shots, averaged over task types."""
    fig, ax = new_figure()
    shots = results[0].artifacts["multi_shots"]
    for m in ("icl", "taskv_m"):
        acc = [np.mean([metric_mean(results, f"multi_{t}_{s}_{m}") for t in TASKS]) for s in shots]
        ax.plot(shots, acc, "o-", label=m)
    tv = np.mean([metric_mean(results, f"acc_{t}_tv") for t in TASKS])
    ax.axhline(tv, ls="--", color="k", label="TV (0-shot)")
    ax.set(xlabel="shots", ylabel="accuracy", ylim=(0, 1.05))
    legend(ax)
    return fig


def layer_curve(results: Sequence[SeedResult]) -> Figure:
    """Validation accuracy of TV injection at each GPT layer (block output), all task types."""
    fig, ax = new_figure()
    for r in results:
        pl = r.artifacts["per_layer"]
        ax.plot([int(k) for k in pl], list(pl.values()), "o-", label=f"seed {r.seed}")
    ax.set(xlabel="injection layer (block output)", ylabel="TV accuracy", ylim=(0, 1.05))
    legend(ax)
    return fig


def format_comparison(results: Sequence[SeedResult]) -> Figure:
    """Normalised n-shot risk of linear models trained on single, pair and triplet prompts."""
    fig, ax = new_figure()
    fmts = ("single", "pair", "triplet")
    ax.bar(fmts, [metric_mean(results, f"risk_{f}") for f in fmts])
    ax.set(ylabel="normalised risk (n-shot)")
    return fig
