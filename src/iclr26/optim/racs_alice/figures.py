"""Figures of the RACS/Alice reproduction (arXiv 2502.07752); the first docstring line of each is its caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.store import SeedResult

__all__ = ["loss_curves", "loss_vs_state"]


def _names(results: Sequence[SeedResult]) -> list[str]:
    return list(results[0].artifacts["optimizers"])


def loss_curves(results: Sequence[SeedResult]) -> Figure:
    """Eval loss vs training step per optimizer (mean over seeds, band = mean +- sd)."""
    fig = Figure(figsize=(6, 3.8), layout="constrained")
    ax = fig.subplots()
    for name in _names(results):
        key = f"{name}_eval"
        x = np.asarray(results[0].curves[key]["x"])
        ys = [r.curves[key]["y"] for r in results if len(r.curves[key]["y"]) == len(x)]
        if not ys:
            continue
        y = np.asarray(ys, dtype=float)
        mean, sd = y.mean(0), y.std(0)
        ax.plot(x, mean, lw=2.4 if name in ("racs", "alice") else 1.2, label=name)
        ax.fill_between(x, mean - sd, mean + sd, alpha=0.2)
    finals = [r.metrics["adamw_final"] for r in results]
    if np.all(np.isfinite(finals)):
        ax.set_ylim(top=max(finals) + 0.8)
    ax.set(xlabel="step", ylabel="eval loss (nats/char)")
    ax.legend(fontsize=8)
    return fig


def loss_vs_state(results: Sequence[SeedResult]) -> Figure:
    """Final eval loss (mean +- sd over seeds) against total optimizer-state floats (log x)."""
    fig = Figure(figsize=(5.5, 3.6), layout="constrained")
    ax = fig.subplots()
    for name in _names(results):
        loss = np.array([r.metrics[f"{name}_final"] for r in results], dtype=float)
        state = results[0].metrics[f"{name}_state_floats"]
        ax.errorbar(
            state, np.nanmean(loss), yerr=np.nanstd(loss) if loss.size > 1 else None, fmt="o", capsize=3
        )
        ax.annotate(name, (state, np.nanmean(loss)), textcoords="offset points", xytext=(4, 4), fontsize=8)
    ax.set_xscale("log")
    ax.set(xlabel="optimizer-state floats", ylabel="final eval loss (nats/char)")
    return fig
