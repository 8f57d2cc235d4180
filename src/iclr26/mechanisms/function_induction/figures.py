"""Figures of the function-induction reproduction (arXiv 2507.09875); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import grouped_bars, legend, metric_values, new_figure, seed_band
from iclr26.harness.store import SeedResult

__all__ = ["accuracy_vs_shots", "naive_heatmaps", "patching_heatmaps", "transfer_bars"]

_STAGES = (
    ("consolidation", "stage 1: -> final residual"),
    ("function_induction", "stage 2: -> value of consolidation heads"),
    ("previous_token", "stage 3: -> value of F"),
)


def accuracy_vs_shots(results: Sequence[SeedResult]) -> Figure:
    """8-shot-trained model: standard and (never trained) off-by-one addition accuracy vs number of demos."""
    fig, ax = new_figure(width=4.6)
    seed_band(ax, results, "acc_standard_vs_shots", label="standard a+b", marker="o")
    seed_band(ax, results, "acc_off_by_one_vs_shots", label="off-by-one a+b+1 (held out)", marker="s")
    ax.set(xlabel="in-context demos", ylabel="accuracy (band: min-max over seeds)", ylim=(-0.02, 1.02))
    legend(ax)
    return fig


def patching_heatmaps(results: Sequence[SeedResult]) -> Figure:
    """Relative path-patching effect r (layer x head) per stage, first seed, own colour scale; -1 = the whole +1.

    ``*`` marks the consolidation heads (stage 1) and the set F (stage 2)."""
    r0 = results[0]
    fig, axes = new_figure(ncols=3, width=12, height=3.4)
    for ax, (key, title) in zip(axes, _STAGES):
        r = np.asarray(r0.artifacts["stages"][key]["r"], dtype=float)
        v = max(float(np.nanmax(np.abs(r))), 1e-3)
        im = ax.imshow(r, cmap="RdBu", vmin=-v, vmax=v, aspect="auto")
        ax.set(xlabel="head", ylabel="layer", title=title)
        ax.set_xticks(range(r.shape[1]))
        ax.set_yticks(range(r.shape[0]))
        marks = {"consolidation": "consolidation_heads", "function_induction": "fi_heads"}.get(key)
        if marks:
            for l, h in r0.artifacts[marks]:
                ax.text(h, l, "*", ha="center", va="center", color="k")
        fig.colorbar(im, ax=ax, label="relative effect r", shrink=0.85)
    return fig


def naive_heatmaps(results: Sequence[SeedResult]) -> Figure:
    """Logit change on naive x = x prompts when each head of F (first seed) is added: query y vs output number."""
    r0 = results[0]
    heats = [np.asarray(h, dtype=float) for h in r0.artifacts["naive_heatmaps"]]
    heads = r0.artifacts["fi_heads"]
    sig = r0.artifacts.get("fi_significant", [True] * len(heads))
    fig, axes = new_figure(ncols=len(heats), width=3.0 * len(heats), height=3.0, flat=True)
    for ax, hm, (l, h), s in zip(axes, heats, heads, sig):
        v = float(np.abs(hm).max()) or 1.0
        im = ax.imshow(hm, cmap="RdBu_r", vmin=-v, vmax=v)
        ax.set(xlabel="output number", ylabel="query y", title=f"head {l}.{h}" + ("" if s else " (n.s.)"))
        fig.colorbar(im, ax=ax, shrink=0.8)
    return fig


def transfer_bars(results: Sequence[SeedResult]) -> Figure:
    """Contrast-task accuracy clean, with F ablated, with 4 random heads ablated (dots: seeds)."""
    cats = [("off", "off-by-one"), ("base8", "base-8 (held out)"), ("shift", "x=x+1 (held out)")]
    series = {
        label: [metric_values(results, f"acc_{c}_{suffix}") for c, _ in cats]
        for label, suffix in (("clean", "clean"), ("F ablated", "fi"), ("4 random heads", "random"))
    }
    fig, ax = new_figure(width=5.6)
    grouped_bars(ax, [name for _, name in cats], series, dots=True)
    ax.set(ylabel="accuracy on the contrast task", ylim=(0, 1.05))
    legend(ax)
    return fig
