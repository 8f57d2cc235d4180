"""Figures of the DirMoE reproduction (OpenReview a15cDnzr6r); the first docstring line is the caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.store import SeedResult

__all__ = ["active_experts", "curves_vs_step", "routing_heatmaps", "schedule_vs_step"]


def _routers(results: Sequence[SeedResult]) -> list[str]:
    return list(results[0].artifacts["routers"])


def _mean_curve(results: Sequence[SeedResult], key: str) -> tuple[np.ndarray, np.ndarray] | None:
    if key not in results[0].curves:
        return None
    x = np.asarray(results[0].curves[key]["x"])
    ys = [np.asarray(r.curves[key]["y"]) for r in results if key in r.curves]
    n = min(len(y) for y in ys)
    return x[:n], np.mean([y[:n] for y in ys], axis=0)


def routing_heatmaps(results: Sequence[SeedResult]) -> Figure:
    """P(expert selected | hidden domain) at inference, last MoE layer, first seed: one panel per router."""
    routers = _routers(results)
    fig = Figure(figsize=(3.2 * len(routers), 3.0), layout="constrained")
    axes = np.atleast_1d(fig.subplots(1, len(routers)))
    for ax, name in zip(axes, routers):
        heat = np.asarray(results[0].artifacts["heatmap"][name][-1])
        im = ax.imshow(heat, vmin=0, vmax=1, cmap="viridis", aspect="auto")
        ax.set(xlabel="expert", ylabel="domain", title=name)
    fig.colorbar(im, ax=list(axes), shrink=0.8, label="selection frequency")
    return fig


def curves_vs_step(results: Sequence[SeedResult]) -> Figure:
    """Validation loss and domain/expert-set NMI against training step (mean over seeds)."""
    fig = Figure(figsize=(9, 3.2), layout="constrained")
    ax_loss, ax_nmi = fig.subplots(1, 2)
    for name in _routers(results):
        for ax, key in ((ax_loss, "val_loss"), (ax_nmi, "nmi")):
            c = _mean_curve(results, f"{name}_{key}")
            if c is not None:
                ax.plot(*c, "o-", ms=3, label=name)
    bayes = np.mean([r.metrics["bayes_val_loss"] for r in results])
    ax_loss.axhline(bayes, color="gray", ls="--", lw=1, label="Bayes-optimal")
    ax_loss.set(xlabel="step", ylabel="validation loss (nats)", yscale="log")
    ax_nmi.set(xlabel="step", ylabel="NMI(domain, expert set)")
    ax_loss.legend(fontsize=7)
    return fig


def active_experts(results: Sequence[SeedResult]) -> Figure:
    """Distribution of the number of active experts per token at inference (mean over layers and seeds)."""
    fig = Figure(figsize=(5, 3.2), layout="constrained")
    ax = fig.subplots()
    routers = _routers(results)
    width = 0.8 / len(routers)
    for i, name in enumerate(routers):
        hist = np.mean([np.mean(r.artifacts["active_hist"][name], axis=0) for r in results], axis=0)
        ax.bar(np.arange(hist.size) + i * width, hist, width, label=name)
    ax.set(xlabel="active experts per token", ylabel="fraction of tokens")
    ax.legend(fontsize=7)
    return fig


def schedule_vs_step(results: Sequence[SeedResult]) -> Figure:
    """DirMoE's Gumbel-sigmoid temperature and expected vs realised active experts against step."""
    fig = Figure(figsize=(9, 3.2), layout="constrained")
    ax_tau, ax_act = fig.subplots(1, 2)
    for name in _routers(results):
        tau = _mean_curve(results, f"{name}_tau")
        if tau is not None and np.all(np.isfinite(tau[1])):
            ax_tau.plot(*tau, "o-", ms=3, label=name)
        for key, style in (("expected_active", "--"), ("active", "-")):
            c = _mean_curve(results, f"{name}_{key}")
            if c is not None:
                ax_act.plot(*c, style, label=f"{name} {key.replace('_', ' ')}")
    ax_tau.set(xlabel="step", ylabel="temperature tau")
    ax_act.set(xlabel="step", ylabel="experts per token")
    ax_act.legend(fontsize=7)
    return fig
