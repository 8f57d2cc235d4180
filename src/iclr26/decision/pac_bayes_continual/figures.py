"""Figures of the cumulative-loss reproduction (OpenReview hWw269fPov); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.store import SeedResult

__all__ = ["kl_per_task", "oracle_bars", "running_certificate"]

SCENARIOS = ("iid", "alternating", "switch", "drift")


def _band(ax, results: Sequence[SeedResult], key: str, label: str, **kw) -> None:
    ys = np.array([r.curves[key]["y"] for r in results])
    x = results[0].curves[key]["x"]
    mean = ys.mean(0)
    (line,) = ax.plot(x, mean, label=label, **kw)
    if len(ys) > 1:
        ax.fill_between(x, ys.min(0), ys.max(0), color=line.get_color(), alpha=0.2)


def running_certificate(results: Sequence[SeedResult]) -> Figure:
    """Running (1/t) CuL (solid) and certificate (dashed) against t, VI and EWC (mean, min-max band over seeds)."""
    fams = results[0].artifacts["families"]
    fig = Figure(figsize=(4.5 * len(fams), 3.4), layout="constrained")
    axes = np.atleast_1d(fig.subplots(1, len(fams)))
    for ax, fam in zip(axes, fams):
        for meth, color in (("vi", "tab:blue"), ("ewc", "tab:red")):
            _band(ax, results, f"{fam}_{meth}_running_cul", f"{meth.upper()} (1/t) CuL", color=color)
            _band(ax, results, f"{fam}_{meth}_running_bound", f"{meth.upper()} bound", color=color, ls="--")
        ax.axhline(1.0, color="k", lw=0.6)
        ax.set(xlabel="task t", ylabel="0-1 loss", title=f"{fam}-digits", ylim=(0, 1.5))
    axes[0].legend(fontsize=7)
    return fig


def kl_per_task(results: Sequence[SeedResult]) -> Figure:
    """KL(Q_t || P_t) per task (nats, log scale) for VI and the chosen EWC certificate (mean, min-max band)."""
    fams = results[0].artifacts["families"]
    fig = Figure(figsize=(4.5 * len(fams), 3.2), layout="constrained")
    axes = np.atleast_1d(fig.subplots(1, len(fams)))
    for ax, fam in zip(axes, fams):
        for meth in ("vi", "ewc"):
            _band(ax, results, f"{fam}_{meth}_kl", meth.upper())
        ax.set_yscale("log")
        ax.set(xlabel="task t", ylabel="KL(Q_t || P_t)", title=f"{fam}-digits")
    axes[0].legend(fontsize=7)
    return fig


def oracle_bars(results: Sequence[SeedResult]) -> Figure:
    """Closed-form Gibbs CuL vs the oracle RHS on previously seen tasks (drift: all t >= 2), both regimes."""
    fig = Figure(figsize=(9, 3.4), layout="constrained")
    for ax, regime in zip(fig.subplots(1, 2), ("overparam", "limited")):
        x = np.arange(len(SCENARIOS))
        cul = [np.mean([r.metrics[f"reg_{regime}_{s}_cul_sel"] for r in results]) for s in SCENARIOS]
        orc = [np.mean([r.metrics[f"reg_{regime}_{s}_oracle_sel"] for r in results]) for s in SCENARIOS]
        ax.bar(x - 0.2, cul, 0.4, label="Gibbs CuL")
        ax.bar(x + 0.2, orc, 0.4, label="oracle RHS")
        ax.set_xticks(x, SCENARIOS)
        ax.set_yscale("log")
        ax.set(ylabel="mean squared loss", title=f"{regime} regime")
    fig.axes[0].legend(fontsize=7)
    return fig
