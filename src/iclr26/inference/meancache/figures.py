"""Figures of the MeanCache reproduction (arXiv 2601.19961); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.store import SeedResult

__all__ = ["psnr_vs_nfe", "sample_grid", "schedule_plot", "smoothness"]

METHODS = ("meancache", "pssp_reuse", "uniform_jvp", "reuse", "taylorseer", "teacache", "euler_fewer")


def psnr_vs_nfe(results: Sequence[SeedResult]) -> Figure:
    """PSNR vs the 50-step reference against NFE for every method (digits and 2-D mixture; mean over seeds)."""
    budgets = [int(b) for b in results[0].artifacts["budgets"]]
    fig = Figure(figsize=(9, 3.4), layout="constrained")
    for ax, task in zip(fig.subplots(1, 2), ("digits", "mixture")):
        for m in METHODS:
            x = [np.mean([r.metrics[f"{task}_b{b}_{m}_nfe"] for r in results]) for b in budgets]
            y = [np.mean([r.metrics[f"{task}_b{b}_{m}_psnr"] for r in results]) for b in budgets]
            ax.plot(x, y, "o-", label=m, lw=2.5 if m == "meancache" else 1)
        ax.set(xlabel="network evaluations (of 50)", ylabel="PSNR vs reference (dB)", title=task)
    fig.axes[0].legend(fontsize=7)
    return fig


def smoothness(results: Sequence[SeedResult]) -> Figure:
    """Per-step velocity change |v_i - v_(i-1)|: reference instantaneous velocity vs MeanCache's velocities at 4x."""
    fig = Figure(figsize=(5, 3.2), layout="constrained")
    ax = fig.subplots()
    for key, label in (
        ("digits_dv_ref", "instantaneous (50-step ref.)"),
        ("digits_dv_meancache", "MeanCache"),
    ):
        c = results[0].curves[key]
        ax.semilogy(c["x"], np.maximum(np.asarray(c["y"]), 1e-8), label=label)
    ax.set(xlabel="step", ylabel="mean |v_i - v_(i-1)|")
    ax.legend()
    return fig


def schedule_plot(results: Sequence[SeedResult]) -> Figure:
    """PSSP schedule at the claim budget (first seed): computed steps and the window K of each skipped step."""
    s = results[0].artifacts["schedule"]
    fig = Figure(figsize=(7, 2.4), layout="constrained")
    ax = fig.subplots()
    steps = np.arange(len(s["K"]))
    ax.bar(steps, s["K"], color="tab:blue", label="K (skipped step)")
    comp = [i for i, c in enumerate(s["schedule"]) if c]
    ax.scatter(comp, [0.2] * len(comp), color="tab:red", marker="v", label="computed")
    ax.set(xlabel="step", ylabel="JVP window K")
    ax.legend(fontsize=7)
    return fig


def sample_grid(results: Sequence[SeedResult]) -> Figure:
    """Digits samples from the same noise at 4x: 50-step reference, MeanCache, uniform reuse (rows)."""
    smp = results[0].artifacts["samples"]
    rows = ("reference", "meancache", "reuse")
    fig = Figure(figsize=(7, 2.4), layout="constrained")
    axes = fig.subplots(len(rows), 10, squeeze=False)
    for r, name in enumerate(rows):
        for c in range(10):
            ax = axes[r][c]
            ax.imshow(np.asarray(smp[name][c]).reshape(8, 8), cmap="gray_r", vmin=-1, vmax=1)
            ax.set_xticks([])
            ax.set_yticks([])
        axes[r][0].set_ylabel(name, fontsize=7)
    return fig
