"""Figures of the CreatiDesign reproduction (arXiv 2505.19114); each docstring's first line is its caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from iclr26.harness.figures import legend, metric_values, new_figure, note, seed_bars
from iclr26.harness.store import SeedResult

__all__ = ["accuracy_by_count", "condition_grid", "mask_heatmap"]

_BOX_COLOURS = {"red": "r", "green": "g", "blue": "b", "black": "k", "subject": "m"}


def condition_grid(results: Sequence[SeedResult]) -> Figure:
    """Conditions (boxes on the ground truth) and each variant's sample from the same noise (first seed)."""
    art = results[0].artifacts
    ex = art.get("examples", {})
    rows = ["real", *[v for v in art.get("variants", []) if v in ex]]
    n = len(ex.get("real", []))
    fig, axes = new_figure(
        ncols=max(n, 1), nrows=len(rows), width=1.4 * max(n, 1), height=1.5 * len(rows), squeeze=False
    )
    for r, name in enumerate(rows):
        for c in range(n):
            ax = axes[r][c]
            ax.imshow(np.asarray(ex[name][c], dtype=np.uint8))
            ax.set_xticks([])
            ax.set_yticks([])
            if name == "real":
                size = len(ex[name][c])
                for colour, _shape, (left, top, w, h) in ex["boxes"][c]:
                    ax.add_patch(
                        Rectangle(
                            (left * size - 0.5, top * size - 0.5),
                            w * size,
                            h * size,
                            fill=False,
                            lw=0.8,
                            ls="--",
                            color=_BOX_COLOURS.get(colour, "k"),
                        )
                    )
            if c == 0:
                ax.set_ylabel("ground truth + boxes" if name == "real" else name, fontsize=7)
    return fig


def accuracy_by_count(results: Sequence[SeedResult]) -> Figure:
    """Layout attribute accuracy and leakage against the number of layout elements, per variant (dots = seeds)."""
    variants = list(results[0].artifacts.get("variants", ["mask", "nomask"]))
    fig, axes = new_figure(ncols=2, width=9)
    width = 0.8 / max(len(variants), 1)
    for i, v in enumerate(variants):
        for ax, kind, ns in ((axes[0], "acc", (1, 2, 3)), (axes[1], "leak", (2, 3))):
            groups = [metric_values(results, f"{v}_{kind}_n{n}", required=False) for n in ns]
            seed_bars(
                ax,
                np.asarray(ns) + (i - (len(variants) - 1) / 2) * width,
                groups,
                width=width,
                color=f"C{i}",
                label=v,
                interval="t",
            )
    axes[0].axhline(1 / 12, color="k", ls=":", lw=0.8, label="chance")
    axes[0].set(
        xlabel="layout elements in the design",
        ylabel="layout attribute accuracy",
        xticks=[1, 2, 3],
        ylim=(0, 1),
    )
    axes[1].set(xlabel="layout elements in the design", ylabel="leakage rate", xticks=[2, 3], ylim=(0, 1))
    legend(axes[0])
    legend(axes[1])
    return fig


def mask_heatmap(results: Sequence[SeedResult]) -> Figure:
    """The multimodal attention mask of one test design (rows: queries, columns: keys; white = may attend)."""
    fig, ax = new_figure(width=5.5, height=5)
    m = results[0].artifacts.get("mask_example")
    if not m:
        note(ax, "no mask stored")
        return fig
    mask = np.asarray(m["mask"], dtype=float)
    ax.imshow(mask, cmap="gray", interpolation="nearest")
    p, nl = m["n_prompt"], m["max_layout"]
    st = (mask.shape[0] - p - nl - 64) // max(m["max_subjects"], 1) if m["max_subjects"] else 0
    edges = [p, p + nl, *(p + nl + st * (j + 1) for j in range(m["max_subjects"]))]
    for e in edges:
        ax.axhline(e - 0.5, color="C1", lw=0.6)
        ax.axvline(e - 0.5, color="C1", lw=0.6)
    ax.set(xlabel="key token (prompt | layout | subjects | image)", ylabel="query token")
    return fig
