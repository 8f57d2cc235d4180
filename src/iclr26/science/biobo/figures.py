"""Figures of the BioBO reproduction (arXiv 2509.19988); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.store import SeedResult

__all__ = ["explanation_plot", "gain_vs_noise", "l50_bars", "recall_curves"]

COLORS = {
    "biobo": "tab:blue",
    "conv": "tab:orange",
    "multimodal": "tab:green",
    "single_ea": "tab:purple",
    "random": "tab:red",
    "ea_greedy": "tab:brown",
}


def _methods(results: Sequence[SeedResult], prefix: str) -> list[str]:
    keys = results[0].curves
    return [
        k[len(prefix) + 1 : -len("_recall")]
        for k in keys
        if k.startswith(prefix + "_") and k.endswith("_recall")
    ]


def recall_curves(results: Sequence[SeedResult]) -> Figure:
    """Top-1% recall vs number of labels per method (mean over seeds, band = min-max), pathway and control."""
    fig = Figure(figsize=(9, 3.4), layout="constrained")
    for ax, prefix in zip(fig.subplots(1, 2), ("pathway", "control")):
        for m in _methods(results, prefix):
            key = f"{prefix}_{m}_recall"
            x = np.asarray(results[0].curves[key]["x"])
            ys = np.array([r.curves[key]["y"] for r in results])
            color = COLORS.get(m, "tab:gray")
            ax.plot(x, ys.mean(0), label=m, lw=2.5 if m == "biobo" else 1.2, color=color)
            ax.fill_between(x, ys.min(0), ys.max(0), alpha=0.15, color=color)
        ax.set(xlabel="labels", ylabel="top-1% recall", title=f"{prefix} landscape", ylim=(0, 1.02))
        ax.legend(fontsize=7)
    return fig


def l50_bars(results: Sequence[SeedResult]) -> Figure:
    """Labels needed for 50% top-1% recall (pathway landscape; seeds that never reach it are excluded, n shown)."""
    fig = Figure(figsize=(5, 3.2), layout="constrained")
    ax = fig.subplots()
    methods = _methods(results, "pathway")
    for i, m in enumerate(methods):
        v = np.array([r.metrics.get(f"pathway_{m}_l50", np.nan) for r in results], dtype=float)
        ok = v[np.isfinite(v)]
        ax.bar(i, ok.mean() if ok.size else 0.0, color="tab:green" if m == "biobo" else "tab:gray")
        ax.text(i, (ok.mean() if ok.size else 0.0), f"n={ok.size}", ha="center", va="bottom", fontsize=7)
    ax.set_xticks(range(len(methods)), methods, fontsize=8)
    ax.set(ylabel="labels to 50% recall (L50)")
    return fig


def gain_vs_noise(results: Sequence[SeedResult]) -> Figure:
    """Label-efficiency gain of BioBO over conventional BO vs annotation noise (mean +- sd over seeds)."""
    sweep = [float(d) for d in results[0].artifacts.get("noise_sweep", [])]
    pts = [(d, f"noise{int(round(100 * d))}_gain") for d in sweep]
    if not pts:
        pts = [(float(results[0].artifacts["annotation_noise"]), "pathway_gain")]
    fig = Figure(figsize=(4.5, 3.2), layout="constrained")
    ax = fig.subplots()
    xs = [d for d, _ in pts]
    g = np.array([[r.metrics[k] for r in results] for _, k in pts])
    ax.errorbar(xs, g.mean(1), yerr=g.std(1), fmt="o-")
    ax.axhline(0.0, color="k", lw=0.5)
    ax.set(xlabel="annotation noise (fraction of memberships dropped)", ylabel="gain = 1 - L_BioBO / L_conv")
    return fig


def explanation_plot(results: Sequence[SeedResult]) -> Figure:
    """Precision/recall of the enriched pathways per cycle against the hidden causal pathways (mean over seeds)."""
    fig = Figure(figsize=(5, 3.2), layout="constrained")
    ax = fig.subplots()
    for key in ("explain_precision", "explain_recall"):
        x = results[0].curves[key]["x"]
        ys = np.array([r.curves[key]["y"] for r in results])
        ax.plot(x, ys.mean(0), "o-", label=key.replace("explain_", ""))
    rows = results[0].artifacts.get("explanation", [])
    causal = set(results[0].artifacts.get("causal", []))
    text = "\n".join(
        f"{r['pathway']}{'*' if r['pathway'] in causal else ''} p={r['p']:.1e} q={r['q']:.2f} k={r['overlap']}"
        for r in rows[:5]
    )
    ax.text(
        0.02, 0.02, text or "(no enriched pathway)", transform=ax.transAxes, fontsize=6, family="monospace"
    )
    ax.set(xlabel="labels", ylabel="explanation vs causal pathways", ylim=(-0.02, 1.02))
    ax.legend(fontsize=7)
    return fig
