"""Figures of the FARTrack reproduction (ICLR 2026, arXiv 2602.03214), drawn from stored per-seed results (first
docstring line: the caption)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from iclr26.harness.figures import legend, metric_values, new_figure, note, seed_errorbar

__all__ = ["ao_vs_depth", "ao_vs_fps", "ao_vs_pruning", "example_tracks"]


def _exits(results: Sequence[Any]) -> list[int]:
    return list(results[0].artifacts.get("exits", [])) if results else []


def ao_vs_depth(results: Sequence[Any]) -> Figure:
    """Left: test AO of every exit of one self-distilled run (truncated trackers) and of the 3-block model trained
    from scratch (mean over seeds, bars: 95% t-interval; dashed: the static-box tracker). Right: the seed-paired
    difference AO(exit) - AO(3 blocks from scratch), dots per seed, the claim's 2-point margin dotted."""
    fig, (ax, right) = new_figure(ncols=2, width=10, height=3.6)
    exits = _exits(results)
    if not exits:
        note(ax, "no results")
        return fig
    seed_errorbar(
        ax,
        exits,
        [metric_values(results, f"ao_exit{e}") for e in exits],
        interval="t",
        fmt="o-",
        label="self-distilled run, truncated",
    )
    depth = int(results[0].artifacts.get("student_depth", 3))
    seed_errorbar(
        ax,
        [depth + 0.08],
        [metric_values(results, "ao_scratch")],
        interval="t",
        fmt="s",
        color="C3",
        label=f"{depth} blocks from scratch",
    )
    if "ao_feature" in results[0].metrics:
        seed_errorbar(
            ax,
            [depth - 0.08],
            [metric_values(results, "ao_feature")],
            interval="t",
            fmt="^",
            color="C2",
            label="manual-pair feature distillation",
        )
    ax.axhline(
        float(np.mean(metric_values(results, "ao_static"))), color="0.5", ls="--", lw=1, label="static box"
    )
    ax.set(xlabel="blocks (exit depth)", ylabel="test AO (points)")
    legend(ax)
    scratch = metric_values(results, "ao_scratch")
    diffs = [metric_values(results, f"ao_exit{e}") - scratch for e in exits]
    seed_errorbar(right, exits, diffs, interval="t", fmt="o", label="mean, 95% t")
    for e, d in zip(exits, diffs):
        right.scatter(np.full(len(d), e + 0.1), d, s=10, color="k", zorder=3)
    right.axhline(0.0, color="0.5", lw=1)
    right.axhline(2.0, color="C3", ls=":", lw=1, label="claim margin (2 points)")
    right.set(xlabel="blocks (exit depth)", ylabel=f"AO(exit) - AO({depth} from scratch)")
    legend(right)
    return fig


def ao_vs_fps(results: Sequence[Any]) -> Figure:
    """Test AO against CPU speed (batch 1, 1 thread, frames per second; mean over seeds) for every exit depth and
    the from-scratch model: the speed-accuracy trade-off one distillation run offers."""
    fig, ax = new_figure(width=5.5, height=3.6)
    exits = _exits(results)
    if not exits:
        note(ax, "no results")
        return fig
    fps = [np.mean([r.artifacts["fps"][f"exit{e}"] for r in results]) for e in exits]
    ao = [np.mean(metric_values(results, f"ao_exit{e}")) for e in exits]
    ax.plot(fps, ao, "o-", label="self-distilled exits")
    for f, a, e in zip(fps, ao, exits):
        ax.annotate(f"{e}", (f, a), textcoords="offset points", xytext=(4, 4), fontsize=7)
    ax.plot(
        [np.mean([r.artifacts["fps"]["scratch"] for r in results])],
        [np.mean(metric_values(results, "ao_scratch"))],
        "s",
        color="C3",
        label="3 blocks from scratch",
    )
    ax.set(xlabel="CPU frames per second (1 thread)", ylabel="test AO (points)")
    legend(ax)
    return fig


def ao_vs_pruning(results: Sequence[Any]) -> Figure:
    """Test AO against the template-token pruning ratio for the inter-frame (FARTrack), random and intra-frame
    masks (3 templates, sequence-stage model; dashed: no pruning)."""
    fig, ax = new_figure(width=5.5, height=3.6)
    have = [r for r in results if "prune" in r.artifacts]
    if not have:
        note(ax, "sequence-level stage not run at this budget")
        return fig
    ratios = have[0].artifacts["prune_ratios"]
    for mode, style in (("inter", "o-"), ("random", "s--"), ("intra", "^:")):
        vals = [[r.artifacts["prune"][mode][k] for r in have] for k in range(len(ratios))]
        seed_errorbar(ax, ratios, vals, interval="t", fmt=style, label=mode)
    ax.axhline(
        float(np.mean([r.metrics["ao_prune_none"] for r in have])), color="0.4", ls="--", label="no pruning"
    )
    ax.set(xlabel="pruned fraction of each older template", ylabel="test AO (points)")
    legend(ax)
    return fig


def example_tracks(results: Sequence[Any]) -> Figure:
    """Test sequence 0 (seed 0): ground truth (green), the 6-block teacher (blue), the truncated 3-block student
    (orange) and the 3-block model from scratch (red) on four frames."""
    from iclr26.science.fartrack.video import make_sequences

    art = results[0].artifacts if results else {}
    fig, axes = new_figure(ncols=4, width=10, height=2.8, flat=True)
    if "example" not in art:
        note(axes[0], "no example stored")
        return fig
    ex = art["example"]
    T = len(ex["gt"])
    seq = make_sequences(1, art["test_length"], art["test_seed"])[0]
    keys = [k for k in ex if k.startswith("exit")]
    styles = {
        "gt": "lime",
        "scratch": "red",
        **{k: c for k, c in zip(sorted(keys, key=lambda k: -int(k[4:])), ("tab:blue", "tab:orange"))},
    }
    for ax, t in zip(axes, np.linspace(0, T - 1, 4).astype(int)):
        ax.imshow(seq.frame(int(t)))
        for key, colour in styles.items():
            x, y, w, h = ex[key][t]
            ax.add_patch(Rectangle((x, y), w, h, fill=False, color=colour, lw=1.2, label=key))
        ax.set_title(f"frame {t}", fontsize=8)
        ax.set_xticks([])
        ax.set_yticks([])
    legend(axes[0], fontsize=6, loc="lower left")
    return fig
