"""Figures of the Smooth-Leaky reproduction (arXiv 2509.22562); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import torch
from matplotlib.figure import Figure

from iclr26.harness.figures import legend, metric_values, new_figure, seed_band, seed_bars
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
    fig, ax = new_figure(width=7, height=3.6)
    for arm in _arms(results):
        seed_band(ax, results, f"acc_{arm}", interval=None, label=arm, lw=2.2 if "smooth" in arm else 1)
    ax.set(xlabel="task", ylabel="current-task test accuracy (%)")
    legend(ax, ncol=2)
    return fig


def stress_curves(results: Sequence[SeedResult]) -> Figure:
    """Desaturation stress test (first seed): saturated fraction and test accuracy vs step; shocks shaded."""
    r = results[0]
    acts = list(r.artifacts["activations"])
    fig, (ax_s, ax_a) = new_figure(ncols=2, width=9, height=3.4)
    for a in acts:
        c = r.curves[f"stress_sat_{a}"]
        ax_s.plot(c["x"], c["y"], label=a)
        c = r.curves[f"stress_acc_{a}"]
        ax_a.plot(c["x"], c["y"], label=a)
    ax_s.set(xlabel="step", ylabel="saturated fraction (|f'| < 1e-3)")
    ax_a.set(xlabel="step", ylabel="test accuracy (%)")
    legend(ax_a)
    return fig


def plasticity_bars(results: Sequence[SeedResult]) -> Figure:
    """Plasticity score (late 20% / first 20% of tasks) and late accuracy per activation; bars = mean, dots = seeds."""
    arms = _arms(results)
    fig, axes = new_figure(ncols=2, width=9, height=3.4)
    for ax, key, label in zip(
        axes, ("plasticity", "late_acc"), ("plasticity score", "late-task accuracy (%)")
    ):
        values = [metric_values(results, f"{key}_{a}") for a in arms]
        seed_bars(ax, range(len(arms)), values, color="tab:blue", alpha=0.6, dot_size=8)
        ax.set_xticks(range(len(arms)), arms, rotation=60, fontsize=7)
        ax.set(ylabel=label)
    return fig


def activation_shapes(results: Sequence[SeedResult]) -> Figure:
    """The compared activations (evaluation mode) and their derivatives on [-5, 5]."""
    acts = list(results[0].artifacts["activations"])
    x = torch.linspace(-5, 5, 401, dtype=torch.float64)
    fig, (ax_f, ax_d) = new_figure(ncols=2, width=9, height=3.4)
    for a in acts:
        m = get_activation(a, **_KW.get(a, {})).double().eval()
        with torch.no_grad():
            ax_f.plot(x, m(x), label=a)
        ax_d.plot(x, derivative_on(m, x), label=a)
    ax_f.set(xlabel="x", ylabel="f(x)", ylim=(-2, 5))
    ax_d.set(xlabel="x", ylabel="f'(x)")
    legend(ax_d)
    return fig
