"""Figures of the cumulative-loss reproduction (OpenReview hWw269fPov); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.figure import Figure

from iclr26.harness.figures import grouped_bars, legend, metric_values, new_figure, seed_band
from iclr26.harness.store import SeedResult

__all__ = ["kl_per_task", "oracle_bars", "running_certificate"]

SCENARIOS = ("iid", "alternating", "switch", "drift")


def running_certificate(results: Sequence[SeedResult]) -> Figure:
    """Running (1/t) CuL (solid) and certificate (dashed) against t, VI and EWC (mean, min-max band over seeds)."""
    fams = results[0].artifacts["families"]
    fig, axes = new_figure(ncols=len(fams), height=3.4, flat=True)
    for ax, fam in zip(axes, fams):
        for meth, color in (("vi", "tab:blue"), ("ewc", "tab:red")):
            name = meth.upper()
            seed_band(ax, results, f"{fam}_{meth}_running_cul", label=f"{name} (1/t) CuL", color=color)
            seed_band(ax, results, f"{fam}_{meth}_running_bound", label=f"{name} bound", color=color, ls="--")
        ax.axhline(1.0, color="k", lw=0.6)
        ax.set(xlabel="task t", ylabel="0-1 loss", title=f"{fam}-digits", ylim=(0, 1.5))
    legend(axes[0])
    return fig


def kl_per_task(results: Sequence[SeedResult]) -> Figure:
    """KL(Q_t || P_t) per task (nats, log scale) for VI and the chosen EWC certificate (mean, min-max band)."""
    fams = results[0].artifacts["families"]
    fig, axes = new_figure(ncols=len(fams), flat=True)
    for ax, fam in zip(axes, fams):
        for meth in ("vi", "ewc"):
            seed_band(ax, results, f"{fam}_{meth}_kl", label=meth.upper())
        ax.set_yscale("log")
        ax.set(xlabel="task t", ylabel="KL(Q_t || P_t)", title=f"{fam}-digits")
    legend(axes[0])
    return fig


def oracle_bars(results: Sequence[SeedResult]) -> Figure:
    """Closed-form Gibbs CuL vs the oracle RHS on previously seen tasks (drift: all t >= 2), both regimes."""
    fig, axes = new_figure(ncols=2, width=9, height=3.4)
    for ax, regime in zip(axes, ("overparam", "limited")):
        series = {
            label: [metric_values(results, f"reg_{regime}_{s}_{key}_sel") for s in SCENARIOS]
            for key, label in (("cul", "Gibbs CuL"), ("oracle", "oracle RHS"))
        }
        grouped_bars(ax, SCENARIOS, series)
        ax.set_yscale("log")
        ax.set(ylabel="mean squared loss", title=f"{regime} regime")
    legend(axes[0])
    return fig
