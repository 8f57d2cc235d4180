"""Figures of the VCWorld offline reproduction (first docstring line: caption)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from matplotlib.figure import Figure

from iclr26.harness.figures import grouped_bars, legend, metric_values, new_figure, seed_band

__all__ = ["method_bars", "sweep_fraction", "sweep_removal"]

LABELS = {"graph_retrieval": "Graph+retrieval", "graph_only": "graph only", "retrieval_only": "retrieval only",
          "knn_drug": "kNN drug", "hgb": "HistGB", "mlp": "MLP", "majority": "majority"}  # fmt: skip


def method_bars(results: Sequence[Any]) -> Figure:
    """DE macro-F1 and DIR accuracy on unseen drugs per method (bars: mean over seeds, dots: seeds)."""
    methods = results[0].artifacts["methods"]
    fig, ax = new_figure(width=8, height=3.4)
    series = {"DE macro-F1": [metric_values(results, f"de_f1_{m}") for m in methods],
              "DIR accuracy": [metric_values(results, f"dir_acc_{m}") for m in methods]}  # fmt: skip
    grouped_bars(ax, [LABELS.get(m, m) for m in methods], series, dots=True, tick_kw={"fontsize": 7})
    ax.set_ylim(0.4, 1.0)
    legend(ax)
    return fig


def _sweep(results: Sequence[Any], axis: str, xlabel: str) -> Figure:
    swept = [r for r in results if f"{axis}_de_f1_hgb" in r.curves]
    fig, axes = new_figure(ncols=2, width=8, height=3.2)
    for ax, task, title in zip(axes, ("de_f1", "dir_acc"), ("DE macro-F1", "DIR accuracy")):
        for i, m in enumerate(("graph_retrieval", "hgb")):
            if swept:
                seed_band(ax, swept, f"{axis}_{task}_{m}", label=LABELS[m], color=f"C{i}", marker="o")
        ax.set_xlabel(xlabel)
        ax.set_title(title)
    legend(axes[0])
    return fig


def sweep_fraction(results: Sequence[Any]) -> Figure:
    """DE macro-F1 / DIR accuracy vs the fraction of drugs used for training (band: min-max over sweep seeds)."""
    return _sweep(results, "fraction", "training-drug fraction")


def sweep_removal(results: Sequence[Any]) -> Figure:
    """DE macro-F1 / DIR accuracy vs the fraction of true KG edges removed (band: min-max over sweep seeds)."""
    return _sweep(results, "remove", "KG edges removed")
