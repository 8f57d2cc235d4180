"""Figures of the MASS offline reproduction (first docstring line: caption)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from matplotlib.figure import Figure

from iclr26.harness.figures import legend, metric_values, new_figure, seed_band, seed_bars

__all__ = ["best_so_far_curves", "stage_gains", "test_accuracy_bars"]

LABELS = {
    "mass": "MASS",
    "random_joint": "random joint search",
    "topology_only": "topology-only (default prompts)",
    "prompt_only_apo": "prompt-only APO (1 predictor)",
    "cot": "CoT",
    "sc": "self-consistency (5)",
    "self_refine": "self-refine",
    "debate": "debate (3 x 2)",
}


def best_so_far_curves(results: Sequence[Any]) -> Figure:
    """Best full-validation accuracy found so far vs evaluations spent, per search method (mean, min-max band).

    Only full-validation scores count (MIPROLike's minibatch trials are noisy and would inflate the maximum),
    so a method's line starts at its first full-validation evaluation."""
    fig, ax = new_figure(width=6.0, height=3.6)
    for i, name in enumerate(("mass", "random_joint", "topology_only", "prompt_only_apo")):
        seed_band(ax, results, f"best_val_{name}", label=LABELS[name], color=f"C{i}", marker="o", ms=3)
    ax.text(
        0.02,
        0.02,
        "prompt-only APO: full-validation scores only at its end",
        transform=ax.transAxes,
        fontsize=6,
    )
    ax.set_xlabel("evaluations (workflow runs x items)")
    ax.set_ylabel("best validation accuracy so far")
    legend(ax)
    return fig


def test_accuracy_bars(results: Sequence[Any]) -> Figure:
    """Test accuracy of every method's final choice (bars: mean over worlds with 95% t interval; dots: worlds)."""
    names = list(LABELS)
    fig, ax = new_figure(width=7.5, height=3.6)
    for i, name in enumerate(names):
        seed_bars(ax, [i], [metric_values(results, f"test_{name}")], interval="t", color=f"C{i % 10}")
    ax.axhline(float(metric_values(results, "chance")[0]), color="grey", ls=":", lw=1)
    ax.set_xticks(range(len(names)), [LABELS[n] for n in names], rotation=30, ha="right", fontsize=7)
    ax.set_ylabel("test accuracy")
    return fig


def stage_gains(results: Sequence[Any]) -> Figure:
    """MASS's test accuracy after each stage: optimized predictor, + pruned topology, + workflow-level APO."""
    fig, ax = new_figure(width=4.8, height=3.4)
    stages = ("stage1", "stage2", "stage3")
    vals = [metric_values(results, f"test_mass_{s}") for s in stages]
    seed_bars(ax, range(3), vals, interval="t", color="C0")
    ax.set_ylim(max(0.0, min(float(v.min()) for v in vals) - 0.1), 1.0)
    for r in results:
        ax.plot(range(3), [r.metrics[f"test_mass_{s}"] for s in stages], color="k", alpha=0.25, lw=0.8)
    ax.set_xticks(range(3), ["1: block APO\n(predictor)", "2: + topology", "3: + workflow APO"], fontsize=7)
    ax.set_ylabel("test accuracy")
    return fig
