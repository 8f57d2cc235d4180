"""Figures of the AFD-Instruction reproduction, drawn from stored per-seed results.

Paper: "AFD-Instruction" (ICLR 2026, arXiv 2602.04916).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from matplotlib.figure import Figure

from iclr26.harness.figures import grouped_bars, legend, metric_values, new_figure

__all__ = ["design_bars", "task_accuracy_bars"]

_TASKS = ("target", "neutralizing", "species", "light_type")
_METHODS = (
    ("fewshot", "untuned LM, 2-shot"),
    ("tuned", "instruction-tuned LM"),
    ("kmer", "k-mer (k=3) logistic regression"),
    ("nn", "nearest-neighbour answer"),
    ("majority", "majority class"),
)


def task_accuracy_bars(results: Sequence[Any]) -> Figure:
    """Accuracy per synthetic classification task (bars: mean over seeds, dots: seeds) and the task mean."""
    fig, ax = new_figure(width=7.5, height=4.2)
    cats = [*_TASKS, "mean"]
    series = {
        label: [
            metric_values(results, f"acc_{m}_{t}" if t != "mean" else f"{m}_acc", required=False)
            for t in cats
        ]
        for m, label in _METHODS
    }
    grouped_bars(ax, cats, series, dots=True)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("test accuracy")
    legend(ax, fontsize=7, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3)
    return fig


def design_bars(results: Sequence[Any]) -> Figure:
    """Design (light chain + function -> CDR-H3): rule satisfaction and SRR against the reference CDR-H3."""
    fig, ax = new_figure(width=6.5, height=3.6)
    cats = ["rule satisfied", "SRR best", "SRR left", "SRR right", "exact match"]
    keys = ["design_sat", "design_srr_best", "design_srr_left", "design_srr_right", "design_exact_match"]
    series = {
        label: [metric_values(results, f"{m}_{k}", required=False) for k in keys]
        for m, label in (("tuned", "instruction-tuned LM (greedy)"), ("nn", "nearest-neighbour copy"))
    }
    grouped_bars(ax, cats, series, dots=True)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("fraction")
    legend(ax, fontsize=7)
    return fig
