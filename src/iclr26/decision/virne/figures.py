"""Figures of the Virne reproduction (arXiv 2507.19234); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.store import SeedResult

__all__ = ["metric_bars", "rac_vs_eta", "solve_time", "training_curve"]

_SOLVERS = ("random", "nrm", "grc", "ppo_gcn", "ppo_gcn_nomask")


def _mean_ci(vals: list[float]) -> tuple[float, float]:
    a = np.asarray(vals, float)
    half = 1.96 * a.std(ddof=1) / np.sqrt(a.size) if a.size > 1 else 0.0
    return float(a.mean()), float(half)


def metric_bars(results: Sequence[SeedResult]) -> Figure:
    """RAC, LRC and LAR per solver on the eta = 0.14 test simulations (mean over seeds, normal 95% CI)."""
    fig = Figure(figsize=(11, 3.2), layout="constrained")
    for ax, key in zip(fig.subplots(1, 3), ("rac", "lrc", "lar")):
        stats = [_mean_ci([r.metrics[f"{s}_{key}"] for r in results]) for s in _SOLVERS]
        ax.bar(range(len(_SOLVERS)), [m for m, _ in stats], yerr=[h for _, h in stats], capsize=3)
        ax.set_xticks(range(len(_SOLVERS)), _SOLVERS, rotation=30, fontsize=7)
        ax.set_title(key.upper())
    return fig


def rac_vs_eta(results: Sequence[SeedResult]) -> Figure:
    """Acceptance ratio against the arrival rate eta (generalisation to traffic rates; mean over seeds)."""
    etas = [float(e) for e in results[0].artifacts["eta_sweep"]]
    fig = Figure(figsize=(4.5, 3.2), layout="constrained")
    ax = fig.subplots()
    for s in ("nrm", "grc", "ppo_gcn"):
        ax.plot(
            etas, [np.mean([r.metrics[f"eta{e:g}_{s}_rac"] for r in results]) for e in etas], "o-", label=s
        )
    ax.set(xlabel="arrival rate eta", ylabel="RAC")
    ax.legend(fontsize=7)
    return fig


def training_curve(results: Sequence[SeedResult]) -> Figure:
    """PPO-GCN training: acceptance and episode return per 100 training VNs, with and without masking."""
    fig = Figure(figsize=(9, 3.2), layout="constrained")
    axes = fig.subplots(1, 2)
    for r in results:
        for name, style in (("ppo_gcn", "-"), ("ppo_gcn_nomask", "--")):
            for ax, key in zip(axes, ("accept", "return")):
                c = r.curves[f"train_{key}_{name}"]
                ax.plot(c["x"], c["y"], style, label=f"{name} s{r.seed}")
    axes[0].set(xlabel="training VNs", ylabel="acceptance")
    axes[1].set(xlabel="training VNs", ylabel="episode return")
    axes[0].legend(fontsize=6)
    return fig


def solve_time(results: Sequence[SeedResult]) -> Figure:
    """Mean solve time per request (s, log scale) per solver."""
    fig = Figure(figsize=(4.5, 3.2), layout="constrained")
    ax = fig.subplots()

    def ast(r: SeedResult, s: str) -> float:
        timing = r.artifacts.get("timing")
        return float(timing[s]["ast"]) if timing else float(r.metrics[f"{s}_ast"])

    ax.bar(range(len(_SOLVERS)), [np.mean([ast(r, s) for r in results]) for s in _SOLVERS])
    ax.set_yscale("log")
    ax.set_xticks(range(len(_SOLVERS)), _SOLVERS, rotation=30, fontsize=7)
    ax.set_ylabel("seconds per request")
    return fig
