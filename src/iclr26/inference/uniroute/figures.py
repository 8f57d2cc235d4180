"""Figures of the UniRoute reproduction (ICLR 2026, ka82fvJ5f1), drawn from the stored per-seed results.

Each function takes the per-seed results and returns a ``matplotlib.figure.Figure``; the first line of its
docstring is the caption. Bands and error bars are 95% Student-t intervals over (split, seed) pairs.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib import colormaps
from matplotlib.figure import Figure

from iclr26.harness.figures import legend, new_figure, plot_band, seed_dots, seed_errorbar
from iclr26.harness.store import SeedResult

__all__ = ["audc_by_router", "audc_vs_k_and_n", "deferral_curves", "traffic_share"]

_STYLE = {
    "uniroute_map": ("tab:red", "-", "UniRoute (learned map)"),
    "uniroute_kmeans": ("tab:orange", "-", "UniRoute (K-means)"),
    "knn": ("tab:blue", "-", "K-NN router"),
    "zero": ("tab:gray", "--", "ZeroRouter (hull)"),
    "oracle": ("k", ":", "clairvoyant MLP (test labels)"),
    "random": ("tab:olive", "-.", "random at matched cost"),
}


def deferral_curves(results: Sequence[SeedResult]) -> Figure:
    """Deferral curves (mean accuracy vs normalised cost) of every router among the unseen LLMs, first seed; right: the same on a symlog cost axis; star: best single LLM."""
    fig, axes = new_figure(ncols=2, width=12, height=4.5)
    first = results[0]
    for ax in axes:
        for name, (color, style, label) in _STYLE.items():
            curve = first.curves.get(f"deferral_{name}")
            if curve is None:
                continue
            x = np.concatenate([curve["x"], [1.0]])
            y = np.concatenate([curve["y"], [curve["y"][-1]]])  # flat to cost 1, as in the AUDC
            area = first.metrics.get(f"audc_{name}", float("nan"))
            ax.plot(x, y, color=color, ls=style, lw=1.5, label=f"{label}: AUDC {area:.3f}")
        ax.scatter(
            [first.metrics["cost_best_llm"]],
            [first.metrics["acc_best_llm"]],
            marker="*",
            s=120,
            color="tab:purple",
            zorder=5,
            label="best single LLM (by S_val)",
        )
        ax.set_xlabel("mean cost (min-max normalised over the unseen pool)")
        ax.set_ylabel("mean accuracy on test prompts")
    axes[1].set_xscale("symlog", linthresh=1e-3)
    axes[1].set_xlim(0, 1)
    axes[0].set_title(f"seed {first.seed}", fontsize=9)
    legend(axes[0], loc="lower right")
    return fig


def audc_by_router(results: Sequence[SeedResult]) -> Figure:
    """AUDC per router over (split, seed) pairs: one dot per pair, mean and 95% t-interval as bars."""
    fig, ax = new_figure(width=7, height=4)
    names = [n for n in _STYLE if f"audc_{n}" in results[0].metrics]
    for i, name in enumerate(names):
        values = [[r.metrics[f"audc_{name}"] for r in results]]
        color = _STYLE[name][0]
        seed_dots(ax, [i], values, color=color, size=10, alpha=0.5, jitter=0.15)
        seed_errorbar(ax, [i], values, interval="t", color=color, marker="s", ms=6, capsize=4)
    ax.set_xticks(range(len(names)), [_STYLE[n][2] for n in names], rotation=20, ha="right", fontsize=8)
    ax.set_ylabel("AUDC (unseen LLMs, test prompts)")
    return fig


def _sweep(results: Sequence[SeedResult], prefix: str, key: str, n: int) -> np.ndarray:
    return np.array([[r.metrics[f"{prefix}_{i}_{key}"] for i in range(n)] for r in results])


def audc_vs_k_and_n(results: Sequence[SeedResult]) -> Figure:
    """AUDC against the number of clusters K (left) and the validation-set size N (right), mean and 95% band."""
    fig, (ax_k, ax_n) = new_figure(ncols=2, width=11, height=4)
    ks = results[0].artifacts.get("k_sweep", [])
    for key in ("uniroute_map", "uniroute_kmeans"):
        if ks and f"sweepK_0_{key}" in results[0].metrics:
            color, style, label = _STYLE[key]
            audc = _sweep(results, "sweepK", key, len(ks))
            plot_band(
                ax_k, ks, audc, interval="t", alpha=0.15, color=color, ls=style, marker="o", label=label
            )
    ax_k.set_xscale("log")
    if ks:
        ax_k.set_xticks(ks, [str(k) for k in ks])
        ax_k.minorticks_off()
    ax_k.set_xlabel("K (clusters)")
    ax_k.set_ylabel("AUDC")
    legend(ax_k)
    n_fracs = results[0].artifacts.get("n_sweep", [])
    if n_fracs:
        Ns = _sweep(results, "sweepN", "N", len(n_fracs)).mean(axis=0)
        for key in ("uniroute_map", "uniroute_kmeans", "knn", "zero"):
            color, style, label = _STYLE[key]
            audc = _sweep(results, "sweepN", key, len(n_fracs))
            plot_band(
                ax_n, Ns, audc, interval="t", alpha=0.15, color=color, ls=style, marker="o", label=label
            )
    ax_n.set_xlabel("N (validation prompts per LLM)")
    ax_n.set_ylabel("AUDC")
    legend(ax_n)
    return fig


def traffic_share(results: Sequence[SeedResult]) -> Figure:
    """Share of test prompts routed to each unseen LLM by UniRoute (learned map) as lambda grows, first seed; colour: cost rank (dark = cheap); legend: the 8 most used LLMs."""
    fig, ax = new_figure(width=8, height=4.5)
    art = results[0].artifacts
    share = np.asarray(art["share_map"]["share"], dtype=float)  # (n_lams, pool)
    lams = np.asarray(art["share_map"]["lams"], dtype=float)
    names = art["test_llms"]
    costs = np.asarray(art["test_costs"], dtype=float)
    norm = (costs - costs.min()) / max(costs.max() - costs.min(), 1e-12)
    x = np.arange(lams.size)
    used = np.flatnonzero(share.max(axis=0) > 0)
    order = used[np.argsort(norm[used])]
    top = set(order[np.argsort(-share[:, order].max(axis=0))][:8].tolist())
    cmap = colormaps["viridis"]
    colors = [cmap(i / max(order.size - 1, 1)) for i in range(order.size)]  # cheap (dark) to costly (yellow)
    bottom = np.zeros(lams.size)
    for c, j in zip(colors, order):
        label = f"{names[j]} (c={norm[j]:.2f})" if j in top else None
        ax.fill_between(x, bottom, bottom + share[:, j], step="mid", color=c, alpha=0.8, lw=0, label=label)
        bottom += share[:, j]
    ticks = np.unique(np.linspace(0, lams.size - 1, 6).round().astype(int))
    ax.set_xticks(ticks, [f"{lams[t]:.2g}" for t in ticks])
    ax.set_xlabel("lambda (normalised cost scale)")
    ax.set_ylabel("share of test prompts")
    ax.set_ylim(0, 1)
    legend(ax, fontsize=6, loc="center left", bbox_to_anchor=(1.0, 0.5))
    return fig
