"""Figures of the LLA reproduction (arXiv 2510.01450); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.attention.lla.memory import largest_intermediate
from iclr26.attention.lla.study_a import ESTIMATORS, FAMILIES
from iclr26.harness.figures import legend, metric_mean, new_figure, seed_band
from iclr26.harness.store import SeedResult

__all__ = ["lla_weight_distribution", "memory_scaling", "mse_vs_n", "study_b_curves"]


def mse_vs_n(results: Sequence[SeedResult]) -> Figure:
    """Study A: test MSE of f(q) against the number of keys n per family and key dimension (mean over seeds)."""
    art = results[0].artifacts
    dims, ns = art["a_dims"], art["a_ns"]
    fig, axes = new_figure(
        ncols=len(FAMILIES), nrows=len(dims), width=3.2 * len(FAMILIES), height=2.8 * len(dims), squeeze=False
    )
    for i, d in enumerate(dims):
        for j, fam in enumerate(FAMILIES):
            ax = axes[i][j]
            for est in ESTIMATORS:
                y = [metric_mean(results, f"a_{fam}_d{d}_n{n}_{est}_mse") for n in ns]
                ax.loglog(ns, y, "o-", label=est, lw=2.5 if est == "lla" else 1)
            ax.set(title=f"{fam}, d={d}", xlabel="n (keys)", ylabel="MSE of f(q)")
    legend(axes[0][0])
    return fig


def lla_weight_distribution(results: Sequence[SeedResult]) -> Figure:
    """Distribution of LLA's corrected weights a_ij (tanh family, decisive setting): the negative mass."""
    h = results[0].artifacts["weights_hist"]
    fig, ax = new_figure(width=5)
    edges = np.asarray(h["edges"])
    ax.bar(edges[:-1], h["counts"], width=np.diff(edges), align="edge", color="tab:blue")
    ax.axvline(0.0, color="k", lw=0.8)
    ax.set_yscale("log")
    ax.set(xlabel="a_ij", ylabel="count", title=f"negative mass per query: {h['negative_mass']:.3f}")
    return fig


def study_b_curves(results: Sequence[SeedResult]) -> Figure:
    """Study B: held-out in-context MSE during training, per mixer (mean over seeds)."""
    fig, ax = new_figure(width=5)
    for mixer in results[0].artifacts["b_mixers"]:
        seed_band(ax, results, f"b_{mixer}_eval", interval=None, marker="o", label=mixer)
    ax.set(xlabel="step", ylabel="held-out MSE of y")
    ax.legend()
    return fig


def memory_scaling(results: Sequence[SeedResult]) -> Figure:
    """Largest intermediate (elements per batch x head, d = 16) of materialised vs blockwise LLA against T."""
    ts = [2**i for i in range(6, 14)]
    fig, ax = new_figure(width=5)
    for label, block, solver in (
        ("materialised", None, "cholesky"),
        ("blockwise B=64, Cholesky", 64, "cholesky"),
        ("blockwise B=64, CG", 64, "cg"),
    ):
        ax.loglog(ts, [largest_intermediate(t, 16, block, solver) for t in ts], "o-", label=label)
    ax.set(xlabel="T", ylabel="largest intermediate (elements)")
    legend(ax)
    return fig
