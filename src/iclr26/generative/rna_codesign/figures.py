"""Figures of the RNA co-design reproduction; the first docstring line of each function is its caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import legend, new_figure, note, plot_band, seed_dots
from iclr26.harness.store import SeedResult

__all__ = ["rl_reward_curve", "structure_3d", "tm_distributions", "tm_vs_examples"]

METHODS = ("a", "b", "c", "d")
LABELS = {"a": "A pretrained", "b": "B scratch", "c": "C scratch 10x", "d": "D = A + RL"}
COLORS = {"a": "tab:blue", "b": "tab:red", "c": "tab:gray", "d": "tab:green"}


def tm_distributions(results: Sequence[SeedResult]) -> Figure:
    """Self-consistency TM-score of every co-designed sample (all seeds pooled) per method; dashed: chance TM."""
    fig, ax = new_figure(width=5.5, height=3.4)
    bins = np.linspace(0, 1, 26)
    for m in METHODS:
        vals = np.concatenate([np.asarray(r.artifacts.get("tm", {}).get(m, []), float) for r in results])
        if vals.size:
            ax.hist(
                vals,
                bins=bins,
                histtype="step",
                lw=1.6,
                color=COLORS[m],
                label=f"{LABELS[m]} (mean {vals.mean():.3f})",
            )
    chance = np.mean([r.metrics.get("a_chance_tm", np.nan) for r in results])
    if np.isfinite(chance):
        ax.axvline(chance, color="k", ls="--", lw=0.8, label="chance TM (A)")
    ax.set(xlabel="self-consistency TM-score (RNA-align d0)", ylabel="samples")
    legend(ax)
    return fig


def tm_vs_examples(results: Sequence[SeedResult]) -> Figure:
    """Mean self-consistency TM against the number of co-design training examples: scratch (B, C) vs pretrained (A, D)."""
    fig, ax = new_figure(width=4.8, height=3.4)
    n_s, n_a = results[0].artifacts["n_scarce"], results[0].artifacts["n_abundant"]
    per = {m: [r.metrics[f"{m}_tm"] for r in results if f"{m}_tm" in r.metrics] for m in METHODS}
    ax.plot(
        [n_s, n_a], [np.mean(per["b"]), np.mean(per["c"])], "o-", color="tab:red", label="from scratch (B, C)"
    )
    seed_dots(ax, [n_s, n_a], [per["b"], per["c"]], color="tab:red", size=8, alpha=0.5)
    for m, dx in (("a", 0.93), ("d", 1.07)):
        ax.scatter(
            [n_s * dx], [np.mean(per[m])], marker="*", s=120, color=COLORS[m], label=LABELS[m], zorder=4
        )
        seed_dots(ax, [n_s * dx], [per[m]], color=COLORS[m], size=8, alpha=0.5)
    ax.set_xscale("log")
    ax.set_xticks([n_s, n_a], [str(n_s), str(n_a)])
    ax.minorticks_off()
    ax.set(xlabel="co-design training examples", ylabel="mean self-consistency TM")
    legend(ax)
    return fig


def structure_3d(results: Sequence[SeedResult]) -> Figure:
    """One structure co-designed by A (first seed): C4' pseudo-atoms, blue = paired in the generated geometry."""
    ex = results[0].artifacts.get("example")
    fig = Figure(figsize=(4.6, 4.2), layout="constrained")
    ax = fig.add_subplot(projection="3d")
    if not ex:
        note(ax, "no example stored")
        return fig
    p = np.asarray(ex["trans"], float)
    paired = np.array([c != "." for c in ex["generated"]])
    ax.plot(p[:, 0], p[:, 1], p[:, 2], color="0.6", lw=1)
    ax.scatter(*p[paired].T, color="tab:blue", s=18, label="paired")
    ax.scatter(*p[~paired].T, color="tab:orange", s=18, label="unpaired")
    ax.set_title(f"{ex['seq']}\ngen {ex['generated']}\nref {ex['refold']}", fontsize=6, family="monospace")
    legend(ax)
    return fig


def rl_reward_curve(results: Sequence[SeedResult]) -> Figure:
    """Mean reward (self-consistency TM of the batch) per RL fine-tuning step of D: mean and range over seeds."""
    fig, ax = new_figure(width=4.8, height=3.2)
    rows = [np.asarray(r.artifacts.get("rl_reward", []), float) for r in results]
    rows = [r for r in rows if r.size]
    if rows:
        k = min(r.size for r in rows)
        plot_band(
            ax,
            np.arange(1, k + 1),
            np.stack([r[:k] for r in rows]),
            label="D batch reward",
            color="tab:green",
        )
    ax.set(xlabel="RL step", ylabel="mean TM of the batch")
    legend(ax)
    return fig
