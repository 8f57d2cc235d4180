"""Figures of the FAME gridworld reproduction (arXiv 2603.00903); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import grouped_bars, legend, new_figure, seed_band
from iclr26.harness.store import SeedResult

__all__ = ["decisions_table", "meta_accuracy_plot", "running_return", "transfer_bars"]


def running_return(results: Sequence[SeedResult]) -> Figure:
    """Running normalized return over the whole task sequence per method (mean over seeds; task boundaries dashed)."""
    art = results[0].artifacts
    fig, ax = new_figure(width=8, height=3.4)
    for m in art["methods"]:
        seed_band(ax, results, f"perf_{m}", interval=None, label=m, lw=2.2 if m == "fame" else 1.2)
    for k, t in enumerate(art["sequence"]):
        ax.axvline(k * art["switch"], color="grey", ls="--", lw=0.7)
        ax.text(k * art["switch"] + art["switch"] / 2, 1.02, t, ha="center")
    ax.set(xlabel="env step", ylabel="running normalized return", ylim=(-1.0, 1.1))
    legend(ax, loc="lower right")
    return fig


def transfer_bars(results: Sequence[SeedResult]) -> Figure:
    """Per-task forward transfer (vs Reset) and forgetting (end of task minus end of sequence) per method."""
    art = results[0].artifacts
    methods = art["methods"]
    seq = art["sequence"]
    fig, (ax1, ax2) = new_figure(ncols=2, width=9, height=3.4)
    tasks = [f"{k + 1}:{t}" for k, t in enumerate(seq)]

    def per_task(key: str) -> np.ndarray:  # (tasks, seeds)
        return np.array([r.artifacts[key] for r in results], dtype=float).T

    with_ft = [m for m in methods if f"ft_{m}" in art]
    grouped_bars(
        ax1,
        tasks[1:],
        {m: per_task(f"ft_{m}") for m in with_ft},
        colors=[f"C{methods.index(m)}" for m in with_ft],
    )
    grouped_bars(ax2, tasks[:-1], {m: per_task(f"forget_by_task_{m}") for m in methods})
    ax1.set(title="forward transfer", ylabel="(AUC - AUC_reset) / (1 - AUC_reset)")
    ax2.set(title="forgetting (FAME: meta learner at the end)", ylabel="score drop")
    legend(ax1)
    return fig


def decisions_table(results: Sequence[SeedResult]) -> Figure:
    """FAME's warm-up decision (meta / fast / reset) at each task arrival, one row per seed."""
    seq = results[0].artifacts["sequence"]
    rows = [[d["choice"] for d in r.artifacts["decisions"]] for r in results]
    fig, ax = new_figure(width=1.2 * len(seq) + 1, height=0.4 * len(rows) + 1)
    ax.axis("off")
    ax.table(
        cellText=rows,
        colLabels=[f"{k + 1}:{t}" for k, t in enumerate(seq)],
        rowLabels=[f"seed {r.seed}" for r in results],
        loc="center",
    )
    return fig


def meta_accuracy_plot(results: Sequence[SeedResult]) -> Figure:
    """Meta learner's shortest-path-action accuracy on each task after each task of the sequence (mean over seeds)."""
    art = results[0].artifacts
    acc = np.mean([r.artifacts["meta_acc"] for r in results], axis=0)
    fig, ax = new_figure(width=5)
    x = np.arange(1, len(art["sequence"]) + 1)
    for j, t in enumerate(art["tasks"]):
        ax.plot(x, acc[:, j], "o-", label=f"task {t}")
    ax.set_xticks(x, [f"{k + 1}:{t}" for k, t in enumerate(art["sequence"])])
    ax.set(xlabel="after task", ylabel="meta accuracy (oracle actions)", ylim=(0, 1.05))
    legend(ax)
    return fig
