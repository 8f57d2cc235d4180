"""Figures of the Hyper-SET reproduction (arXiv 2502.11646); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.store import SeedResult

__all__ = ["accuracy_vs_params", "sudoku_depth", "trajectory"]


def accuracy_vs_params(results: Sequence[SeedResult]) -> Figure:
    """Digits test accuracy against parameter count for every arm (mean +- std over seeds)."""
    arms = results[0].artifacts["arms"]
    fig = Figure(figsize=(5, 3.4), layout="constrained")
    ax = fig.subplots()
    for arm in arms:
        acc = np.array([r.metrics[f"acc_{arm}"] for r in results])
        n = results[0].metrics[f"params_{arm}"]
        ax.errorbar([n], [acc.mean()], yerr=[acc.std()], fmt="o", capsize=3, label=arm)
    ax.set(xscale="log", xlabel="parameters", ylabel="test accuracy (%)")
    ax.legend(fontsize=7)
    return fig


def trajectory(results: Sequence[SeedResult]) -> Figure:
    """Hyper-SET per-iteration total energy, effective rank and mean angle on the test set (first seed, +- std)."""
    r = results[0]
    fig = Figure(figsize=(10, 3), layout="constrained")
    for ax, name, label in zip(
        fig.subplots(1, 3),
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
    fig = Figure(figsize=(5, 3.2), layout="constrained")
    ax = fig.subplots()
    for key in sorted(k for k in results[0].artifacts if k.startswith("sudoku_depth_") and "board" not in k):
        y = np.mean([r.artifacts[key] for r in results], axis=0)
        ax.plot(its, y, "o-", label=key.removeprefix("sudoku_depth_"))
    ax.axvline(results[0].artifacts["sudoku_iter"], ls="--", color="gray")
    ax.set(xlabel="test-time iterations", ylabel="blank-cell accuracy (%)")
    ax.legend(fontsize=7)
    return fig
