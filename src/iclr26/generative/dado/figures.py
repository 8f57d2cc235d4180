"""Figures of the DADO reproduction (arXiv 2511.03032); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import legend, new_figure, plot_band
from iclr26.harness.store import SeedResult

__all__ = ["ess_plot", "gap_vs_size", "score_vs_evaluations"]

METHODS = ("dado", "eda_ar", "eda_tree", "random", "sa", "pbil")


def _pooled(results: Sequence[SeedResult], key: str, field: str) -> np.ndarray | None:
    rows = [np.asarray(t) for r in results for t in r.artifacts.get(field, {}).get(key, [])]
    return np.stack(rows) if rows else None


def score_vs_evaluations(results: Sequence[SeedResult]) -> Figure:
    """Normalised mean f of each batch against evaluations: median and IQR over all runs, per method and size."""
    sizes = results[0].artifacts["sizes"]
    budget = results[0].artifacts["budget"]
    fig, axes = new_figure(ncols=len(sizes), width=4.2 * len(sizes), height=3.4, flat=True)
    for ax, (name, n_vars) in zip(axes, sizes.items()):
        for m in METHODS:
            y = _pooled(results, f"{name}_{m}", "traj")
            if y is None:
                continue
            x = np.linspace(budget / y.shape[1], budget, y.shape[1])
            plot_band(ax, x, y, interval="iqr", alpha=0.15, label=m, lw=2.5 if m == "dado" else 1.2)
        ax.set(xlabel="evaluations", ylabel="normalised mean f of batch", title=f"{name} (L = {n_vars})")
    legend(axes[0])
    return fig


def gap_vs_size(results: Sequence[SeedResult]) -> Figure:
    """DADO's normalised final score minus each EDA's, per run, against problem size L (mean and runs)."""
    sizes = results[0].artifacts["sizes"]
    fig, ax = new_figure(height=3.4)
    for tag, color in (("ar", "tab:red"), ("tree", "tab:green")):
        xs, means = [], []
        for name, n_vars in sizes.items():
            g = [
                v
                for r in results
                for k, v in r.metrics.items()
                if k.startswith(f"{name}_i") and k.endswith(f"_gap_{tag}")
            ]
            if not g:
                continue
            ax.scatter([n_vars] * len(g), g, s=8, color=color, alpha=0.4)
            xs.append(n_vars)
            means.append(float(np.mean(g)))
        order = np.argsort(xs)
        ax.plot(
            np.asarray(xs)[order], np.asarray(means)[order], "o-", color=color, label=f"DADO - EDA({tag})"
        )
    ax.axhline(0.0, color="gray", lw=0.8)
    ax.set(xlabel="number of variables L", ylabel="gap in normalised final score")
    legend(ax)
    return fig


def ess_plot(results: Sequence[SeedResult]) -> Figure:
    """Effective sample size / N of the weights per iteration: DADO (mean over factors) vs the EDAs."""
    sizes = results[0].artifacts["sizes"]
    fig, axes = new_figure(ncols=len(sizes), width=4.2 * len(sizes), flat=True)
    for ax, name in zip(axes, sizes):
        for m in ("dado", "eda_ar", "eda_tree"):
            y = _pooled(results, f"{name}_{m}", "ess")
            if y is None:
                continue
            ax.semilogy(np.arange(y.shape[1]), np.maximum(np.median(y, 0), 1e-4), label=m)
        ax.set(xlabel="iteration (subsampled)", ylabel="ESS / N", title=name)
    legend(axes[0])
    return fig
