"""Figures of the denoising-heads reproduction (arXiv 2509.21012), drawn from stored per-seed results."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.store import SeedResult

__all__ = ["ablation_bars", "accuracy_vs_rank", "head_heatmap", "offsub_vs_shots"]


def _curve(res: SeedResult, name: str) -> tuple[np.ndarray, np.ndarray]:
    c = res.curves[name]
    return np.asarray(c["x"]), np.asarray(c["y"])


def accuracy_vs_rank(results: Sequence[SeedResult]) -> Figure:
    """Held-out zero-shot intended-task accuracy with a learned vs a random rank-r filter at the middle layer."""
    fig = Figure(figsize=(4.5, 3.2))
    ax = fig.subplots()
    for name, style in (("acc_vs_rank", "o-"), ("acc_vs_rank_random", "s--")):
        xs, ys = zip(*(_curve(r, name) for r in results))
        ax.plot(xs[0], np.mean(ys, axis=0), style, label="learned U" if name == "acc_vs_rank" else "random U")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("filter rank r")
    ax.set_ylabel("intended-task accuracy")
    ax.set_ylim(0, 1.05)
    ax.legend()
    fig.tight_layout()
    return fig


def offsub_vs_shots(results: Sequence[SeedResult]) -> Figure:
    """Off-subspace ratio of the task subspace at the middle layer, and task selectivity, against shots."""
    fig = Figure(figsize=(4.5, 3.2))
    ax = fig.subplots()
    for name, label in (("offsub_vs_shots", "off-subspace ratio"), ("sel_vs_shots", "selectivity")):
        xs, ys = zip(*(_curve(r, name) for r in results))
        ax.plot(xs[0], np.mean(ys, axis=0), "o-", label=label)
    ax.set_xlabel("shots k")
    ax.set_ylim(0, 1.05)
    ax.legend()
    fig.tight_layout()
    return fig


def head_heatmap(results: Sequence[SeedResult]) -> Figure:
    """Selectivity drop from mean-ablating each head alone (layer x head), first seed."""
    fig = Figure(figsize=(4.5, 3.2))
    ax = fig.subplots()
    data = np.asarray(results[0].artifacts["selectivity_drop"])
    im = ax.imshow(data, cmap="viridis", aspect="auto")
    ax.set_xlabel("head")
    ax.set_ylabel("layer")
    fig.colorbar(im, ax=ax, label="selectivity drop")
    fig.tight_layout()
    return fig


def ablation_bars(results: Sequence[SeedResult]) -> Figure:
    """8-shot accuracy drop from ablating the top-2 vs 2 random heads, with the answer present / absent."""
    fig = Figure(figsize=(4.5, 3.2))
    ax = fig.subplots()
    conds = [("random demos", ""), ("label present", "_present"), ("label absent", "_absent")]
    x = np.arange(len(conds))
    for off, kind in ((-0.2, "top"), (0.2, "rand")):
        vals = [np.mean([r.metrics[f"drop_{kind}{s}"] for r in results]) for _, s in conds]
        ax.bar(x + off, vals, width=0.4, label="top-2 heads" if kind == "top" else "2 random heads")
    ax.set_xticks(x, [c for c, _ in conds])
    ax.set_ylabel("accuracy drop")
    ax.legend()
    fig.tight_layout()
    return fig
