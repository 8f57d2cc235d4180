"""Figures of the SMC-DDM reproduction, drawn from stored per-seed results."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

__all__ = ["ess_over_steps", "reward_histograms", "tv_vs_n"]

_LINES = ("ancestral", "best_of_n", "smc_base", "smc_gradient", "smc_amortised", "guidance")


def _tag(alpha: float) -> str:
    return f"a{round(alpha * 10):02d}"


def tv_vs_n(results: Sequence) -> Figure:
    """TV between returned samples' reward histogram and the exact tilted target vs particles N (mean over seeds)."""
    art = results[0].artifacts
    alphas, ns = art["alphas"], art["particles"]
    fig = Figure(figsize=(5 * len(alphas), 3.6))
    for i, alpha in enumerate(alphas):
        ax = fig.add_subplot(1, len(alphas), i + 1)
        for m in _LINES:
            ys = [np.mean([r.metrics.get(f"{_tag(alpha)}_n{n}_{m}_tv", np.nan) for r in results]) for n in ns]
            ax.plot(ns, ys, marker="o", label=m)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("particles N")
        ax.set_ylabel("TV to pi* (reward histogram)")
        ax.set_title(f"alpha = {alpha}")
        floor = np.mean([r.metrics.get("model_fit_tv", np.nan) for r in results])
        ax.axhline(floor, color="grey", ls=":", label="model fit floor")
    fig.axes[0].legend(fontsize=7)
    fig.tight_layout()
    return fig


def ess_over_steps(results: Sequence) -> Figure:
    """Mean ESS after each weight update at the claim's N, per proposal (first seed)."""
    art = results[0].artifacts
    fig = Figure(figsize=(5 * len(art["alphas"]), 3.4))
    for i, alpha in enumerate(art["alphas"]):
        ax = fig.add_subplot(1, len(art["alphas"]), i + 1)
        for m in ("smc_base", "smc_gradient", "smc_amortised"):
            c = results[0].curves.get(f"{_tag(alpha)}_{m}_ess")
            if c:
                ax.plot(c["x"], c["y"], marker=".", label=m)
        ax.set_xlabel("weight update k")
        ax.set_ylabel(f"ESS (N = {art['claim_n']})")
        ax.set_title(f"alpha = {alpha}")
        ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def reward_histograms(results: Sequence) -> Figure:
    """Reward histograms at the claim's N: exact pi*, ancestral, best-of-N and SMC (mean over seeds)."""
    art = results[0].artifacts
    n = art["claim_n"]
    fig = Figure(figsize=(5 * len(art["alphas"]), 3.4))
    for i, alpha in enumerate(art["alphas"]):
        tag = _tag(alpha)
        ax = fig.add_subplot(1, len(art["alphas"]), i + 1)
        series = {"pi*": f"{tag}_target_hist"} | {
            m: f"{tag}_n{n}_{m}_hist" for m in ("ancestral", "best_of_n", "smc_base", "smc_gradient")
        }
        width = 0.8 / len(series)
        for j, (label, key) in enumerate(series.items()):
            h = np.mean([r.artifacts[key] for r in results], axis=0)
            ax.bar(np.arange(len(h)) + j * width, h, width=width, label=label)
        ax.set_xlabel("reward r (motif count)")
        ax.set_ylabel("probability")
        ax.set_title(f"alpha = {alpha}, N = {n}")
        ax.legend(fontsize=7)
    fig.tight_layout()
    return fig
