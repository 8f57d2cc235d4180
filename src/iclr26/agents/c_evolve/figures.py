"""Figures of the C-Evolve offline reproduction (first docstring line: caption)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import grouped_bars, legend, metric_values, new_figure, seed_band

__all__ = ["consensus_gain_bars", "diversity_scatter", "group_accuracy_curves"]

LABELS = {
    "cevolve": "C-Evolve group (voting-score EMA)",
    "island_best": "(b) post-hoc best of each island",
    "topk": "(c) post-hoc top-3 overall",
    "single": "(a) best single genome",
}
DATASETS = ("digits", "wine")


def group_accuracy_curves(results: Sequence[Any]) -> Figure:
    """Test accuracy of the current group (majority vote) vs children evaluated (mean, 95% t band over splits).

    The individual-fitness run's group is each island's best individual score; its best single genome is shown
    too. C-Evolve's curve changes fitness after the warm-up (half the budget); the last point is the final choice."""
    fig, axes = new_figure(ncols=2, width=9.0, height=3.4)
    for ax, ds in zip(axes, DATASETS):
        for i, name in enumerate(("cevolve", "island_best", "single")):
            seed_band(
                ax,
                results,
                f"test_{name}_{ds}",
                interval="t",
                label=LABELS[name],
                color=f"C{i}",
                ragged="truncate",
            )
        ax.set_title(ds, fontsize=9)
        ax.set_xlabel("children evaluated")
        ax.set_ylabel("test accuracy")
    legend(axes[0])
    return fig


def consensus_gain_bars(results: Sequence[Any]) -> Figure:
    """Final test accuracy per method (bars: mean with 95% t interval) and the consensus gain over the best member.

    Left: group accuracy; right: group accuracy minus its best member's accuracy (0 for a single genome)."""
    fig, (ax1, ax2) = new_figure(ncols=2, width=9.0, height=3.4)
    names = ("cevolve", "island_best", "topk", "single")
    series = {LABELS[n]: [metric_values(results, f"test_{n}_{ds}") for ds in DATASETS] for n in names}
    grouped_bars(ax1, DATASETS, series, interval="t", dots=True)
    ax1.set_ylabel("test accuracy (majority vote)")
    lo = min(float(np.min(v)) for s in series.values() for v in s)
    ax1.set_ylim(max(0.0, lo - 0.05), 1.0)
    gains = {LABELS[n]: [metric_values(results, f"gain_{n}_{ds}") for ds in DATASETS] for n in names[:3]}
    grouped_bars(ax2, DATASETS, gains, interval="t", dots=True)
    ax2.axhline(0.0, color="grey", lw=0.8)
    ax2.set_ylabel("group - best member (test)")
    legend(ax2)
    return fig


def diversity_scatter(results: Sequence[Any]) -> Figure:
    """Final groups: members' mean individual test accuracy vs their mean pairwise error correlation (one dot per
    split). C-Evolve is expected to trade member accuracy for less correlated errors."""
    fig, axes = new_figure(ncols=2, width=9.0, height=3.4)
    for ax, ds in zip(axes, DATASETS):
        for i, name in enumerate(("cevolve", "island_best", "topk")):
            pts = [
                (r.metrics.get(f"err_corr_{name}_{ds}"), r.metrics.get(f"member_acc_{name}_{ds}"))
                for r in results
            ]
            pts = [(float(x), float(y)) for x, y in pts if x is not None and y is not None and np.isfinite(x)]
            if pts:  # a group whose members make no test error has no correlation: left out
                ax.scatter(*zip(*pts), s=14, color=f"C{i}", label=LABELS[name], alpha=0.8)
        ax.set_title(ds, fontsize=9)
        ax.set_xlabel("mean pairwise error correlation")
        ax.set_ylabel("mean member test accuracy")
    legend(axes[0])
    return fig
