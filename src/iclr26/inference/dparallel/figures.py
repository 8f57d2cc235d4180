"""Figures of the dParallel reproduction (arXiv 2509.26488); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

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
    fig = Figure(figsize=(5.5, 3.6), layout="constrained")
    ax = fig.subplots()
    for key, label, style in _SERIES:
        xs = np.mean([r.curves[key]["x"] for r in results], axis=0)
        ys = np.mean([r.curves[key]["y"] for r in results], axis=0)
        ax.plot(xs, ys, style, label=label, ms=4)
    budget = results[0].metrics["budget_nfe"]
    ax.axvline(budget, color="grey", lw=0.8, ls=":", label="budget gen_len / 4")
    ax.set(xscale="log", xlabel="mean NFE per sample", ylabel="exact-match accuracy")
    ax.legend(fontsize=7)
    return fig


def certainty_heatmap(results: Sequence[SeedResult]) -> Figure:
    """Mean confidence max_v p(v) of still-masked positions per call, one token per call: teacher vs dParallel."""
    heat = results[0].artifacts["heatmap"]
    fig = Figure(figsize=(9, 3.4), layout="constrained")
    axes = fig.subplots(1, 2)
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
    fig = Figure(figsize=(5.5, 3.2), layout="constrained")
    ax = fig.subplots()
    names = ("teacher", "ce", "dparallel")
    width = 0.27
    for i, name in enumerate(names):
        counts = np.sum([r.artifacts["commits"][name] for r in results], axis=0).astype(float)
        frac = counts / max(counts.sum(), 1.0)
        k = np.arange(1, len(frac) + 1)
        ax.bar(k + (i - 1) * width, frac, width=width, label=name)
    ax.set(xlabel="tokens committed in one call", ylabel="fraction of calls")
    ax.legend(fontsize=7)
    return fig
