"""Figures for the soft-label leakage reproduction (arXiv 2506.14457): phase diagrams and size sweeps."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import legend, new_figure

__all__ = ["fresh_agreement_vs_size", "leakage_vs_size", "phase_diagrams"]


def _mean(results: Sequence[Any], family: str, part: str, metric: str) -> np.ndarray:
    rows = [np.array(r.artifacts[family][part][metric], dtype=float) for r in results]
    return np.nanmean(np.stack(rows), axis=0) if rows else np.array([])


def phase_diagrams(results: Sequence[Any]) -> Figure:
    """Held-out accuracy on the never-seen random labels over (|D_S|, tau), logistic and MLP students (seed mean)."""
    fig, axes = new_figure(ncols=2, width=10, height=4)
    first = results[0].artifacts
    for ax, family, title in zip(axes, ("logreg", "mlp"), ("logistic student", "MLP student")):
        art = first[family]
        acc = _mean(results, family, "soft", "heldout_accuracy")
        im = ax.imshow(acc.T, origin="lower", aspect="auto", vmin=0, vmax=1, cmap="viridis")
        ax.set_xticks(range(len(art["sizes"])), [str(n) for n in art["sizes"]])
        ax.set_yticks(range(len(art["taus"])), [f"{t:g}" for t in art["taus"]])
        for (i, j), v in np.ndenumerate(acc):
            ax.text(i, j, f"{v:.2f}", ha="center", va="center", fontsize=7, color="w" if v < 0.6 else "k")
        ax.set_xlabel("|D_S| (transfer-set size)")
        ax.set_ylabel("teacher temperature tau")
        ax.set_title(f"{title} (d = {first['d']}, C = {first['C']}, chance {1 / first['C']:.2f})")
    fig.colorbar(im, ax=axes, label="held-out accuracy")
    return fig


def leakage_vs_size(results: Sequence[Any]) -> Figure:
    """Logistic held-out accuracy vs |D_S| per tau, with hard-label and shuffled baselines and the d + 1 line."""
    fig, ax = new_figure(width=6, height=4)
    art = results[0].artifacts
    sizes = art["logreg"]["sizes"]
    acc = _mean(results, "logreg", "soft", "heldout_accuracy")
    for j, tau in enumerate(art["logreg"]["taus"]):
        ax.plot(sizes, acc[:, j], "o-", label=f"soft, tau = {tau:g}")
    for part, style in (("hard", "k--"), ("shuffled", "k:")):
        ax.plot(sizes, _mean(results, "logreg", part, "heldout_accuracy"), style, label=f"{part} labels")
    ax.axvline(art["d"] + 1, color="gray", lw=1, label="d + 1")
    ax.axhline(1 / art["C"], color="gray", ls="-.", lw=1, label="chance")
    ax.set_xlabel("|D_S|")
    ax.set_ylabel("held-out accuracy (random labels)")
    legend(ax)
    return fig


def fresh_agreement_vs_size(results: Sequence[Any]) -> Figure:
    """Teacher-student argmax agreement on fresh random inputs vs |D_S| (functional recovery), per tau."""
    fig, axes = new_figure(ncols=2, width=10, height=4, sharey=True)
    art = results[0].artifacts
    for ax, family, title in zip(axes, ("logreg", "mlp"), ("logistic student", "MLP student")):
        sizes = art[family]["sizes"]
        agree = _mean(results, family, "soft", "fresh_agreement")
        for j, tau in enumerate(art[family]["taus"]):
            ax.plot(sizes, agree[:, j], "o-", label=f"tau = {tau:g}")
        ax.axvline(art["d"] + 1, color="gray", lw=1, label="d + 1")
        ax.set_xlabel("|D_S|")
        ax.set_title(title)
        legend(ax)
    axes[0].set_ylabel("agreement with teacher on fresh inputs")
    return fig
