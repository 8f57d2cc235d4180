"""Figures of the LEWC reproduction ("Do We Really Need Permutations?", arXiv 2510.08023).

Each function takes the stored per-seed results and returns a ``matplotlib.figure.Figure``; the first line of
its docstring is the caption.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import legend, metric_values, new_figure, seed_band, seed_errorbar
from iclr26.harness.store import SeedResult

__all__ = ["barrier_vs_width", "lewc_coefficients", "lmc_curves"]

SERIES = {
    "barrier_cal": ("no permutation, calibrated", "tab:blue", "-"),
    "barrier_raw": ("no permutation, uncalibrated", "tab:red", "--"),
    "barrier_perm_cal": ("weight matching, calibrated", "tab:green", ":"),
}


def _meta(results: Sequence[SeedResult]) -> tuple[list[str], list[int]]:
    art = results[0].artifacts
    return list(art["tasks"]), [int(w) for w in art["widths"]]


def barrier_vs_width(results: Sequence[SeedResult]) -> Figure:
    """Test-loss barrier vs width multiplier (mean over pairs, bars: min-max); merging without vs with permutation."""
    tasks, widths = _meta(results)
    fig, axes = new_figure(ncols=len(tasks), width=4.2 * len(tasks), flat=True)
    for ax, task in zip(axes, tasks):
        for key, (label, color, ls) in SERIES.items():
            barrier = [metric_values(results, f"{task}_w{w}_{key}") for w in widths]
            seed_errorbar(ax, widths, barrier, interval="minmax", color=color, ls=ls, marker="o", label=label)
        ax.set_xscale("log", base=2)
        ax.set_yscale("symlog", linthresh=0.01)
        ax.set_ylim(bottom=0.0)
        ax.axhline(0.05, color="k", lw=0.8, ls=":")
        ax.set_xlabel("width multiplier w (16 w hidden units)")
        ax.set_title(task)
    axes[0].set_ylabel("loss barrier (nats)")
    legend(axes[-1])
    return fig


def lmc_curves(results: Sequence[SeedResult]) -> Figure:
    """Test loss and accuracy along lambda per width (solid: calibrated, dashed: uncalibrated, dotted: permuted)."""
    tasks, widths = _meta(results)
    fig, axes = new_figure(ncols=len(tasks), nrows=2, width=4.0 * len(tasks), height=6.0, squeeze=False)
    colors = [f"C{i}" for i in range(len(widths))]
    for col, task in enumerate(tasks):
        for color, w in zip(colors, widths):
            for row, keys in enumerate((("loss_cal", "loss_raw", "loss_perm"), ("acc", None, "acc_perm"))):
                for key, ls in zip(keys, ("-", "--", ":")):
                    if key is None:
                        continue
                    label = f"w={w}" if ls == "-" else None
                    seed_band(
                        axes[row, col],
                        results,
                        f"{task}_w{w}_{key}",
                        interval=None,
                        color=color,
                        ls=ls,
                        label=label,
                    )
        axes[0, col].set_title(task)
        axes[0, col].set_yscale("log")
        axes[1, col].set_xlabel("lambda")
    axes[0, 0].set_ylabel("test loss (nats)")
    axes[1, 0].set_ylabel("test accuracy")
    legend(axes[0, -1])
    return fig


def lewc_coefficients(results: Sequence[SeedResult]) -> Figure:
    """Fitted LEWC coefficients c_A, c_B per layer vs lambda at the widest width (dashed: (1-lambda)^l, lambda^l)."""
    tasks, _ = _meta(results)
    tasks = [t for t in tasks if t in results[0].artifacts["lewc"]]
    fig, axes = new_figure(ncols=max(len(tasks), 1), width=4.0 * max(len(tasks), 1), flat=True)
    for ax, task in zip(axes, tasks):
        lam = np.array(results[0].artifacts["lewc"][task]["lambdas"])
        c_a = np.mean([r.artifacts["lewc"][task]["c_a"] for r in results], axis=0)  # (lambdas, layers)
        c_b = np.mean([r.artifacts["lewc"][task]["c_b"] for r in results], axis=0)
        for layer in range(c_a.shape[1]):
            color = f"C{layer}"
            ax.plot(lam, c_a[:, layer], color=color, marker="o", ms=3, label=f"layer {layer + 1}")
            ax.plot(lam, c_b[:, layer], color=color, marker="s", ms=3)
            ax.plot(lam, (1 - lam) ** (layer + 1), color=color, ls="--", lw=0.8)
            ax.plot(lam, lam ** (layer + 1), color=color, ls="--", lw=0.8)
        width = results[0].artifacts["lewc"][task]["width"]
        ax.set_title(f"{task}, w={width} (o: c_A, s: c_B)")
        ax.set_xlabel("lambda")
    axes[0].set_ylabel("fitted coefficient")
    legend(axes[0])
    return fig
