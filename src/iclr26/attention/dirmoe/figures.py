"""Figures of the DirMoE reproduction (OpenReview a15cDnzr6r); the first docstring line is the caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import curve_matrix, grouped_bars, legend, metric_mean, new_figure, plot_band
from iclr26.harness.store import SeedResult

__all__ = ["active_experts", "curves_vs_step", "routing_heatmaps", "schedule_vs_step"]


def _routers(results: Sequence[SeedResult]) -> list[str]:
    return list(results[0].artifacts["routers"])


def _curve(results: Sequence[SeedResult], key: str) -> tuple[np.ndarray, np.ndarray] | None:
    """Curve `key` over seeds (cut to the shortest seed), or None when the first seed has none."""
    return curve_matrix(results, key, ragged="truncate") if key in results[0].curves else None


def routing_heatmaps(results: Sequence[SeedResult]) -> Figure:
    """P(expert selected | hidden domain) at inference, last MoE layer, first seed: one panel per router."""
    routers = _routers(results)
    fig, axes = new_figure(ncols=len(routers), width=3.2 * len(routers), height=3.0, flat=True)
    for ax, name in zip(axes, routers):
        heat = np.asarray(results[0].artifacts["heatmap"][name][-1])
        im = ax.imshow(heat, vmin=0, vmax=1, cmap="viridis", aspect="auto")
        ax.set(xlabel="expert", ylabel="domain", title=name)
    fig.colorbar(im, ax=list(axes), shrink=0.8, label="selection frequency")
    return fig


def curves_vs_step(results: Sequence[SeedResult]) -> Figure:
    """Validation loss and domain/expert-set NMI against training step (mean over seeds)."""
    fig, (ax_loss, ax_nmi) = new_figure(ncols=2, width=9)
    for name in _routers(results):
        for ax, key in ((ax_loss, "val_loss"), (ax_nmi, "nmi")):
            c = _curve(results, f"{name}_{key}")
            if c is not None:
                plot_band(ax, *c, interval=None, marker="o", ms=3, label=name)
    bayes = metric_mean(results, "bayes_val_loss")
    ax_loss.axhline(bayes, color="gray", ls="--", lw=1, label="Bayes-optimal")
    ax_loss.set(xlabel="step", ylabel="validation loss (nats)", yscale="log")
    ax_nmi.set(xlabel="step", ylabel="NMI(domain, expert set)")
    legend(ax_loss)
    return fig


def active_experts(results: Sequence[SeedResult]) -> Figure:
    """Distribution of the number of active experts per token at inference (mean over layers and seeds)."""
    fig, ax = new_figure(width=5)
    per_seed = {  # (experts + 1, seeds): each seed's histogram, averaged over layers
        name: np.array([np.mean(r.artifacts["active_hist"][name], axis=0) for r in results]).T
        for name in _routers(results)
    }
    n_bins = max(len(h) for h in per_seed.values())
    grouped_bars(ax, [str(k) for k in range(n_bins)], per_seed)
    ax.set(xlabel="active experts per token", ylabel="fraction of tokens")
    legend(ax)
    return fig


def schedule_vs_step(results: Sequence[SeedResult]) -> Figure:
    """DirMoE's Gumbel-sigmoid temperature and expected vs realised active experts against step."""
    fig, (ax_tau, ax_act) = new_figure(ncols=2, width=9)
    for name in _routers(results):
        tau = _curve(results, f"{name}_tau")
        if tau is not None and np.all(np.isfinite(tau[1])):
            plot_band(ax_tau, *tau, interval=None, marker="o", ms=3, label=name)
        for key, style in (("expected_active", "--"), ("active", "-")):
            c = _curve(results, f"{name}_{key}")
            if c is not None:
                plot_band(ax_act, *c, interval=None, ls=style, label=f"{name} {key.replace('_', ' ')}")
    ax_tau.set(xlabel="step", ylabel="temperature tau")
    ax_act.set(xlabel="step", ylabel="experts per token")
    legend(ax_act)
    return fig
