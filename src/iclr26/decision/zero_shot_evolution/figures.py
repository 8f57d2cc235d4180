"""Figures of the zero-/few-shot evolution reproduction (arXiv 2502.10862); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import legend, new_figure, seed_band
from iclr26.harness.store import SeedResult

__all__ = [
    "best_bodies",
    "crossover_examples",
    "diversity_curves",
    "loss_curves",
    "loss_vs_grad_steps",
    "pretraining_curve",
]

_MODES = (("zs", "zero-shot"), ("fs", "few-shot"), ("ss", "simultaneous"), ("rs", "random search"))
_COLORS = {"zs": "tab:blue", "fs": "tab:green", "ss": "tab:red", "rs": "tab:gray"}


def _present(results: Sequence[SeedResult], name: str) -> bool:
    return all(name in r.curves for r in results)


def loss_curves(results: Sequence[SeedResult]) -> Figure:
    """Population mean loss (d_end/d_start, lower is better) per generation for each mode (mean and range over
    seeds; the dotted line is simultaneous co-design's final loss)."""
    fig, ax = new_figure()
    for key, label in _MODES:
        if _present(results, f"loss_{key}"):
            seed_band(ax, results, f"loss_{key}", label=label, color=_COLORS[key])
    ss_final = np.mean([r.metrics["loss_ss_final"] for r in results])
    ax.axhline(ss_final, color=_COLORS["ss"], ls=":", lw=1)
    ax.set(xlabel="generation", ylabel="population mean loss")
    legend(ax)
    return fig


def loss_vs_grad_steps(results: Sequence[SeedResult]) -> Figure:
    """Population mean loss against cumulative controller gradient steps during evolution (pretraining steps
    not counted; zero-shot takes none, so it is the marker at 0)."""
    fig, ax = new_figure()
    for key, label in (("fs", "few-shot"), ("ss", "simultaneous")):
        for i, r in enumerate(results):
            c = r.curves[f"loss_steps_{key}"]
            ax.plot(c["x"], c["y"], color=_COLORS[key], alpha=0.8, label=label if i == 0 else None)
    zs = [r.curves["loss_zs"]["y"][-1] for r in results]
    ax.plot([0] * len(zs), zs, "o", color=_COLORS["zs"], label="zero-shot (final)")
    ax.set(xlabel="cumulative controller gradient steps", ylabel="population mean loss")
    legend(ax)
    return fig


def diversity_curves(results: Sequence[SeedResult]) -> Figure:
    """Population diversity (mean pairwise Hamming distance / 25) per generation for each mode (mean and range
    over seeds): the brief's collapse test is simultaneous final < 0.5 x initial."""
    fig, ax = new_figure()
    for key, label in _MODES:
        if _present(results, f"div_{key}"):
            seed_band(ax, results, f"div_{key}", label=label, color=_COLORS[key])
    init = np.mean([r.metrics["div_init"] for r in results])
    ax.axhline(0.5 * init, color="k", ls=":", lw=1, label="half the initial diversity")
    ax.set(xlabel="generation", ylabel="diversity")
    legend(ax)
    return fig


def pretraining_curve(results: Sequence[SeedResult]) -> Figure:
    """Morphological pretraining: batch loss per gradient step (each seed), with the held-out losses of the
    pretrained controller, a passive body and the untrained controller."""
    fig, axes = new_figure(ncols=2, width=9)
    for r in results:
        c = r.curves["pretrain_loss"]
        axes[0].plot(c["x"], c["y"], lw=1, label=f"seed {r.seed}")
    axes[0].set(xlabel="gradient step", ylabel="batch loss d_end/d_start")
    legend(axes[0])
    names = ("pretrained", "random_init", "passive")
    vals = np.array([[r.metrics[f"holdout_loss_{n}"] for n in names] for r in results])
    axes[1].bar(range(3), vals.mean(0), color=["tab:green", "tab:orange", "tab:gray"])
    for j in range(3):
        axes[1].plot([j] * len(vals), vals[:, j], "k.", ms=4)
    axes[1].set_xticks(range(3), ["pretrained", "untrained", "passive"])
    axes[1].set(ylabel="held-out loss", ylim=(min(0.9, vals.min() - 0.02), max(1.02, vals.max() + 0.01)))
    return fig


def best_bodies(results: Sequence[SeedResult]) -> Figure:
    """The four best bodies of the final population of each mode (first seed), with their mean losses."""
    r = results[0]
    keys = [k for k, _ in _MODES if f"best_{k}" in r.artifacts]
    fig, axes = new_figure(ncols=4, nrows=len(keys), width=7, height=1.8 * len(keys), squeeze=False)
    for row, key in enumerate(keys):
        label = dict(_MODES)[key]
        for col in range(4):
            ax = axes[row, col]
            ax.set_xticks([])
            ax.set_yticks([])
            bodies = r.artifacts[f"best_{key}"]
            if col >= len(bodies):
                continue
            g = np.asarray(bodies[col])
            ax.imshow(g.T[::-1], cmap="Greens", vmin=0, vmax=1.3)
            ax.set_title(f"{r.artifacts[f'best_{key}_loss'][col]:.3f}", fontsize=7)
            if col == 0:
                ax.set_ylabel(label, fontsize=8)
    return fig


def crossover_examples(results: Sequence[SeedResult]) -> Figure:
    """Crossover in zero-shot evolution: child loss against the better parent's loss for the 40 crossovers per seed
    whose child gained most (below the diagonal the child beats both parents; the note gives the share over all)."""
    fig, ax = new_figure()
    for r in results:
        xo = np.asarray(r.artifacts.get("crossovers_zs", []), dtype=float)
        if xo.size:
            ax.plot(xo[:, :2].min(axis=1), xo[:, 2], ".", ms=4, alpha=0.6, label=f"seed {r.seed}")
    lo, hi = ax.get_xlim()
    ax.plot([lo, hi], [lo, hi], "k:", lw=1)
    frac = [r.metrics.get("xo_child_beats_both_zs") for r in results]
    frac = [f for f in frac if f is not None]
    if frac:
        ax.set_title(f"child beats both parents in {100 * np.mean(frac):.0f}% of all crossovers", fontsize=8)
    ax.set(xlabel="better parent's loss", ylabel="child's loss")
    legend(ax)
    return fig
