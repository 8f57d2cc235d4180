"""Figures of the AND-OR template reproduction: anchors per branch, a parse tree, rating scatter, prescriptions.

Each function takes the per-seed results of one budget and returns a matplotlib Figure (no pyplot); its
docstring's first line is its caption. Scenes are drawn deterministically with the Pillow renderer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from iclr26.generative.and_or_template.scenes import CompositionRenderer, Part
from iclr26.harness.figures import legend, new_figure, note

__all__ = ["anchors", "before_after", "parse_tree", "rating_scatter"]


def _art(results: Sequence[Any], key: str):
    return results[0].artifacts.get(key) if results else None


def anchors(results: Sequence[Any]) -> Figure:
    """Learned subject-position anchors of each branch over the canvas (first seed; size ~ lambda)."""
    fig, ax = new_figure(width=5, height=5)
    rows = _art(results, "anchors")
    if not rows:
        note(ax, "no branches stored")
        return fig
    labels = sorted({r["label"] for r in rows})
    colors = {lab: f"C{i}" for i, lab in enumerate(labels)}
    for r in rows:
        if r["xy"]:
            xy = np.asarray(r["xy"])
            ax.scatter(
                xy[:, 0], xy[:, 1], s=10 + 8 * np.asarray(r["lam"]), color=colors[r["label"]], alpha=0.6
            )
    for lab in labels:
        ax.scatter([], [], color=colors[lab], label=lab)
    for t in (1 / 3, 2 / 3):
        ax.axvline(t, color="0.8", lw=0.8)
        ax.axhline(t, color="0.8", lw=0.8)
    ax.set_xlim(0, 1)
    ax.set_ylim(1, 0)
    ax.set_aspect("equal")
    legend(ax, fontsize=7)
    return fig


def parse_tree(results: Sequence[Any]) -> Figure:
    """Parse tree of one test scene (first seed): the chosen OR branch and its AND terms with evidence."""
    fig, (left, right) = new_figure(ncols=2, width=10, height=4, width_ratios=[1, 2])
    p = _art(results, "parse")
    if not p:
        note(left, "no parse stored")
        return fig
    left.imshow(CompositionRenderer(128).render([Part(**d) for d in p["parts"]]))
    left.axis("off")
    right.axis("off")
    right.text(0, 1, p["tree"], family="monospace", fontsize=7, va="top", transform=right.transAxes)
    return fig


def rating_scatter(results: Sequence[Any]) -> Figure:
    """Consistency score S against the synthetic rating on test scenes (first seed, 300 scenes)."""
    fig, ax = new_figure()
    s = _art(results, "scatter")
    if not s:
        note(ax, "no scores stored")
        return fig
    kind = np.asarray(s["kind"])
    for k in sorted(set(kind.tolist())):
        m = kind == k
        ax.scatter(np.asarray(s["S"])[m], np.asarray(s["rating"])[m], s=8, label=k)
    ax.set_xlabel("S(I) (nats)")
    ax.set_ylabel("synthetic rating")
    legend(ax, fontsize=7)
    return fig


def before_after(results: Sequence[Any]) -> Figure:
    """Amateur scenes before (top) and after (bottom) the top prescription, with the ratings."""
    ex = _art(results, "prescriptions") or []
    if not ex:
        fig, ax = new_figure()
        note(ax, "no prescriptions stored")
        return fig
    fig, axes = new_figure(ncols=len(ex), nrows=2, width=3 * len(ex), height=6, squeeze=False)
    r = CompositionRenderer(128)
    for j, e in enumerate(ex):
        for i, key in enumerate(("before", "after")):
            ax = axes[i, j]
            ax.imshow(r.render([Part(**d) for d in e[key]]))
            ax.axis("off")
            ax.set_title(f"{key}: rating {e['rating_' + key]:.2f}", fontsize=8)
        axes[1, j].text(0, -0.05, e["term"], fontsize=6, transform=axes[1, j].transAxes, va="top")
    return fig
