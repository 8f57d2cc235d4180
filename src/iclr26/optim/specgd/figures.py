"""Figures of the SpecGD reproduction (arXiv 2510.22980); the first docstring line is the caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import legend, metric_values, new_figure, seed_band, seed_errorbar
from iclr26.harness.store import SeedResult

__all__ = ["amplitude_curves", "balanced_accuracy_curves", "gap_vs_depth", "practical_curves"]

THEORY_OPTIMIZERS = {"gd": "GD", "ngd": "normalized GD", "specgd": "SpecGD"}
PRACTICAL_NAMES = {
    "sgd": "SGD+mom.",
    "adam": "Adam",
    "muon": "Muon",
    "shampoo": "Shampoo",
    "specgd": "SpecGD+mom.",
}


def _band(ax, results: Sequence[SeedResult], key: str, label: str) -> None:
    """Mean and min-max band of curve `key` over seeds; nothing where no seed stored it."""
    if any(key in r.curves for r in results):
        seed_band(ax, results, key, label=label)


def amplitude_curves(results: Sequence[SeedResult]) -> Figure:
    """Learned per-class amplitude (W mu_c)_c vs step on the linear model, GD vs SpecGD (first seed).

    The majority class (thick) and the smallest minority class (dashed) are highlighted; dotted line: early
    checkpoint.
    """
    art = results[0].artifacts
    steps = np.asarray(art["amplitude_steps"])
    fig, axes = new_figure(ncols=2, width=9, height=3.4, sharey=True)
    for ax, opt in zip(axes, ("gd", "specgd")):
        amps = np.asarray(art["amplitudes"][opt], dtype=float)  # (steps, K)
        K = amps.shape[1]
        for c in range(K):
            style = {"lw": 2.5, "color": "tab:blue"} if c == 0 else {}
            if c == K - 1:
                style = {"lw": 2.5, "ls": "--", "color": "tab:red"}
            ax.plot(
                steps, amps[:, c], alpha=1.0 if style else 0.35, color=style.pop("color", "gray"), **style
            )
        ax.axvline(art["early_step"], ls=":", color="k")
        ax.set(xlabel="step", title=THEORY_OPTIMIZERS[opt])
    fig.axes[0].set_ylabel("learned amplitude (W mu_c)_c")
    fig.axes[0].legend(
        [fig.axes[0].lines[0], fig.axes[0].lines[-2]], ["majority class", "smallest class"], fontsize=7
    )
    return fig


def balanced_accuracy_curves(results: Sequence[SeedResult]) -> Figure:
    """Balanced test accuracy vs step for GD, NGD and SpecGD on each model (mean over seeds, min-max band)."""
    models = list(results[0].artifacts["depths"])
    fig, axes = new_figure(ncols=len(models), width=3.3 * len(models), sharey=True, flat=True)
    for ax, model in zip(axes, models):
        for opt, label in THEORY_OPTIMIZERS.items():
            _band(ax, results, f"{model}_{opt}_bal_acc", label)
        ax.axvline(results[0].artifacts["early_step"], ls=":", color="k")
        ax.set(xlabel="step", title=f"{model} (depth {results[0].artifacts['depths'][model]})")
    axes[0].set_ylabel("balanced test accuracy")
    legend(axes[0])
    return fig


def gap_vs_depth(results: Sequence[SeedResult]) -> Figure:
    """Early-checkpoint balanced-accuracy gap of SpecGD over GD and over NGD against depth (mean +- std over seeds)."""
    depths = results[0].artifacts["depths"]
    fig, ax = new_figure()
    for base in ("gd", "ngd"):
        gaps = [metric_values(results, f"{model}_gap_vs_{base}") for model in depths]
        label = f"SpecGD - {THEORY_OPTIMIZERS[base]}"
        seed_errorbar(ax, list(depths.values()), gaps, interval="sd", marker="o", label=label)
    ax.axhline(0, color="k", lw=0.5)
    ax.set(xlabel="depth", ylabel="balanced-accuracy gap (early)")
    legend(ax)
    return fig


def practical_curves(results: Sequence[SeedResult]) -> Figure:
    """Balanced test accuracy vs epoch of the MLP on long-tailed data per optimizer (mean, min-max band)."""
    tasks = sorted(
        {k.split("_")[0] for k in results[0].curves if k.endswith("_bal_acc") and k.count("_") == 3}
    )
    tasks = [t for t in ("digits", "gmm") if t in tasks] or ["digits"]
    fig, axes = new_figure(ncols=len(tasks), flat=True)
    for ax, task in zip(axes, tasks):
        for opt, label in PRACTICAL_NAMES.items():
            _band(ax, results, f"{task}_{opt}_bal_acc", label)
        ax.set(xlabel="epoch", ylabel="balanced test accuracy", title=f"MLP, long-tailed {task}")
        legend(ax)
    return fig
