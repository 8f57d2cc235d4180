"""Figures of the JARF reproduction (arXiv 2512.08306); the first docstring line of each is its caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import grouped_bars, legend, metric_mean, metric_values, new_figure, seed_bars
from iclr26.harness.store import SeedResult

__all__ = ["METHODS", "accuracy_vs_time", "gain_over_rf", "h_ablation", "spectra", "subspace_alignment"]

METHODS = ("rf", "jarf_sqrt", "jarf_eig", "rotf", "histgb", "sporf")


def _key(results: Sequence[SeedResult], ds: str) -> str:
    return "acc" if f"{ds}_rf_acc" in results[0].metrics else "r2"


def _nanmean(values: list[float]) -> float:
    arr = np.asarray(values, dtype=float)
    return float(np.mean(arr[np.isfinite(arr)])) if np.any(np.isfinite(arr)) else float("nan")


def _gain(results: Sequence[SeedResult], d: str, m: str) -> np.ndarray:
    """Per seed, method `m` minus RF on dataset `d` (accuracy points, or 100 x R^2), paired on the same split."""
    k = _key(results, d)
    scale = 1.0 if k == "acc" else 100.0
    return scale * np.array([r.metrics[f"{d}_{m}_{k}"] - r.metrics[f"{d}_rf_{k}"] for r in results])


def accuracy_vs_time(results: Sequence[SeedResult]) -> Figure:
    """Test accuracy (%) against fit time per method, averaged over classification datasets and seeds."""
    datasets = [d for d in results[0].artifacts["datasets"] if _key(results, d) == "acc"]
    fig, ax = new_figure(width=5, height=3.6)
    for m in METHODS:
        acc = _nanmean([metric_mean(results, f"{d}_{m}_acc", required=False) for d in datasets])
        sec = _nanmean([metric_mean(results, f"{d}_{m}_fit_s", required=False) for d in datasets])
        if np.isfinite(acc):
            ax.scatter([sec if np.isfinite(sec) else 0.0], [acc], s=40)
            ax.annotate(m, (sec if np.isfinite(sec) else 0.0, acc), fontsize=8)
    ax.set(xlabel="mean fit time (s, one thread; 0 if not timed)", ylabel="mean test accuracy (%)")
    return fig


def gain_over_rf(results: Sequence[SeedResult]) -> Figure:
    """JARF-sqrt and JARF-eig minus RF per dataset (accuracy points or 100 x R^2), mean with 95% t-intervals."""
    datasets = list(results[0].artifacts["datasets"])
    fig, ax = new_figure(width=7, height=3.4)
    series = {m: [_gain(results, d, m) for d in datasets] for m in ("jarf_sqrt", "jarf_eig")}
    grouped_bars(ax, datasets, series, width=0.7, interval="t", tick_kw={"rotation": 30, "fontsize": 8})
    ax.axhline(0, color="k", lw=0.8)
    ax.set(ylabel="gain over RF (points)")
    legend(ax, fontsize=8)
    return fig


def spectra(results: Sequence[SeedResult]) -> Figure:
    """Eigenvalues of the trace-normalised EJOP (+ epsilon I) per dataset, first seed, log scale."""
    datasets = list(results[0].artifacts["datasets"])
    fig, ax = new_figure(width=5.5, height=3.6)
    for d in datasets:
        lam = np.asarray(results[0].artifacts[d]["eigenvalues"], dtype=float)
        ax.semilogy(np.arange(1, lam.size + 1), np.maximum(lam, 1e-6), "o-", ms=3, label=d)
    ax.set(xlabel="eigenvalue index", ylabel="eigenvalue (trace = d)")
    legend(ax)
    return fig


def subspace_alignment(results: Sequence[SeedResult]) -> Figure:
    """Overlap (mean cos^2 of principal angles) of the top-k EJOP eigenvectors with the true directions."""
    datasets = [d for d in results[0].artifacts["datasets"] if f"{d}_overlap" in results[0].metrics]
    fig, ax = new_figure(width=5)
    overlap = [metric_values(results, f"{d}_overlap") for d in datasets]
    seed_bars(ax, np.arange(len(datasets)), overlap, color="tab:green")
    ax.set_xticks(np.arange(len(datasets)), datasets, fontsize=8)
    ax.set(ylabel="subspace overlap", ylim=(0, 1.05))
    return fig


def h_ablation(results: Sequence[SeedResult]) -> Figure:
    """Finite-difference step h on the ablation dataset: test accuracy and EJOP subspace overlap (mean over seeds)."""
    grid = [float(h) for h in results[0].artifacts["h_grid"]]
    ds = results[0].artifacts["h_dataset"]
    k = _key(results, ds)
    fig, (a1, a2) = new_figure(ncols=2, width=8)
    a1.plot(
        grid,
        [metric_mean(results, f"{ds}_h{h:g}_{k}", required=False) for h in grid],
        "o-",
        label="JARF-sqrt",
    )
    a1.axhline(metric_mean(results, f"{ds}_rf_{k}", required=False), color="gray", ls="--", label="RF")
    a1.set(xscale="log", xlabel="h (standardised units)", ylabel=f"test {k}", title=ds)
    legend(a1, fontsize=8)
    a2.plot(grid, [metric_mean(results, f"{ds}_h{h:g}_overlap", required=False) for h in grid], "o-")
    a2.set(xscale="log", xlabel="h (standardised units)", ylabel="subspace overlap", ylim=(0, 1.05))
    return fig
