"""Figures of the Hilbert local-attention reproduction; each works on a single smoke seed."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import legend, metric_values, new_figure, note, seed_bars

__all__ = ["accuracy_bars", "cpu_time_vs_grid", "empty_ratio_vs_grid", "tile_maps"]


def tile_maps(results: Sequence) -> Figure:
    """Tile occupancy of the worked configuration (64x64 tokens, 8x8 windows, block 128): raster vs Hilbert."""
    maps = results[0].artifacts["tile_maps"]
    fig, axes = new_figure(ncols=2, width=8, height=4)
    for ax, name in zip(axes, ("rowmajor", "hilbert")):
        m = np.array(maps[name])
        ax.imshow(m, vmin=0, vmax=2, cmap="viridis")
        empty = 100.0 * (m == 0).mean()
        ax.set_title(f"{name}: {empty:.3f}% empty")
        ax.set_xlabel("key block")
        ax.set_ylabel("query block")
    return fig


def empty_ratio_vs_grid(results: Sequence) -> Figure:
    """Empty-tile percentage vs grid side (block 128 where measured), raster vs Hilbert, per pair and size."""
    rows = results[0].artifacts["tiles"]
    block = max(r["block"] for r in rows)
    fig, ax = new_figure(width=6, height=4)
    for pair, size in sorted({(r["pair"], r["size"]) for r in rows}):
        sel = sorted(
            (r for r in rows if r["pair"] == pair and r["size"] == size and r["block"] == block),
            key=lambda r: r["grid"],
        )
        for order, style in (("rowmajor", "--"), ("hilbert", "-")):
            pct = [100.0 * r[order]["empty"] / sum(r[order].values()) for r in sel]
            ax.plot([r["grid"] for r in sel], pct, style, marker="o", label=f"{pair} {size} {order}")
    ax.set_xlabel("grid side (tokens)")
    ax.set_ylabel(f"empty tiles (%), block {block}")
    legend(ax, fontsize=6)
    return fig


def accuracy_bars(results: Sequence) -> Figure:
    """Digits test accuracy of the four stage-1 attentions, mean over seeds with min-max bars."""
    names = ("swin", "hwa", "nat", "hsa")
    accs = [100 * metric_values(results, f"acc_{n}") for n in names]
    fig, ax = new_figure(width=5, height=4)
    colors = ["tab:blue", "tab:orange", "tab:blue", "tab:orange"]
    seed_bars(ax, range(len(names)), accs, interval="minmax", dots=False, capsize=4, color=colors)
    ax.set_xticks(range(len(names)), names)
    ax.set_ylabel("test accuracy (%)")
    ax.set_ylim(max(0.0, float(np.concatenate(accs).min()) - 10), 100)
    return fig


def cpu_time_vs_grid(results: Sequence) -> Figure:
    """CPU time of the block-sparse executor (raster vs Hilbert masks) and of dense masked attention vs grid."""
    fig, ax = new_figure(width=6, height=4)
    timings = results[0].artifacts.get("timings", [])
    if not timings:
        note(ax, "no timings at this budget")
        return fig
    for pair in sorted({t["pair"] for t in timings}):
        sel = sorted((t for t in timings if t["pair"] == pair), key=lambda t: t["grid"])
        grids = [t["grid"] for t in sel]
        for key, style in (("rowmajor_s", "--"), ("hilbert_s", "-"), ("dense_s", ":")):
            ax.plot(grids, [t[key] * 1e3 for t in sel], style, marker="o", label=f"{pair} {key[:-2]}")
    ax.set_yscale("log")
    ax.set_xlabel("grid side (tokens)")
    ax.set_ylabel("CPU time (ms), 1 thread")
    legend(ax)
    return fig
