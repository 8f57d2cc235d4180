"""Figures of the Overtone reproduction, drawn from stored per-seed results (first docstring line: the caption).

Paper: "Overtone: Cyclic Patch Modulation for Clean, Efficient, and Flexible Physics Emulators" (ICLR 2026, arXiv
2507.09264).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import legend, metric_values, new_figure, note, seed_band

__all__ = ["compute_curve", "error_snapshots", "residual_spectra", "vrmse_vs_step"]

LABELS = {
    "csm_p4": "CSM, fixed p = 4",
    "csm_p8": "CSM, fixed p = 8",
    "csm_p16": "CSM, fixed p = 16",
    "csm_cyc": "CSM, cyclic (4, 8, 16)",
    "csm_cyc816": "CSM, cyclic (8, 16)",
    "base_p8": "fixed-p = 8 baseline",
    "persistence": "persistence (copy last)",
}
STYLE = {
    "csm_p4": dict(color="tab:blue", ls=":"),
    "csm_p8": dict(color="tab:blue", ls="-"),
    "csm_p16": dict(color="tab:blue", ls="--"),
    "csm_cyc": dict(color="tab:red", ls="-"),
    "csm_cyc816": dict(color="tab:orange", ls="-"),
    "base_p8": dict(color="black", ls="-."),
    "persistence": dict(color="grey", ls=":"),
}


def vrmse_vs_step(results: Sequence[Any]) -> Figure:
    """Test VRMSE vs rollout step: the CSM model at fixed p = 4 / 8 / 16 and cyclic, the fixed-p = 8 baseline."""
    fig, ax = new_figure(width=6, height=3.8)
    drawn = False
    for key in LABELS:
        have = [r for r in results if f"vrmse_{key}" in r.curves]
        if have:
            seed_band(ax, have, f"vrmse_{key}", label=LABELS[key], **STYLE[key])
            drawn = True
    if not drawn:
        note(ax, "no rollouts stored")
        return fig
    ax.axhline(1.0, color="grey", lw=0.6)
    ax.set_xlabel("rollout step (0.5 time units each)")
    ax.set_ylabel("VRMSE (1 = predict the mean)")
    legend(ax, fontsize=7)
    return fig


def residual_spectra(results: Sequence[Any]) -> Figure:
    """Power spectrum (mean of the x and y axes) of the last-step rollout error, p = 8 harmonics k = 8, 16, 24 marked."""
    fig, ax = new_figure(width=6, height=3.8)
    specs = [r.artifacts.get("spectra", {}) for r in results]
    if not specs or not specs[0]:
        note(ax, "no spectra stored")
        return fig
    N = 2 * (len(next(iter(specs[0].values()))) - 1)
    for key in ("csm_p8", "csm_p16", "csm_cyc", "csm_cyc816", "base_p8"):
        rows = [np.asarray(s[key]) for s in specs if key in s]
        if rows:
            mean = np.exp(np.mean(np.log(np.maximum(np.stack(rows), 1e-30)), axis=0))
            k = np.arange(mean.size)
            ax.semilogy(k[1:], mean[1:], label=LABELS[key], **STYLE[key])
    for h in range(N // 8, N // 2, N // 8):
        ax.axvline(h, color="tab:blue", lw=0.6, alpha=0.5)
    ax.set_xlabel("wavenumber k (one-sided, along an axis)")
    ax.set_ylabel("error power (geometric mean over seeds)")
    legend(ax, fontsize=7)
    return fig


def compute_curve(results: Sequence[Any]) -> Figure:
    """Compute adaptivity: 10-step VRMSE vs forward FLOPs per step for the CSM model's patch sizes (one model)."""
    fig, ax = new_figure(width=5.5, height=3.8)
    pts = []
    for p in (4, 8, 16):
        if results and all(
            f"flops_p{p}" in r.metrics and f"vrmse_flex_csm_p{p}" in r.metrics for r in results
        ):
            pts.append(
                (p, metric_values(results, f"flops_p{p}"), metric_values(results, f"vrmse_flex_csm_p{p}"))
            )
    if not pts:
        note(ax, "no compute measurements stored")
        return fig
    xs = [float(np.mean(f)) / 1e9 for _, f, _ in pts]
    ys = [float(np.mean(v)) for _, _, v in pts]
    ax.plot(xs, ys, "o-", color="tab:blue", label="CSM model (one set of weights)")
    for (p, _f, v), x in zip(pts, xs):
        ax.scatter(np.full(len(v), x), v, color="tab:blue", s=8, alpha=0.5)
        ax.annotate(f"p = {p}", (x, float(np.mean(v))), textcoords="offset points", xytext=(5, 5), fontsize=7)
    if all("vrmse_flex_base_p8" in r.metrics for r in results):
        vb = metric_values(results, "vrmse_flex_base_p8")
        xb = float(np.mean(metric_values(results, "flops_p8"))) / 1e9
        ax.scatter(
            [xb], [float(np.mean(vb))], marker="s", color="black", label="fixed-p = 8 baseline", zorder=3
        )
    ax.set_xscale("log")
    ax.set_xlabel("forward GFLOPs per step (batch 1)")
    ax.set_ylabel("10-step VRMSE")
    legend(ax, fontsize=7)
    return fig


def error_snapshots(results: Sequence[Any]) -> Figure:
    """Last-step rollout error of test trajectory 0 (seed 0): fixed p = 8, p = 16, cyclic, and the truth."""
    snaps = results[0].artifacts.get("snapshots", {}) if results else {}
    keys = [k for k in ("truth", "csm_p8", "csm_p16", "csm_cyc", "base_p8") if k in snaps]
    fig, axes = new_figure(ncols=max(len(keys), 1), width=2.6 * max(len(keys), 1), height=2.9, flat=True)
    if not keys:
        note(axes[0], "no snapshots stored")
        return fig
    errs = [np.asarray(snaps[k]) for k in keys if k != "truth"]
    lim = float(max(np.abs(e).max() for e in errs)) if errs else 1.0
    for ax, key in zip(axes, keys):
        field = np.asarray(snaps[key])
        if key == "truth":
            ax.imshow(field, cmap="RdBu_r")
            ax.set_title("true vorticity", fontsize=8)
        else:
            ax.imshow(field, cmap="PuOr", vmin=-lim, vmax=lim)
            ax.set_title(f"error: {LABELS[key]}", fontsize=7)
        ax.set_xticks([])
        ax.set_yticks([])
    return fig
