"""Figures of the COSMOS reproduction (arXiv 2502.17410); the first docstring line of each is its caption."""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.figure import Figure

from iclr26.harness.figures import metric_values, new_figure, note, seed_errorbar
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
    fig, ax = new_figure()
    ranks = sorted({int(results[0].artifacts["rank"]), *map(int, results[0].artifacts.get("rank_sweep", []))})
    if len(ranks) < 2:
        note(ax, "rank sweep runs only in the full budget")
        return fig
    base = int(results[0].artifacts["rank"])
    keys = ["cosmos_final" if r == base else f"cosmos_r{r}_final" for r in ranks]
    seed_errorbar(ax, ranks, [metric_values(results, k) for k in keys], interval="sd", fmt="o-")
    ax.set_xscale("log", base=2)
    ax.set(xlabel="rank r", ylabel="final eval loss (nats/char)")
    return fig
