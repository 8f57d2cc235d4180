"""Figures of the DADO reproduction (arXiv 2511.03032); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

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
    fig = Figure(figsize=(4.2 * len(sizes), 3.4), layout="constrained")
    axes = np.atleast_1d(fig.subplots(1, len(sizes)))
    for ax, (name, n_vars) in zip(axes, sizes.items()):
        for m in METHODS:
            y = _pooled(results, f"{name}_{m}", "traj")
            if y is None:
                continue
            x = np.linspace(budget / y.shape[1], budget, y.shape[1])
            lo, med, hi = np.quantile(y, [0.25, 0.5, 0.75], axis=0)
            ax.plot(x, med, label=m, lw=2.5 if m == "dado" else 1.2)
            ax.fill_between(x, lo, hi, alpha=0.15)
        ax.set(xlabel="evaluations", ylabel="normalised mean f of batch", title=f"{name} (L = {n_vars})")
    axes[0].legend(fontsize=7)
    return fig


def gap_vs_size(results: Sequence[SeedResult]) -> Figure:
    """DADO's normalised final score minus each EDA's, per run, against problem size L (mean and runs)."""
    sizes = results[0].artifacts["sizes"]
    fig = Figure(figsize=(4.5, 3.4), layout="constrained")
    ax = fig.subplots()
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
    ax.legend(fontsize=7)
    return fig


def ess_plot(results: Sequence[SeedResult]) -> Figure:
    """Effective sample size / N of the weights per iteration: DADO (mean over factors) vs the EDAs."""
    sizes = results[0].artifacts["sizes"]
    fig = Figure(figsize=(4.2 * len(sizes), 3.2), layout="constrained")
    axes = np.atleast_1d(fig.subplots(1, len(sizes)))
    for ax, name in zip(axes, sizes):
        for m in ("dado", "eda_ar", "eda_tree"):
            y = _pooled(results, f"{name}_{m}", "ess")
            if y is None:
                continue
            ax.semilogy(np.arange(y.shape[1]), np.maximum(np.median(y, 0), 1e-4), label=m)
        ax.set(xlabel="iteration (subsampled)", ylabel="ESS / N", title=name)
    axes[0].legend(fontsize=7)
    return fig
