"""Figures of the MeanCache reproduction (arXiv 2601.19961); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import legend, metric_mean, new_figure
from iclr26.harness.store import SeedResult

__all__ = ["psnr_vs_nfe", "sample_grid", "schedule_plot", "smoothness"]

METHODS = ("meancache", "pssp_reuse", "uniform_jvp", "reuse", "taylorseer", "teacache", "euler_fewer")


def psnr_vs_nfe(results: Sequence[SeedResult]) -> Figure:
    """PSNR vs the 50-step reference against NFE for every method (digits and 2-D mixture; mean over seeds)."""
    budgets = [int(b) for b in results[0].artifacts["budgets"]]
    fig, axes = new_figure(ncols=2, width=9, height=3.4)
    for ax, task in zip(axes, ("digits", "mixture")):
        for m in METHODS:
            x = [metric_mean(results, f"{task}_b{b}_{m}_nfe") for b in budgets]
            y = [metric_mean(results, f"{task}_b{b}_{m}_psnr") for b in budgets]
            ax.plot(x, y, "o-", label=m, lw=2.5 if m == "meancache" else 1)
        ax.set(xlabel="network evaluations (of 50)", ylabel="PSNR vs reference (dB)", title=task)
    legend(axes[0])
    return fig


def smoothness(results: Sequence[SeedResult]) -> Figure:
    """Per-step velocity change |v_i - v_(i-1)|: reference instantaneous velocity vs MeanCache's velocities at 4x."""
    fig, ax = new_figure(width=5)
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
    fig, ax = new_figure(width=7, height=2.4)
    steps = np.arange(len(s["K"]))
    ax.bar(steps, s["K"], color="tab:blue", label="K (skipped step)")
    comp = [i for i, c in enumerate(s["schedule"]) if c]
    ax.scatter(comp, [0.2] * len(comp), color="tab:red", marker="v", label="computed")
    ax.set(xlabel="step", ylabel="JVP window K")
    legend(ax)
    return fig


def sample_grid(results: Sequence[SeedResult]) -> Figure:
    """Digits samples from the same noise at 4x: 50-step reference, MeanCache, uniform reuse (rows)."""
    smp = results[0].artifacts["samples"]
    rows = ("reference", "meancache", "reuse")
    fig, axes = new_figure(ncols=10, nrows=len(rows), width=7, height=2.4, squeeze=False)
    for r, name in enumerate(rows):
        for c in range(10):
            ax = axes[r][c]
            ax.imshow(np.asarray(smp[name][c]).reshape(8, 8), cmap="gray_r", vmin=-1, vmax=1)
            ax.set_xticks([])
            ax.set_yticks([])
        axes[r][0].set_ylabel(name, fontsize=7)
    return fig
