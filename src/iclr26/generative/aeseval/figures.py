"""Figures of the AesEval-Bench reproduction: the claim's comparison, per-indicator heatmaps, IoU histograms, samples.

Each function takes the per-seed results of one budget and returns a matplotlib Figure (no pyplot); its
docstring's first line is its caption.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import grouped_bars, legend, metric_values, new_figure, note

__all__ = ["claim_bars", "examples", "indicator_heatmap", "iou_histograms"]

BACKENDS = ("oracle", "random", "majority", "image", "grounded")
LABELS = {"image": "CNN image-level", "grounded": "CNN grounded"}


def _art(results: Sequence[Any], key: str):
    return results[0].artifacts.get(key) if results else None


def claim_bars(results: Sequence[Any]) -> Figure:
    """Test accuracy per task and backend (mean over seeds, dots: seeds; bbox: mean IoU on boxed GT; dotted: chance 1/2, 1/4)."""
    fig, ax = new_figure(width=7, height=3.4)
    tasks = [("judge", "judge_acc_{}"), ("choice", "choice_acc_{}"), ("bbox IoU", "bbox_iou_{}")]
    series = {}
    for b in BACKENDS:
        rows = [metric_values(results, t.format(b), required=False) for _, t in tasks]
        if all(len(r) for r in rows):
            series[LABELS.get(b, b)] = rows
    if not series:
        note(ax, "no task metrics stored")
        return fig
    grouped_bars(ax, [t for t, _ in tasks], series, dots=True)
    for y in (0.5, 0.25):
        ax.axhline(y, color="0.6", lw=0.8, ls=":")
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("score")
    legend(ax, fontsize=7, ncols=5, loc="upper center", bbox_to_anchor=(0.5, -0.1))
    return fig


def indicator_heatmap(results: Sequence[Any]) -> Figure:
    """Per-indicator accuracy (backend x indicator) for the three tasks (first seed; bbox: mean score)."""
    per = _art(results, "per_indicator")
    fig, axes = new_figure(ncols=3, width=14, height=3.4, flat=True)
    if not per:
        note(axes[0], "no per-indicator results stored")
        return fig
    names = [b for b in BACKENDS if b in per]
    keys = sorted({k for b in names for k in per[b].get("judge", {})})
    im = None
    for ax, task in zip(axes, ("judge", "choice", "bbox"), strict=True):
        m = np.array([[per[b].get(task, {}).get(k, np.nan) for k in keys] for b in names])
        im = ax.imshow(m, vmin=0, vmax=1, cmap="viridis", aspect="auto")
        ax.set_xticks(range(len(keys)), [k.split("-")[1] for k in keys], rotation=60, fontsize=7, ha="right")
        ax.set_yticks(range(len(names)), [LABELS.get(b, b) for b in names], fontsize=7)
        ax.set_title(task, fontsize=9)
        for i in range(m.shape[0]):
            for j in range(m.shape[1]):
                if np.isfinite(m[i, j]):
                    ax.text(
                        j,
                        i,
                        f"{m[i, j]:.2f}",
                        ha="center",
                        va="center",
                        fontsize=5,
                        color="w" if m[i, j] < 0.5 else "k",
                    )
    if im is not None:
        fig.colorbar(im, ax=list(axes), shrink=0.8)
    return fig


def iou_histograms(results: Sequence[Any]) -> Figure:
    """Bbox-mode scores (IoU) on test questions with a ground-truth box, per backend (first seed)."""
    fig, ax = new_figure(width=5.5, height=3.2)
    data = _art(results, "iou")
    if not data:
        note(ax, "no IoU scores stored")
        return fig
    bins = np.linspace(0, 1, 21)
    for name, vals in data.items():
        if vals:
            ax.hist(
                vals,
                bins=bins,
                histtype="step",
                lw=1.5,
                label=f"{LABELS.get(name, name)} (mean {np.mean(vals):.2f})",
            )
    ax.set_xlabel("IoU with the ground-truth element box")
    ax.set_ylabel("questions")
    legend(ax, fontsize=7)
    return fig


def examples(results: Sequence[Any]) -> Figure:
    """Nine test designs of the first seed (regenerated), with the asked indicator and the changed element boxed."""
    from iclr26.generative.aeseval.designs import ProceduralDesignGenerator

    ex = _art(results, "examples")
    fig, axes = new_figure(ncols=3, nrows=3, width=7.5, height=8, flat=True)
    if not ex or not results:
        note(axes[0], "no examples stored")
        return fig
    cfg = results[0].config
    gen = ProceduralDesignGenerator(
        canvas=int(cfg.get("canvas", 256)), p_issue=float(cfg.get("p_issue", 0.5))
    )
    split = gen.split(len(ex), seed=2 * int(results[0].seed) + 1, prefix="test")
    for ax, s in zip(axes, split[: len(axes)], strict=False):
        ax.imshow(s.image)
        ax.axis("off")
        ((key, changes),) = s.gt.items()
        if changes:
            e = s.element(changes[0]["element_index"])
            ax.add_patch(
                __import__("matplotlib.patches", fromlist=["Rectangle"]).Rectangle(
                    (e["left"], e["top"]), e["width"], e["height"], fill=False, color="r", lw=1.5
                )
            )
        ax.set_title(f"{key}: {'issue' if changes else 'clean'}", fontsize=7)
    return fig
