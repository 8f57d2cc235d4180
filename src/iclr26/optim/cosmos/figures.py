"""Figures of the COSMOS reproduction (arXiv 2502.17410); the first docstring line of each is its caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.store import SeedResult
from iclr26.lab import optim_bench as bench

__all__ = ["loss_curves", "loss_vs_state", "rank_sweep"]


def loss_curves(results: Sequence[SeedResult]) -> Figure:
    """Eval loss vs training step per optimizer (mean over seeds, band = mean +- sd)."""
    return bench.loss_curves(results, highlight=("cosmos",))


def loss_vs_state(results: Sequence[SeedResult]) -> Figure:
    """Final eval loss (mean +- sd over seeds) against optimizer-state floats per optimizer."""
    return bench.loss_vs_state(results)


def rank_sweep(results: Sequence[SeedResult]) -> Figure:
    """COSMOS final eval loss against its rank r (full budget only; mean +- sd over seeds)."""
    fig = Figure(figsize=(4.5, 3.2), layout="constrained")
    ax = fig.subplots()
    ranks = sorted({int(results[0].artifacts["rank"]), *map(int, results[0].artifacts.get("rank_sweep", []))})
    if len(ranks) < 2:
        ax.text(0.5, 0.5, "rank sweep runs only in the full budget", ha="center", va="center")
        ax.set_axis_off()
        return fig
    base = int(results[0].artifacts["rank"])
    means, sds = [], []
    for r in ranks:
        key = "cosmos_final" if r == base else f"cosmos_r{r}_final"
        vals = np.array([res.metrics[key] for res in results])
        means.append(np.nanmean(vals))
        sds.append(np.nanstd(vals))
    ax.errorbar(ranks, means, yerr=sds, fmt="o-", capsize=3)
    ax.set_xscale("log", base=2)
    ax.set(xlabel="rank r", ylabel="final eval loss (nats/char)")
    return fig
