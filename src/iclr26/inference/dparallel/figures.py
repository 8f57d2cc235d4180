"""Figures of the dParallel reproduction (arXiv 2509.26488); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import curve_matrix, legend, new_figure
from iclr26.harness.store import SeedResult

__all__ = ["accuracy_vs_nfe", "certainty_heatmap", "commits_histogram"]

_SERIES = (
    ("teacher_fixed", "teacher, fixed steps", "k--"),
    ("teacher_entropy", "teacher + entropy threshold", "ko-"),
    ("ce_entropy", "CE-only distil (beta = 0)", "s-"),
    ("dparallel_entropy", "dParallel (beta = 2)", "o-"),
)


def accuracy_vs_nfe(results: Sequence[SeedResult]) -> Figure:
    """Exact-match accuracy against mean model calls per sample for each decoder (mean over seeds)."""
    fig, ax = new_figure(width=5.5, height=3.6)
    for key, label, style in _SERIES:
        _, nfe = curve_matrix(results, key, field="x", same_x=False)  # x is the measured NFE of each seed
        _, acc = curve_matrix(results, key, same_x=False)
        ax.plot(nfe.mean(axis=0), acc.mean(axis=0), style, label=label, ms=4)
    budget = results[0].metrics["budget_nfe"]
    ax.axvline(budget, color="grey", lw=0.8, ls=":", label="budget gen_len / 4")
    ax.set(xscale="log", xlabel="mean NFE per sample", ylabel="exact-match accuracy")
    legend(ax)
    return fig


def certainty_heatmap(results: Sequence[SeedResult]) -> Figure:
    """Mean confidence max_v p(v) of still-masked positions per call, one token per call: teacher vs dParallel."""
    heat = results[0].artifacts["heatmap"]
    fig, axes = new_figure(ncols=2, width=9, height=3.4)
    for ax, (name, title) in zip(axes, (("teacher", "teacher"), ("dparallel", "dParallel student"))):
        data = np.array(heat[name], dtype=float)
        im = ax.imshow(
            np.ma.masked_invalid(data), aspect="auto", origin="lower", vmin=0, vmax=1, cmap="viridis"
        )
        ax.set(xlabel="generated position", ylabel="decoding call", title=title)
    fig.colorbar(im, ax=axes, label="mean confidence")
    return fig


def commits_histogram(results: Sequence[SeedResult]) -> Figure:
    """Tokens committed per model call at tau = 0.5 for the teacher, CE-only and dParallel (all seeds pooled)."""
    fig, ax = new_figure(width=5.5)
    names = ("teacher", "ce", "dparallel")
    width = 0.27
    for i, name in enumerate(names):
        counts = np.sum([r.artifacts["commits"][name] for r in results], axis=0).astype(float)
        frac = counts / max(counts.sum(), 1.0)
        k = np.arange(1, len(frac) + 1)
        ax.bar(k + (i - 1) * width, frac, width=width, label=name)
    ax.set(xlabel="tokens committed in one call", ylabel="fraction of calls")
    legend(ax)
    return fig
