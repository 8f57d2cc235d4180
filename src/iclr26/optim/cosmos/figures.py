"""Figures of the COSMOS reproduction (arXiv 2502.17410); the first docstring line of each is its caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.store import SeedResult

__all__ = ["loss_curves", "loss_vs_state", "rank_sweep"]


def _names(results: Sequence[SeedResult]) -> list[str]:
    return list(results[0].artifacts["optimizers"])


def loss_curves(results: Sequence[SeedResult]) -> Figure:
    """Eval loss vs training step per optimizer (mean over seeds, band = min..max)."""
    fig = Figure(figsize=(6, 3.8), layout="constrained")
    ax = fig.subplots()
    for name in _names(results):
        key = f"{name}_eval"
        x = np.asarray(results[0].curves[key]["x"])
        ys = [r.curves[key]["y"] for r in results if len(r.curves[key]["y"]) == len(x)]
        if not ys:
            continue
        y = np.asarray(ys)
        ax.plot(x, y.mean(0), lw=2.5 if name == "cosmos" else 1.2, label=name)
        ax.fill_between(x, y.min(0), y.max(0), alpha=0.2)
    finals = [r.metrics["adamw_final"] for r in results]
    if np.all(np.isfinite(finals)):
        ax.set_ylim(top=max(finals) + 0.8)
    ax.set(xlabel="step", ylabel="eval loss (nats/char)")
    ax.legend(fontsize=8)
    return fig


def loss_vs_state(results: Sequence[SeedResult]) -> Figure:
    """Final eval loss (mean +- sd over seeds) against optimizer-state floats per optimizer."""
    fig = Figure(figsize=(5.5, 3.6), layout="constrained")
    ax = fig.subplots()
    for i, name in enumerate(_names(results)):
        loss = np.array([r.metrics[f"{name}_final"] for r in results])
        state = results[0].metrics[f"{name}_state_floats"]
        ax.errorbar(
            state, np.nanmean(loss), yerr=np.nanstd(loss) if loss.size > 1 else None, fmt="o", capsize=3
        )
        ax.annotate(
            name,
            (state, np.nanmean(loss)),
            textcoords="offset points",
            xytext=(4, 4 if i % 2 else -11),
            fontsize=8,
        )
    ax.set_xscale("log")
    ax.set(xlabel="optimizer-state floats", ylabel="final eval loss (nats/char)")
    return fig


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
