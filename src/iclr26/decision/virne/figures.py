"""Figures of the Virne reproduction (arXiv 2507.19234); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import legend, metric_mean, metric_values, new_figure, seed_bars
from iclr26.harness.store import SeedResult

__all__ = ["metric_bars", "rac_vs_eta", "solve_time", "training_curve"]

_SOLVERS = ("random", "nrm", "grc", "ppo_gcn", "ppo_gcn_nomask")


def metric_bars(results: Sequence[SeedResult]) -> Figure:
    """RAC, LRC and LAR per solver on the eta = 0.14 test simulations (mean over seeds, normal 95% CI)."""
    fig, axes = new_figure(ncols=3, width=11)
    for ax, key in zip(axes, ("rac", "lrc", "lar")):
        values = [metric_values(results, f"{s}_{key}") for s in _SOLVERS]
        seed_bars(ax, range(len(_SOLVERS)), values, interval="normal", dots=False)
        ax.set_xticks(range(len(_SOLVERS)), _SOLVERS, rotation=30, fontsize=7)
        ax.set_title(key.upper())
    return fig


def rac_vs_eta(results: Sequence[SeedResult]) -> Figure:
    """Acceptance ratio against the arrival rate eta (generalisation to traffic rates; mean over seeds)."""
    etas = [float(e) for e in results[0].artifacts["eta_sweep"]]
    fig, ax = new_figure()
    for s in ("nrm", "grc", "ppo_gcn"):
        ax.plot(etas, [metric_mean(results, f"eta{e:g}_{s}_rac") for e in etas], "o-", label=s)
    ax.set(xlabel="arrival rate eta", ylabel="RAC")
    legend(ax)
    return fig


def training_curve(results: Sequence[SeedResult]) -> Figure:
    """PPO-GCN training: acceptance and episode return per 100 training VNs, with and without masking."""
    fig, axes = new_figure(ncols=2, width=9)
    for r in results:
        for name, style in (("ppo_gcn", "-"), ("ppo_gcn_nomask", "--")):
            for ax, key in zip(axes, ("accept", "return")):
                c = r.curves[f"train_{key}_{name}"]
                ax.plot(c["x"], c["y"], style, label=f"{name} s{r.seed}")
    axes[0].set(xlabel="training VNs", ylabel="acceptance")
    axes[1].set(xlabel="training VNs", ylabel="episode return")
    legend(axes[0], fontsize=6)
    return fig


def solve_time(results: Sequence[SeedResult]) -> Figure:
    """Mean solve time per request (s, log scale) per solver."""
    fig, ax = new_figure()

    def ast(r: SeedResult, s: str) -> float:
        timing = r.artifacts.get("timing")
        return float(timing[s]["ast"]) if timing else float(r.metrics[f"{s}_ast"])

    ax.bar(range(len(_SOLVERS)), [np.mean([ast(r, s) for r in results]) for s in _SOLVERS])
    ax.set_yscale("log")
    ax.set_xticks(range(len(_SOLVERS)), _SOLVERS, rotation=30, fontsize=7)
    ax.set_ylabel("seconds per request")
    return fig
