"""Figures of the denoising-heads reproduction (arXiv 2509.21012), drawn from stored per-seed results."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import grouped_bars, metric_values, new_figure, seed_band
from iclr26.harness.store import SeedResult

__all__ = ["ablation_bars", "accuracy_vs_rank", "head_heatmap", "offsub_vs_shots"]


def accuracy_vs_rank(results: Sequence[SeedResult]) -> Figure:
    """Held-out zero-shot intended-task accuracy with a learned vs a random rank-r filter at the middle layer."""
    fig, ax = new_figure()
    for name, marker, ls, label in (
        ("acc_vs_rank", "o", "-", "learned U"),
        ("acc_vs_rank_random", "s", "--", "random U"),
    ):
        seed_band(ax, results, name, interval=None, marker=marker, ls=ls, label=label)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("filter rank r")
    ax.set_ylabel("intended-task accuracy")
    ax.set_ylim(0, 1.05)
    ax.legend()
    return fig


def offsub_vs_shots(results: Sequence[SeedResult]) -> Figure:
    """Off-subspace ratio of the task subspace at the middle layer, and task selectivity, against shots."""
    fig, ax = new_figure()
    for name, label in (("offsub_vs_shots", "off-subspace ratio"), ("sel_vs_shots", "selectivity")):
        seed_band(ax, results, name, interval=None, marker="o", label=label)
    ax.set_xlabel("shots k")
    ax.set_ylim(0, 1.05)
    ax.legend()
    return fig


def head_heatmap(results: Sequence[SeedResult]) -> Figure:
    """Selectivity drop from mean-ablating each head alone (layer x head), first seed."""
    fig, ax = new_figure()
    data = np.asarray(results[0].artifacts["selectivity_drop"])
    im = ax.imshow(data, cmap="viridis", aspect="auto")
    ax.set_xlabel("head")
    ax.set_ylabel("layer")
    fig.colorbar(im, ax=ax, label="selectivity drop")
    return fig


def ablation_bars(results: Sequence[SeedResult]) -> Figure:
    """8-shot accuracy drop from ablating the top-2 vs 2 random heads, with the answer present / absent."""
    fig, ax = new_figure()
    conds = [("random demos", ""), ("label present", "_present"), ("label absent", "_absent")]
    series = {
        label: [metric_values(results, f"drop_{kind}{s}") for _, s in conds]
        for kind, label in (("top", "top-2 heads"), ("rand", "2 random heads"))
    }
    grouped_bars(ax, [c for c, _ in conds], series)
    ax.set_ylabel("accuracy drop")
    ax.legend()
    return fig
