"""Figures of the BioBO reproduction (arXiv 2509.19988); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.figure import Figure

from iclr26.harness.figures import legend, metric_values, new_figure, seed_band, seed_errorbar
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
    fig, axes = new_figure(ncols=2, width=9, height=3.4)
    for ax, prefix in zip(axes, ("pathway", "control")):
        for m in _methods(results, prefix):
            color = COLORS.get(m, "tab:gray")
            lw = 2.5 if m == "biobo" else 1.2
            seed_band(ax, results, f"{prefix}_{m}_recall", label=m, color=color, alpha=0.15, lw=lw)
        ax.set(xlabel="labels", ylabel="top-1% recall", title=f"{prefix} landscape", ylim=(0, 1.02))
        legend(ax)
    return fig


def l50_bars(results: Sequence[SeedResult]) -> Figure:
    """Labels needed for 50% top-1% recall (pathway landscape; seeds that never reach it are excluded, n shown)."""
    fig, ax = new_figure(width=5)
    methods = _methods(results, "pathway")
    for i, m in enumerate(methods):
        ok = metric_values(results, f"pathway_{m}_l50", required=False)
        height = ok.mean() if ok.size else 0.0
        ax.bar(i, height, color="tab:green" if m == "biobo" else "tab:gray")
        ax.text(i, height, f"n={ok.size}", ha="center", va="bottom", fontsize=7)
    ax.set_xticks(range(len(methods)), methods, fontsize=8)
    ax.set(ylabel="labels to 50% recall (L50)")
    return fig


def gain_vs_noise(results: Sequence[SeedResult]) -> Figure:
    """Label-efficiency gain of BioBO over conventional BO vs annotation noise (mean +- sd over seeds)."""
    sweep = [float(d) for d in results[0].artifacts.get("noise_sweep", [])]
    pts = [(d, f"noise{int(round(100 * d))}_gain") for d in sweep]
    if not pts:
        pts = [(float(results[0].artifacts["annotation_noise"]), "pathway_gain")]
    fig, ax = new_figure()
    seed_errorbar(
        ax, [d for d, _ in pts], [metric_values(results, k) for _, k in pts], interval="sd", fmt="o-"
    )
    ax.axhline(0.0, color="k", lw=0.5)
    ax.set(xlabel="annotation noise (fraction of memberships dropped)", ylabel="gain = 1 - L_BioBO / L_conv")
    return fig


def explanation_plot(results: Sequence[SeedResult]) -> Figure:
    """Precision/recall of the enriched pathways per cycle against the hidden causal pathways (mean over seeds)."""
    fig, ax = new_figure(width=5)
    for key in ("explain_precision", "explain_recall"):
        seed_band(ax, results, key, interval=None, marker="o", label=key.replace("explain_", ""))
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
    legend(ax)
    return fig
