"""Figures of the JARF reproduction (arXiv 2512.08306); the first docstring line of each is its caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.stats import t_interval
from iclr26.harness.store import SeedResult

__all__ = ["METHODS", "accuracy_vs_time", "gain_over_rf", "h_ablation", "spectra", "subspace_alignment"]

METHODS = ("rf", "jarf_sqrt", "jarf_eig", "rotf", "histgb", "sporf")


def _key(results: Sequence[SeedResult], ds: str) -> str:
    return "acc" if f"{ds}_rf_acc" in results[0].metrics else "r2"


def _mean(results: Sequence[SeedResult], name: str) -> float:
    return _nanmean([r.metrics.get(name, np.nan) for r in results])


def _nanmean(values: list[float]) -> float:
    arr = np.asarray(values, dtype=float)
    return float(np.mean(arr[np.isfinite(arr)])) if np.any(np.isfinite(arr)) else float("nan")


def accuracy_vs_time(results: Sequence[SeedResult]) -> Figure:
    """Test accuracy (%) against fit time per method, averaged over classification datasets and seeds."""
    datasets = [d for d in results[0].artifacts["datasets"] if _key(results, d) == "acc"]
    fig = Figure(figsize=(5, 3.6), layout="constrained")
    ax = fig.subplots()
    for m in METHODS:
        acc = _nanmean([_mean(results, f"{d}_{m}_acc") for d in datasets])
        sec = _nanmean([_mean(results, f"{d}_{m}_fit_s") for d in datasets])
        if np.isfinite(acc):
            ax.scatter([sec if np.isfinite(sec) else 0.0], [acc], s=40)
            ax.annotate(m, (sec if np.isfinite(sec) else 0.0, acc), fontsize=8)
    ax.set(xlabel="mean fit time (s, one thread; 0 if not timed)", ylabel="mean test accuracy (%)")
    return fig


def gain_over_rf(results: Sequence[SeedResult]) -> Figure:
    """JARF-sqrt and JARF-eig minus RF per dataset (accuracy points or 100 x R^2), mean with 95% t-intervals."""
    datasets = list(results[0].artifacts["datasets"])
    fig = Figure(figsize=(7, 3.4), layout="constrained")
    ax = fig.subplots()
    for j, m in enumerate(("jarf_sqrt", "jarf_eig")):
        means, errs = [], []
        for d in datasets:
            k = _key(results, d)
            scale = 1.0 if k == "acc" else 100.0
            diff = scale * np.array([r.metrics[f"{d}_{m}_{k}"] - r.metrics[f"{d}_rf_{k}"] for r in results])
            iv = t_interval(diff)
            means.append(iv.estimate)
            errs.append(iv.hi - iv.estimate if iv.defined else 0.0)
        x = np.arange(len(datasets)) + (j - 0.5) * 0.35
        ax.bar(x, means, width=0.35, yerr=errs, capsize=3, label=m)
    ax.axhline(0, color="k", lw=0.8)
    ax.set_xticks(np.arange(len(datasets)), datasets, rotation=30, fontsize=8)
    ax.set(ylabel="gain over RF (points)")
    ax.legend(fontsize=8)
    return fig


def spectra(results: Sequence[SeedResult]) -> Figure:
    """Eigenvalues of the trace-normalised EJOP (+ epsilon I) per dataset, first seed, log scale."""
    datasets = list(results[0].artifacts["datasets"])
    fig = Figure(figsize=(5.5, 3.6), layout="constrained")
    ax = fig.subplots()
    for d in datasets:
        lam = np.asarray(results[0].artifacts[d]["eigenvalues"], dtype=float)
        ax.semilogy(np.arange(1, lam.size + 1), np.maximum(lam, 1e-6), "o-", ms=3, label=d)
    ax.set(xlabel="eigenvalue index", ylabel="eigenvalue (trace = d)")
    ax.legend(fontsize=7)
    return fig


def subspace_alignment(results: Sequence[SeedResult]) -> Figure:
    """Overlap (mean cos^2 of principal angles) of the top-k EJOP eigenvectors with the true directions."""
    datasets = [d for d in results[0].artifacts["datasets"] if f"{d}_overlap" in results[0].metrics]
    fig = Figure(figsize=(5, 3.2), layout="constrained")
    ax = fig.subplots()
    vals = [[r.metrics[f"{d}_overlap"] for r in results] for d in datasets]
    ax.bar(np.arange(len(datasets)), [np.mean(v) for v in vals], color="tab:green")
    for i, v in enumerate(vals):
        ax.scatter(np.full(len(v), i), v, color="k", s=10, zorder=3)
    ax.set_xticks(np.arange(len(datasets)), datasets, fontsize=8)
    ax.set(ylabel="subspace overlap", ylim=(0, 1.05))
    return fig


def h_ablation(results: Sequence[SeedResult]) -> Figure:
    """Finite-difference step h on the ablation dataset: test accuracy and EJOP subspace overlap (mean over seeds)."""
    grid = [float(h) for h in results[0].artifacts["h_grid"]]
    ds = results[0].artifacts["h_dataset"]
    k = _key(results, ds)
    fig = Figure(figsize=(8, 3.2), layout="constrained")
    a1, a2 = fig.subplots(1, 2)
    a1.plot(grid, [_mean(results, f"{ds}_h{h:g}_{k}") for h in grid], "o-", label="JARF-sqrt")
    a1.axhline(_mean(results, f"{ds}_rf_{k}"), color="gray", ls="--", label="RF")
    a1.set(xscale="log", xlabel="h (standardised units)", ylabel=f"test {k}", title=ds)
    a1.legend(fontsize=8)
    a2.plot(grid, [_mean(results, f"{ds}_h{h:g}_overlap") for h in grid], "o-")
    a2.set(xscale="log", xlabel="h (standardised units)", ylabel="subspace overlap", ylim=(0, 1.05))
    return fig
