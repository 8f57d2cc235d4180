"""Figures of the SMC-DDM reproduction, drawn from stored per-seed results."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import grouped_bars, legend, metric_mean, new_figure

__all__ = ["ess_over_steps", "reward_histograms", "tv_vs_n"]

_LINES = ("ancestral", "best_of_n", "smc_base", "smc_gradient", "smc_amortised", "guidance")


def _tag(alpha: float) -> str:
    return f"a{round(alpha * 10):02d}"


def tv_vs_n(results: Sequence) -> Figure:
    """TV between returned samples' reward histogram and the exact tilted target vs particles N (mean over seeds)."""
    art = results[0].artifacts
    alphas, ns = art["alphas"], art["particles"]
    fig, axes = new_figure(ncols=len(alphas), width=5 * len(alphas), height=3.6, flat=True)
    floor = metric_mean(results, "model_fit_tv", required=False)
    for ax, alpha in zip(axes, alphas):
        for m in _LINES:
            ys = [metric_mean(results, f"{_tag(alpha)}_n{n}_{m}_tv", required=False) for n in ns]
            ax.plot(ns, ys, marker="o", label=m)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("particles N")
        ax.set_ylabel("TV to pi* (reward histogram)")
        ax.set_title(f"alpha = {alpha}")
        ax.axhline(floor, color="grey", ls=":", label="model fit floor")
    legend(axes[0])
    return fig


def ess_over_steps(results: Sequence) -> Figure:
    """Mean ESS after each weight update at the claim's N, per proposal (first seed)."""
    art = results[0].artifacts
    fig, axes = new_figure(ncols=len(art["alphas"]), width=5 * len(art["alphas"]), height=3.4, flat=True)
    for ax, alpha in zip(axes, art["alphas"]):
        for m in ("smc_base", "smc_gradient", "smc_amortised"):
            c = results[0].curves.get(f"{_tag(alpha)}_{m}_ess")
            if c:
                ax.plot(c["x"], c["y"], marker=".", label=m)
        ax.set_xlabel("weight update k")
        ax.set_ylabel(f"ESS (N = {art['claim_n']})")
        ax.set_title(f"alpha = {alpha}")
        legend(ax)
    return fig


def reward_histograms(results: Sequence) -> Figure:
    """Reward histograms at the claim's N: exact pi*, ancestral, best-of-N and SMC (mean over seeds)."""
    art = results[0].artifacts
    n = art["claim_n"]
    fig, axes = new_figure(ncols=len(art["alphas"]), width=5 * len(art["alphas"]), height=3.4, flat=True)
    for ax, alpha in zip(axes, art["alphas"]):
        tag = _tag(alpha)
        keys = {"pi*": f"{tag}_target_hist"} | {
            m: f"{tag}_n{n}_{m}_hist" for m in ("ancestral", "best_of_n", "smc_base", "smc_gradient")
        }
        per_seed = {
            label: np.array([r.artifacts[key] for r in results], dtype=float).T for label, key in keys.items()
        }
        grouped_bars(ax, [str(k) for k in range(len(per_seed["pi*"]))], per_seed)
        ax.set_xlabel("reward r (motif count)")
        ax.set_ylabel("probability")
        ax.set_title(f"alpha = {alpha}, N = {n}")
        legend(ax)
    return fig
