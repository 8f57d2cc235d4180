"""Figures of the signed-segregation reproduction (OpenReview lnTX3GoeTY); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.store import SeedResult

__all__ = ["accuracy_vs_dale", "mask_share_bars", "visualisations"]


def visualisations(results: Sequence[SeedResult]) -> Figure:
    """Class-unit visualisations of the main ReLU model: intact, positive inputs removed, negative removed."""
    viz = results[0].artifacts["viz"]
    a1 = f"{max(results[0].artifacts['alphas']):g}"
    rows = [("intact", "intact"), (f"minus_pos_{a1}", "- positive"), (f"minus_neg_{a1}", "- negative")]
    n = len(viz["intact"])
    fig = Figure(figsize=(1.4 * n, 4.4), layout="constrained")
    axes = np.atleast_2d(fig.subplots(3, n, squeeze=False))
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
    pos = [np.mean([r.artifacts["models"][n]["mask_pos"] for r in results]) for n in names]
    neg = [np.mean([r.artifacts["models"][n]["mask_neg"] for r in results]) for n in names]
    fig = Figure(figsize=(10, 3.4), layout="constrained")
    ax, ax2 = fig.subplots(1, 2, width_ratios=[3, 1])
    x = np.arange(len(names))
    ax.bar(x - 0.2, pos, 0.4, label="positive pathway")
    ax.bar(x + 0.2, neg, 0.4, label="negative pathway")
    ax.set_xticks(x, names, rotation=30, ha="right", fontsize=7)
    ax.set(ylabel="attribution share inside object mask")
    ax.legend(fontsize=7)
    a1 = f"{max(results[0].artifacts['alphas']):g}"
    keys = ["centroid_intact", f"centroid_minus_pos_{a1}", f"centroid_minus_neg_{a1}"]
    ax2.bar(range(3), [np.mean([r.metrics[k] for r in results]) for k in keys])
    ax2.set_xticks(range(3), ["intact", "-pos", "-neg"])
    ax2.set(ylabel="spectral centroid (cyc/px)")
    return fig


def accuracy_vs_dale(results: Sequence[SeedResult]) -> Figure:
    """Test accuracy against the readout layer's mean Dale index (outgoing weights), every zoo model and seed."""
    fig = Figure(figsize=(4.5, 3.4), layout="constrained")
    ax = fig.subplots()
    for r in results:
        ms = r.artifacts["models"]
        ax.scatter([ms[n]["dale_out"] for n in ms], [ms[n]["acc"] for n in ms], s=14, label=f"seed {r.seed}")
    ax.axvline(float(np.mean([r.metrics["dale_out_init"] for r in results])), ls="--", c="k", lw=0.8)
    ax.set(xlabel="mean Dale index (readout, outgoing)", ylabel="test accuracy")
    ax.legend(fontsize=7)
    return fig
