"""Figures of the Mamba training-dynamics reproduction (arXiv 2602.12499); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import legend, metric_mean, new_figure
from iclr26.harness.store import SeedResult

__all__ = ["alignment_trajectory", "error_heatmap", "gap_scaling", "locality_steps"]


def _code(gap: float) -> str:
    return f"{round(gap * 1000):03d}"


def alignment_trajectory(results: Sequence[SeedResult]) -> Figure:
    """Gate alignment w^T o_k along GD on majority data (first seed): o+, o- vs irrelevant patterns (grey)."""
    e1 = results[0].artifacts["e1"]
    fig, axes = new_figure(ncols=len(e1), width=4.2 * len(e1), flat=True)
    for ax, (decay, rec) in zip(axes, e1.items()):
        steps = np.asarray(rec["steps"])
        al = np.asarray(rec["alignment"])
        for k in range(2, al.shape[1]):
            ax.plot(steps, al[:, k], color="0.6", lw=0.8, label="irrelevant" if k == 2 else None)
        ax.plot(steps, al[:, 0], color="tab:red", lw=2, label="o+")
        ax.plot(steps, al[:, 1], color="tab:blue", lw=2, label="o-")
        ax.set(xlabel="GD step", ylabel="w^T o_k", title=f"decay = {decay}")
        legend(ax)
    return fig


def gap_scaling(results: Sequence[SeedResult]) -> Figure:
    """Steps to 5% test error vs signal gap (log-log, capped runs hollow) per decay variant, pooled fits, slope -2."""
    art = results[0].artifacts
    gaps = np.asarray(art["gaps"], dtype=float)
    decays = art.get("e2_main_decays", ["gated", "none"])
    fig, ax = new_figure(height=3.4)
    grid = np.linspace(gaps.min(), gaps.max(), 20)
    all_x, all_y = [], []
    for decay, color in zip(decays, ("tab:blue", "tab:orange", "tab:green")):
        xs, ys = [], []
        for r in results:
            for g in gaps:
                s = r.metrics[f"e2_main_steps_g{_code(g)}_{decay}"]
                cens = r.metrics[f"e2_main_censored_g{_code(g)}_{decay}"] > 0
                ax.loglog(g, max(s, 1.0), "o", mfc="none" if cens else color, mec=color)
                if not cens:
                    xs.append(np.log(g))
                    ys.append(np.log(max(s, 1.0)))
        if len(set(xs)) >= 2:
            slope, icpt = np.polyfit(xs, ys, 1)
            ax.loglog(grid, np.exp(icpt) * grid**slope, color=color, label=f"{decay}: fit slope {slope:.2f}")
        else:
            ax.plot([], [], "o", mfc="none", mec=color, label=f"{decay}: < 2 gaps reached")
        all_x += xs
        all_y += ys
    if all_x:
        ref = np.exp(np.mean(all_y) + 2 * np.mean(all_x))
        ax.loglog(grid, ref * grid**-2.0, "k--", lw=1, label="slope -2 (theory)")
    ax.set(xlabel="alpha_r - alpha_c", ylabel=f"GD steps to 5% (n = {art['n_main']})")
    legend(ax)
    return fig


def error_heatmap(results: Sequence[SeedResult]) -> Figure:
    """Test error after training over (signal gap, training-set size), mean over seeds."""
    art = results[0].artifacts
    gaps = art["gaps"]
    ns = sorted({*art["n_grid"], art["n_main"]})
    err = np.array([[metric_mean(results, f"e2_err_g{_code(g)}_n{n}") for n in ns] for g in gaps])
    fig, ax = new_figure(width=4.8, height=3.4)
    im = ax.imshow(err, origin="lower", cmap="viridis", vmin=0, vmax=0.5, aspect="auto")
    ax.set_xticks(range(len(ns)), [str(n) for n in ns])
    ax.set_yticks(range(len(gaps)), [f"{g:.2f}" for g in gaps])
    for i in range(len(gaps)):
        for j in range(len(ns)):
            ax.text(j, i, f"{err[i, j]:.2f}", ha="center", va="center", fontsize=7, color="w")
    ax.set(xlabel="n_train", ylabel="alpha_r - alpha_c")
    fig.colorbar(im, ax=ax, label="test error")
    return fig


def locality_steps(results: Sequence[SeedResult]) -> Figure:
    """Steps to 5% test error vs dL+ on locality data (mean over seeds), with [(1/2)^dL+ - (1/2)^dL-]^-2 rescaled."""
    art = results[0].artifacts
    dls = np.asarray(art["dl_pos"], dtype=float)
    steps = np.array([[r.metrics[f"e3_steps_dl{int(k)}"] for k in dls] for r in results])
    mean = np.maximum(steps.mean(0), 1.0)
    theory = (0.5**dls - 0.5 ** (dls + art["dl_sep"])) ** -2.0
    fig, ax = new_figure(height=3.4)
    for row in steps:
        ax.semilogy(dls, np.maximum(row, 1.0), ".", color="0.6")
    ax.semilogy(dls, mean, "o-", color="tab:green", label="measured (mean)")
    ax.semilogy(dls, theory * mean[0] / theory[0], "k--", lw=1, label="theory, rescaled at dL+ = min")
    ax.axhline(art["steps_cap"], color="tab:red", ls=":", lw=1, label="step cap")
    ax.set(xlabel="dL+ (distance of the consistent token from the end)", ylabel="GD steps to 5%")
    legend(ax)
    return fig
