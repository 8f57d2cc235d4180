"""Figures of the Hyper-SET reproduction (arXiv 2502.11646); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import legend, metric_values, new_figure, seed_errorbar
from iclr26.harness.store import SeedResult

__all__ = ["accuracy_vs_params", "sudoku_depth", "trajectory"]


def accuracy_vs_params(results: Sequence[SeedResult]) -> Figure:
    """Digits test accuracy against parameter count for every arm (mean +- std over seeds)."""
    arms = results[0].artifacts["arms"]
    fig, ax = new_figure(width=5, height=3.4)
    for arm in arms:
        n = results[0].metrics[f"params_{arm}"]
        seed_errorbar(ax, [n], [metric_values(results, f"acc_{arm}")], interval="sd", fmt="o", label=arm)
    ax.set(xscale="log", xlabel="parameters", ylabel="test accuracy (%)")
    legend(ax)
    return fig


def trajectory(results: Sequence[SeedResult]) -> Figure:
    """Hyper-SET per-iteration total energy, effective rank and mean angle on the test set (first seed, +- std)."""
    r = results[0]
    fig, axes = new_figure(ncols=3, width=10, height=3)
    for ax, name, label in zip(
        axes,
        ("energy", "effective_rank", "mean_angle"),
        ("total energy", "effective rank", "mean angle (deg)"),
    ):
        c = r.curves[f"traj_{name}"]
        x, y = np.asarray(c["x"]), np.asarray(c["y"])
        s = np.asarray(r.artifacts[f"traj_{name}_std"])
        ax.plot(x, y, "o-")
        ax.fill_between(x, y - s, y + s, alpha=0.25)
        ax.set(xlabel="iteration", ylabel=label)
    return fig


def sudoku_depth(results: Sequence[SeedResult]) -> Figure:
    """Sudoku blank-cell accuracy against the number of test-time iterations (mean over seeds; dashed: trained T)."""
    its = results[0].artifacts["sudoku_eval_iters"]
    fig, ax = new_figure(width=5)
    for key in sorted(k for k in results[0].artifacts if k.startswith("sudoku_depth_") and "board" not in k):
        y = np.mean([r.artifacts[key] for r in results], axis=0)
        ax.plot(its, y, "o-", label=key.removeprefix("sudoku_depth_"))
    ax.axvline(results[0].artifacts["sudoku_iter"], ls="--", color="gray")
    ax.set(xlabel="test-time iterations", ylabel="blank-cell accuracy (%)")
    legend(ax)
    return fig
