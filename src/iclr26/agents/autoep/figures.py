"""Figures of the AutoEP offline reproduction (first docstring line: caption)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from matplotlib.figure import Figure

from iclr26.harness.figures import legend, metric_values, new_figure, seed_band, seed_bars

__all__ = ["gap_bars", "gap_curves", "theta_trajectories"]

LABELS = {
    "tuned": "tuned-fixed (3x3 grid)",
    "random": "random theta",
    "schedule": "linear pm schedule",
    "rule": "RuleChain (ELA)",
    "rule_noela": "RuleChain (no diversity)",
}


def gap_curves(results: Sequence[Any]) -> Figure:
    """Gap to the 2-opt reference vs generation per controller (mean over instances; band: min-max over seeds)."""
    fig, ax = new_figure(width=6.0, height=3.6)
    for i, name in enumerate(LABELS):
        seed_band(ax, results, f"gap_{name}", label=LABELS[name], color=f"C{i}")
    ax.set_xlabel("generation")
    ax.set_ylabel("gap to reference (%)")
    ax.set_yscale("log")
    legend(ax)
    return fig


def gap_bars(results: Sequence[Any]) -> Figure:
    """Final gap per controller (bars: mean over seeds with 95% t interval; dots: seeds)."""
    names = list(LABELS)
    fig, ax = new_figure(width=6.0, height=3.4)
    for i, name in enumerate(names):
        seed_bars(ax, [i], [metric_values(results, f"gap_{name}")], interval="t", color=f"C{i}")
    ax.set_xticks(range(len(names)), [LABELS[n] for n in names], rotation=25, ha="right", fontsize=7)
    ax.set_ylabel("final gap to reference (%)")
    return fig


def theta_trajectories(results: Sequence[Any]) -> Figure:
    """pc and pm chosen by each adaptive controller on the first test instance, with the diversity feature."""
    fig, axes = new_figure(ncols=3, width=9.0, height=3.0)
    for ax, key in zip(axes, ("pc", "pm", "diversity")):
        for i, name in enumerate(LABELS):
            seed_band(ax, results, f"{key}_{name}", label=LABELS[name], color=f"C{i}")
        ax.set_xlabel("generation")
        ax.set_ylabel(key)
    legend(axes[0])
    return fig
