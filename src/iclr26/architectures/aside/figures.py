"""Figures of the ASIDE reproduction (arXiv 2503.10566); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.figure import Figure

from iclr26.harness.figures import grouped_bars, legend, metric_values, new_figure, seed_band
from iclr26.harness.store import SeedResult

__all__ = ["probe_curves", "separation_bars"]

_METHODS = ("vanilla", "ise", "aside")


def separation_bars(results: Sequence[SeedResult]) -> Figure:
    """Separation score, utility and clean accuracy per method (mean and 95% interval over seeds, dots = seeds)."""
    fig, ax = new_figure(width=5.5, height=3.2)
    cats = ["separation", "utility", "clean accuracy"]
    series = {m: [metric_values(results, f"{k}_{m}") for k in ("sep", "utility", "acc")] for m in _METHODS}
    grouped_bars(ax, cats, series, interval="t", dots=True)
    ax.set(ylabel="fraction", ylim=(0, 1.05))
    legend(ax)
    return fig


def probe_curves(results: Sequence[SeedResult]) -> Figure:
    """Per-layer linear-probe accuracy for the role of the same probe tokens (instruction vs data); 0.5 = chance."""
    fig, ax = new_figure(width=4.5, height=3.2)
    for m in ("vanilla", "aside"):
        seed_band(ax, results, f"probe_{m}", interval="t", label=m, marker="o")
    ax.axhline(0.5, color="0.6", lw=0.8, ls="--")
    ax.set(xlabel="layer (0 = input embeddings)", ylabel="role-probe accuracy", ylim=(0.4, 1.02))
    legend(ax)
    return fig
