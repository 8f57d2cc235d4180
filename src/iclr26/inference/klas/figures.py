"""Figures of the KLAS reproduction (arXiv 2605.29259): KL heat map, accuracy-FLOPs curves, KL vs accuracy.

Each function takes the stored per-seed results and returns a ``matplotlib.figure.Figure``; the first line of its
docstring is the caption.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import legend, new_figure
from iclr26.harness.store import SeedResult

__all__ = ["accuracy_flops_curves", "kl_heatmap", "kl_vs_accuracy"]

COLORS = {"klas": "tab:blue", "snnet": "tab:orange", "cka": "tab:green", "random": "tab:gray"}


def kl_heatmap(results: Sequence[SeedResult]) -> Figure:
    """KL(native B || stitched) over candidates (rows: pair x i, cols: j), first seed; markers: selected stitches."""
    fams = results[0].artifacts["families"]
    fig, axes = new_figure(ncols=len(fams), width=3.6 * len(fams), height=4.0, flat=True)
    for ax, fam in zip(axes, fams):
        art = results[0].artifacts[fam]
        im = ax.imshow(np.log10(np.array(art["kl"]) + 1e-6), aspect="auto", cmap="viridis")
        for m, sel in art["selected"].items():
            if sel:
                rc = np.array(sel)
                ax.scatter(
                    rc[:, 1], rc[:, 0], s=18, marker="o", facecolors="none", edgecolors=COLORS[m], label=m
                )
        ax.set_xlabel("j (B blocks skipped)")
        ax.set_ylabel("pair x i (A blocks run)")
        ax.set_title(fam)
        fig.colorbar(im, ax=ax, label="log10 KL")
    legend(axes[-1])
    return fig


def accuracy_flops_curves(results: Sequence[SeedResult]) -> Figure:
    """Test accuracy vs normalised FLOPs of each method's anchors + stitches (Pareto step curve), first seed."""
    fams = results[0].artifacts["families"]
    fig, axes = new_figure(ncols=len(fams), width=4.0 * len(fams), flat=True)
    for ax, fam in zip(axes, fams):
        for m, color in COLORS.items():
            c = results[0].curves.get(f"{fam}_{m}")
            if c is None:
                continue
            x, y = np.array(c["x"]), np.array(c["y"])
            ax.scatter(x, y, color=color, s=12)
            ax.step(
                np.append(x, 1.0),
                np.append(np.maximum.accumulate(y), np.max(y)),
                where="post",
                color=color,
                label=m,
            )
        ax.set_xlabel("normalised FLOPs")
        ax.set_ylabel("test accuracy")
        ax.set_title(fam)
    legend(axes[-1])
    return fig


def kl_vs_accuracy(results: Sequence[SeedResult]) -> Figure:
    """Pre-fine-tuning KL vs fine-tuned test accuracy of every fine-tuned stitch, all seeds (colour: FLOPs)."""
    fams = results[0].artifacts["families"]
    fig, axes = new_figure(ncols=len(fams), width=4.0 * len(fams), flat=True)
    for ax, fam in zip(axes, fams):
        st = [s for r in results for s in r.artifacts[fam]["stitches"]]
        if st:
            sc = ax.scatter([s["kl"] for s in st], [s["acc"] for s in st], c=[s["flops"] for s in st], s=12)
            fig.colorbar(sc, ax=ax, label="FLOPs")
        ax.set_xscale("symlog", linthresh=1e-3)
        ax.set_xlabel("KL before fine-tuning")
        ax.set_ylabel("fine-tuned test accuracy")
        ax.set_title(fam)
    return fig
