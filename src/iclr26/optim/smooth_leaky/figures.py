"""Figures of the Smooth-Leaky reproduction (arXiv 2509.22562); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from matplotlib.figure import Figure

from iclr26.harness.store import SeedResult
from iclr26.optim.smooth_leaky.activations import get_activation
from iclr26.optim.smooth_leaky.continual import derivative_on

__all__ = ["accuracy_vs_task", "activation_shapes", "plasticity_bars", "stress_curves"]

_KW = {"leaky_relu": {"negative_slope": 0.1}}


def _arms(results: Sequence[SeedResult]) -> list[str]:
    a = results[0].artifacts
    return list(a["activations"]) + list(a.get("interventions", []))


def accuracy_vs_task(results: Sequence[SeedResult]) -> Figure:
    """Current-task test accuracy after each task of the permuted + shuffled-label sequence (mean over seeds)."""
    fig = Figure(figsize=(7, 3.6), layout="constrained")
    ax = fig.subplots()
    for arm in _arms(results):
        ys = np.mean([r.curves[f"acc_{arm}"]["y"] for r in results], axis=0)
        x = results[0].curves[f"acc_{arm}"]["x"]
        ax.plot(x, ys, label=arm, lw=2.2 if "smooth" in arm else 1)
    ax.set(xlabel="task", ylabel="current-task test accuracy (%)")
    ax.legend(fontsize=7, ncol=2)
    return fig


def stress_curves(results: Sequence[SeedResult]) -> Figure:
    """Desaturation stress test (first seed): saturated fraction and test accuracy vs step; shocks shaded."""
    r = results[0]
    acts = list(r.artifacts["activations"])
    fig = Figure(figsize=(9, 3.4), layout="constrained")
    ax_s, ax_a = fig.subplots(1, 2)
    for a in acts:
        c = r.curves[f"stress_sat_{a}"]
        ax_s.plot(c["x"], c["y"], label=a)
        c = r.curves[f"stress_acc_{a}"]
        ax_a.plot(c["x"], c["y"], label=a)
    ax_s.set(xlabel="step", ylabel="saturated fraction (|f'| < 1e-3)")
    ax_a.set(xlabel="step", ylabel="test accuracy (%)")
    ax_a.legend(fontsize=7)
    return fig


def plasticity_bars(results: Sequence[SeedResult]) -> Figure:
    """Plasticity score (late 20% / first 20% of tasks) and late accuracy per activation; bars = mean, dots = seeds."""
    arms = _arms(results)
    fig = Figure(figsize=(9, 3.4), layout="constrained")
    for ax, key, label in zip(
        fig.subplots(1, 2), ("plasticity", "late_acc"), ("plasticity score", "late-task accuracy (%)")
    ):
        vals = np.array([[r.metrics[f"{key}_{a}"] for a in arms] for r in results])
        x = np.arange(len(arms))
        ax.bar(x, vals.mean(0), color="tab:blue", alpha=0.6)
        for row in vals:
            ax.scatter(x, row, color="k", s=8)
        ax.set_xticks(x, arms, rotation=60, fontsize=7)
        ax.set(ylabel=label)
    return fig


def activation_shapes(results: Sequence[SeedResult]) -> Figure:
    """The compared activations (evaluation mode) and their derivatives on [-5, 5]."""
    acts = list(results[0].artifacts["activations"])
    x = torch.linspace(-5, 5, 401, dtype=torch.float64)
    fig = Figure(figsize=(9, 3.4), layout="constrained")
    ax_f, ax_d = fig.subplots(1, 2)
    for a in acts:
        m = get_activation(a, **_KW.get(a, {})).double().eval()
        with torch.no_grad():
            ax_f.plot(x, m(x), label=a)
        ax_d.plot(x, derivative_on(m, x), label=a)
    ax_f.set(xlabel="x", ylabel="f(x)", ylim=(-2, 5))
    ax_d.set(xlabel="x", ylabel="f'(x)")
    ax_d.legend(fontsize=7)
    return fig
