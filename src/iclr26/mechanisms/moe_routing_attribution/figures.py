"""Figures of the Routing-Contribution reproduction (OpenReview BqyPLOkxFY); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import metric_values, new_figure, seed_band, seed_bars
from iclr26.harness.store import SeedResult

__all__ = ["aarv_bars", "distance_profile", "influence_heatmaps", "stripes"]


def _nan(rows: list) -> np.ndarray:
    return np.array([[np.nan if v is None else v for v in row] for row in rows], dtype=float)


def influence_heatmaps(results: Sequence[SeedResult]) -> Figure:
    """Share of each sender in the summed influence (variance across experts) at each receiver MoE layer (seed mean)."""
    senders = results[0].artifacts["senders"]
    mat = np.mean([_nan(r.artifacts["influence"]) for r in results], axis=0)  # same NaN layout in every seed
    mat = mat / np.nansum(mat, axis=0, keepdims=True)
    fig, axes = new_figure(ncols=3, width=10, height=3.4)
    groups = (("embedding", ("embed", "pos")), ("attention", ("attn",)), ("MoE", ("moe",)))
    vmax = float(np.nanmax(mat))
    for ax, (title, prefixes) in zip(axes, groups):
        rows = [i for i, s in enumerate(senders) if s.startswith(prefixes)]
        im = ax.imshow(mat[rows], vmin=0, vmax=vmax, cmap="viridis", aspect="auto")
        ax.set(title=f"{title} (share)", xlabel="receiver MoE layer", yticks=range(len(rows)))
        ax.set_yticklabels([senders[i] for i in rows], fontsize=7)
    fig.colorbar(im, ax=fig.axes)
    return fig


def distance_profile(results: Sequence[SeedResult]) -> Figure:
    """Promoting (APS) and inhibiting (ANS) sub-scores of MoE senders against layer distance (mean over seeds)."""
    fig, ax = new_figure()
    for key, label in (("aps_vs_distance", "APS"), ("ans_vs_distance", "ANS")):
        seed_band(ax, results, key, interval=None, marker="o", label=label)
    ax.axhline(0, color="k", lw=0.5)
    ax.set(xlabel="receiver - sender layer", ylabel="mean sub-score")
    ax.legend()
    return fig


def stripes(results: Sequence[SeedResult]) -> Figure:
    """Per-expert influence of each sender MoE layer on every later receiver (first seed): persistent rows = stripes."""
    exp = results[0].artifacts["expert_influence"]
    names = list(exp)
    mat = np.vstack([_nan(exp[n]) for n in names])
    n_exp = len(exp[names[0]])
    fig, ax = new_figure(height=0.25 * mat.shape[0] + 1.5)
    im = ax.imshow(mat, cmap="viridis", aspect="auto")
    ax.set(xlabel="receiver MoE layer", ylabel="sender expert")
    ax.set_yticks(range(mat.shape[0]))
    ax.set_yticklabels([f"{n}.e{e}" for n in names for e in range(n_exp)], fontsize=6)
    fig.colorbar(im, ax=ax)
    return fig


def aarv_bars(results: Sequence[SeedResult]) -> Figure:
    """AARV at receivers >= 3 layers above the sender: highest-influence expert vs the sender's other experts."""
    fig, ax = new_figure(width=4)
    values = [metric_values(results, "aarv_top"), metric_values(results, "aarv_random")]
    seed_bars(ax, [0, 1], values, color=["C3", "C7"])
    ax.set_xticks([0, 1])
    ax.set_xticklabels(["top expert", "other experts"])
    ax.set(ylabel="AARV (rank positions)")
    return fig
