"""Figures of the L2FOB reproduction ("Towards Safe and Optimal Online Bidding", ICLR 2026, AtbRCnvcrZ).

Each function takes the stored per-seed results and returns a ``matplotlib.figure.Figure``; the first line of
its docstring is the caption. Bands are pointwise 95% Student-t intervals over seeds.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from iclr26.harness.figures import (
    curve_band,
    curve_matrix,
    legend,
    metric_mean,
    metric_values,
    new_figure,
    plot_band,
    seed_errorbar,
)
from iclr26.harness.store import SeedResult

__all__ = ["eta_ablation", "regret_scaling", "reward_and_roi", "spend_paths", "violation_paths"]

_STYLE = {
    "l2fob": ("tab:red", "-"),
    "wang": ("tab:blue", "-"),
    "coupled": ("tab:green", "-"),
    "truncated": ("tab:gray", "-"),
    "l2fob_upper": ("tab:orange", "--"),
    "l2fob_standard": ("tab:pink", "--"),
    "wang_scaled": ("tab:cyan", "--"),
    "coupled_scaled": ("tab:olive", "--"),
}
_LABEL = {
    "l2fob": "L2FOB",
    "wang": "Wang et al. 2023",
    "coupled": "coupled dual",
    "truncated": "truncated v/gamma",
    "l2fob_upper": "L2FOB, upper cost bound",
    "l2fob_standard": "L2FOB, standard queues",
    "wang_scaled": "Wang, step 1/(rho sqrt T)",
    "coupled_scaled": "coupled, step 1/(rho sqrt T)",
}


def _methods(results: Sequence[SeedResult]) -> list[str]:
    return [m for m in results[0].artifacts.get("methods", []) if f"reward_{m}" in results[0].curves]


def _band(ax: Axes, x: np.ndarray, ys: np.ndarray, method: str) -> None:
    """Mean and 95% t band over seeds of one method, in its colour and line style."""
    color, style = _STYLE.get(method, ("k", "-"))
    plot_band(
        ax, x, ys, interval="t", alpha=0.15, color=color, ls=style, lw=1.4, label=_LABEL.get(method, method)
    )


def reward_and_roi(results: Sequence[SeedResult]) -> Figure:
    """Cumulative reward R_t (dotted: t nu*) and running ROI R_t / C_t (dotted: gamma) per method, mean and 95% band."""
    fig, (ax_r, ax_roi) = new_figure(ncols=2, width=11, height=4)
    gamma = float(results[0].artifacts["gamma"])
    nu = metric_mean(results, "nu_star")
    for m in _methods(results):
        x, reward = curve_matrix(results, f"reward_{m}")
        _, spend = curve_matrix(results, f"spend_{m}")
        _band(ax_r, x, reward, m)
        with np.errstate(invalid="ignore", divide="ignore"):
            roi = np.where(spend > 0, reward / np.where(spend > 0, spend, 1.0), np.nan)
        keep = np.all(np.isfinite(roi), axis=0)
        if keep.any():
            _band(ax_roi, x[keep], roi[:, keep], m)
    x = np.asarray(results[0].curves[f"reward_{_methods(results)[0]}"]["x"], dtype=float)
    ax_r.plot(x, nu * x, "k:", lw=1, label="t nu* (fluid LP)")
    ax_roi.axhline(gamma, color="k", ls=":", lw=1, label=f"gamma = {gamma:g}")
    ax_roi.set_xscale("log")  # the early rounds, where the ROI moves, stay readable
    for ax in (ax_r, ax_roi):
        ax.set_xlabel("round t")
    ax_r.set_ylabel("cumulative reward R_t")
    ax_roi.set_ylabel("running ROI R_t / C_t")
    ax_roi.set_ylim(0, None)
    legend(ax_r, loc="upper left")
    return fig


def violation_paths(results: Sequence[SeedResult]) -> Figure:
    """Anytime ROI violation V(t) = max(0, gamma C_t - R_t) per method, mean and 95% band over seeds."""
    fig, ax = new_figure(width=6, height=4)
    for m in _methods(results):
        _band(ax, *curve_matrix(results, f"violation_{m}"), m)
    ax.set_xscale("log")
    ax.set_xlabel("round t")
    ax.set_ylabel("V(t)")
    legend(ax)
    return fig


def spend_paths(results: Sequence[SeedResult]) -> Figure:
    """Spend C_t per method (pacing), mean and 95% band; dotted: the budget B and the even pace rho t."""
    fig, ax = new_figure(width=6, height=4)
    B = float(results[0].artifacts["B"])
    x = None
    for m in _methods(results):
        x, spend = curve_matrix(results, f"spend_{m}")
        _band(ax, x, spend, m)
    if x is not None:
        ax.plot(x, B * x / x[-1], "k:", lw=1, label="rho t")
    ax.axhline(B, color="k", lw=1, ls="--", label=f"B = {B:g}")
    ax.set_xlabel("round t")
    ax.set_ylabel("spend C_t")
    legend(ax)
    return fig


def regret_scaling(results: Sequence[SeedResult]) -> Figure:
    """Normalized regret (T nu* - R) / T against the horizon T (log-log), mean and 95% interval over seeds."""
    fig, ax = new_figure(width=6, height=4)
    keys = sorted(k for k in results[0].metrics if k.startswith("sweep_T"))
    horizons = np.array([results[0].metrics[k] for k in keys])
    prefix = "sweep_norm_regret_"
    found = {k.removeprefix(prefix).rsplit("_", 1)[0] for k in results[0].metrics if k.startswith(prefix)}
    methods = [m for m in _STYLE if m in found]
    anchor = None
    for m in methods:
        regret = [metric_values(results, f"sweep_norm_regret_{m}_{i}") for i in range(len(keys))]
        color, style = _STYLE[m]
        seed_errorbar(
            ax, horizons, regret, interval="t", color=color, ls=style, marker="o", ms=4, label=_LABEL[m]
        )
        anchor = float(regret[0].mean()) if anchor is None else anchor
    if anchor is not None and anchor > 0:
        ax.plot(
            horizons, anchor * np.sqrt(horizons[0] / horizons), "k:", lw=1, label="slope -1/2 (reference)"
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("horizon T (B = rho T)")
    ax.set_ylabel("(T nu* - R) / T")
    legend(ax)
    return fig


def eta_ablation(results: Sequence[SeedResult]) -> Figure:
    """eta_gam ablation of L2FOB: cumulative reward against max_t V(t), seeds as dots, mean +- 95% t-interval as bars."""
    fig, ax = new_figure(width=6, height=4)
    etas = results[0].artifacts.get("eta_gams", [])
    colors = ["tab:purple", "tab:red", "tab:orange", "tab:brown"]
    for j, eta in enumerate(etas):
        reward = np.array([r.metrics[f"reward_eta{eta:g}"] for r in results])
        violation = np.array([r.metrics[f"max_violation_eta{eta:g}"] for r in results])
        color = colors[j % len(colors)]
        ax.scatter(violation, reward, s=8, color=color, alpha=0.35)
        r_mean, r_lo, r_hi = curve_band(reward[:, None])
        v_mean, v_lo, v_hi = curve_band(violation[:, None])
        ax.errorbar(
            v_mean,
            r_mean,
            xerr=[v_mean - v_lo, v_hi - v_mean],
            yerr=[r_mean - r_lo, r_hi - r_mean],
            color=color,
            marker="s",
            ms=6,
            capsize=3,
            label=f"eta_gam = {eta:g}",
        )
    ax.set_xlabel("max_t V(t) (anytime ROI violation)")
    ax.set_ylabel("cumulative reward R_T")
    legend(ax)
    return fig
