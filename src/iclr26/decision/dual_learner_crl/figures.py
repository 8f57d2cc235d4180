"""Figures of the FAME gridworld reproduction (arXiv 2603.00903); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.store import SeedResult

__all__ = ["decisions_table", "meta_accuracy_plot", "running_return", "transfer_bars"]


def running_return(results: Sequence[SeedResult]) -> Figure:
    """Running normalized return over the whole task sequence per method (mean over seeds; task boundaries dashed)."""
    art = results[0].artifacts
    fig = Figure(figsize=(8, 3.4), layout="constrained")
    ax = fig.subplots()
    for m in art["methods"]:
        c = results[0].curves[f"perf_{m}"]
        y = np.mean([r.curves[f"perf_{m}"]["y"] for r in results], axis=0)
        ax.plot(c["x"], y, label=m, lw=2.2 if m == "fame" else 1.2)
    for k, t in enumerate(art["sequence"]):
        ax.axvline(k * art["switch"], color="grey", ls="--", lw=0.7)
        ax.text(k * art["switch"] + art["switch"] / 2, 1.02, t, ha="center")
    ax.set(xlabel="env step", ylabel="running normalized return", ylim=(-1.0, 1.1))
    ax.legend(fontsize=7, loc="lower right")
    return fig


def transfer_bars(results: Sequence[SeedResult]) -> Figure:
    """Per-task forward transfer (vs Reset) and forgetting (end of task minus end of sequence) per method."""
    art = results[0].artifacts
    methods = art["methods"]
    seq = art["sequence"]
    fig = Figure(figsize=(9, 3.4), layout="constrained")
    ax1, ax2 = fig.subplots(1, 2)
    width = 0.8 / len(methods)
    for i, m in enumerate(methods):
        if f"ft_{m}" in art:
            ft = np.mean([r.artifacts[f"ft_{m}"] for r in results], axis=0)
            ax1.bar(np.arange(1, len(seq)) + i * width, ft, width, label=m)
        fg = np.mean([r.artifacts[f"forget_by_task_{m}"] for r in results], axis=0)
        ax2.bar(np.arange(len(seq) - 1) + i * width, fg, width, label=m)
    ax1.set_xticks(np.arange(1, len(seq)) + 0.4 - width / 2, [f"{k + 1}:{t}" for k, t in enumerate(seq)][1:])
    ax2.set_xticks(
        np.arange(len(seq) - 1) + 0.4 - width / 2, [f"{k + 1}:{t}" for k, t in enumerate(seq)][:-1]
    )
    ax1.set(title="forward transfer", ylabel="(AUC - AUC_reset) / (1 - AUC_reset)")
    ax2.set(title="forgetting (FAME: meta learner at the end)", ylabel="score drop")
    ax1.legend(fontsize=7)
    return fig


def decisions_table(results: Sequence[SeedResult]) -> Figure:
    """FAME's warm-up decision (meta / fast / reset) at each task arrival, one row per seed."""
    seq = results[0].artifacts["sequence"]
    rows = [[d["choice"] for d in r.artifacts["decisions"]] for r in results]
    fig = Figure(figsize=(1.2 * len(seq) + 1, 0.4 * len(rows) + 1), layout="constrained")
    ax = fig.subplots()
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
    fig = Figure(figsize=(5, 3.2), layout="constrained")
    ax = fig.subplots()
    x = np.arange(1, len(art["sequence"]) + 1)
    for j, t in enumerate(art["tasks"]):
        ax.plot(x, acc[:, j], "o-", label=f"task {t}")
    ax.set_xticks(x, [f"{k + 1}:{t}" for k, t in enumerate(art["sequence"])])
    ax.set(xlabel="after task", ylabel="meta accuracy (oracle actions)", ylim=(0, 1.05))
    ax.legend(fontsize=7)
    return fig
