"""Figures of the signed-segregation reproduction (OpenReview lnTX3GoeTY); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import grouped_bars, legend, metric_mean, new_figure
from iclr26.harness.store import SeedResult

__all__ = ["accuracy_vs_dale", "mask_share_bars", "visualisations"]


def visualisations(results: Sequence[SeedResult]) -> Figure:
    """Class-unit visualisations of the main ReLU model: intact, positive inputs removed, negative removed."""
    viz = results[0].artifacts["viz"]
    a1 = f"{max(results[0].artifacts['alphas']):g}"
    rows = [("intact", "intact"), (f"minus_pos_{a1}", "- positive"), (f"minus_neg_{a1}", "- negative")]
    n = len(viz["intact"])
    fig, axes = new_figure(ncols=n, nrows=3, width=1.4 * n, height=4.4, squeeze=False)
    for i, (key, label) in enumerate(rows):
        for c in range(n):
            ax = axes[i, c]
            ax.imshow(np.asarray(viz[key][c]), cmap="gray", vmin=0, vmax=1)
            ax.set_xticks([])
            ax.set_yticks([])
            if c == 0:
                ax.set_ylabel(label)
            if i == 0:
                ax.set_title(f"class {c}")
    return fig


def mask_share_bars(results: Sequence[SeedResult]) -> Figure:
    """Object-mask share of input attribution (positive vs negative pathway) per model, and viz spectral centroid."""
    names = list(results[0].artifacts["models"])
    share = {
        label: [[r.artifacts["models"][n][key] for r in results] for n in names]
        for key, label in (("mask_pos", "positive pathway"), ("mask_neg", "negative pathway"))
    }
    fig, (ax, ax2) = new_figure(ncols=2, width=10, height=3.4, width_ratios=[3, 1])
    grouped_bars(ax, names, share, tick_kw={"rotation": 30, "ha": "right", "fontsize": 7})
    ax.set(ylabel="attribution share inside object mask")
    legend(ax)
    a1 = f"{max(results[0].artifacts['alphas']):g}"
    keys = ["centroid_intact", f"centroid_minus_pos_{a1}", f"centroid_minus_neg_{a1}"]
    ax2.bar(range(3), [metric_mean(results, k) for k in keys])
    ax2.set_xticks(range(3), ["intact", "-pos", "-neg"])
    ax2.set(ylabel="spectral centroid (cyc/px)")
    return fig


def accuracy_vs_dale(results: Sequence[SeedResult]) -> Figure:
    """Test accuracy against the readout layer's mean Dale index (outgoing weights), every zoo model and seed."""
    fig, ax = new_figure(height=3.4)
    for r in results:
        ms = r.artifacts["models"]
        ax.scatter([ms[n]["dale_out"] for n in ms], [ms[n]["acc"] for n in ms], s=14, label=f"seed {r.seed}")
    ax.axvline(metric_mean(results, "dale_out_init"), ls="--", c="k", lw=0.8)
    ax.set(xlabel="mean Dale index (readout, outgoing)", ylabel="test accuracy")
    legend(ax)
    return fig
