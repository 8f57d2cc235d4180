"""Figures of the soft-thinking reproduction; each takes the stored per-seed results."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import legend, metric_values, new_figure, seed_band, seed_bars
from iclr26.harness.store import SeedResult

__all__ = [
    "accuracy_per_mode",
    "dominance_vs_confidence",
    "js_histograms",
    "layer_overlap_curves",
    "tau_beta_sweeps",
]

_MODES = ("greedy", "soft", "sample", "dirichlet", "gumbel")


def accuracy_per_mode(results: Sequence[SeedResult]) -> Figure:
    """Pass@1 and pass@k per decoding mode (mean over seeds, dots = seeds)."""
    fig, ax = new_figure(width=7, height=3.5)
    draws = int(results[0].artifacts.get("draws", 8))
    x = np.arange(len(_MODES))
    for off, (key, label) in enumerate((("acc_{}", "pass@1"), (f"pass{draws}_{{}}", f"pass@{draws}"))):
        values = [metric_values(results, key.format(mode), required=False) for mode in _MODES]
        seed_bars(ax, x + (off - 0.5) * 0.38, values, width=0.38, label=label, alpha=0.8, dot_size=9)
    ax.set_xticks(x, _MODES)
    ax.set_ylabel("accuracy (DAG + mod problems)")
    ax.legend()
    return fig


def js_histograms(results: Sequence[SeedResult]) -> Figure:
    """Histograms of JS(soft, top-1) and JS(soft, top-2) at thinking steps with p_top1 < 0.8 (all seeds)."""
    fig, ax = new_figure(width=6, height=3.5)
    bins = np.linspace(0, np.log(2), 25)
    for key, label in (("js_top1", "JS(soft, top-1)"), ("js_top2", "JS(soft, top-2)")):
        vals = np.concatenate(
            [np.asarray(r.artifacts.get(key, []), dtype=float) for r in results] + [np.zeros(0)]
        )
        ax.hist(vals, bins=bins, alpha=0.6, label=f"{label} (n={vals.size})")
    ax.axvline(np.log(2), color="k", ls=":", lw=1)
    ax.set_xlabel("Jensen-Shannon divergence (nats; max ln 2)")
    ax.set_ylabel("thinking steps")
    ax.legend()
    return fig


def dominance_vs_confidence(results: Sequence[SeedResult]) -> Figure:
    """Argmax agreement of the soft-input and top-1-only next steps, by the top-1 weight p_top1."""
    fig, ax = new_figure(width=6, height=3.5)
    for i, a in enumerate(r.artifacts for r in results):
        edges = np.asarray(a["p_bins"], dtype=float)
        mids = 0.5 * (edges[:-1] + edges[1:])
        ax.plot(mids, np.asarray(a["agree_by_p"], dtype=float), "o-", label=f"seed {i}")
    ax.set_xlabel("p_top1 of the soft token")
    ax.set_ylabel("agreement with top-1-only input")
    ax.set_ylim(0, 1.05)
    legend(ax)
    return fig


def tau_beta_sweeps(results: Sequence[SeedResult]) -> Figure:
    """DAG pass@1 of Gumbel soft thinking vs tau and of Dirichlet soft thinking vs beta."""
    fig, axes = new_figure(ncols=2, width=8)
    for ax, name in zip(axes, ("tau", "beta")):
        for i, r in enumerate(results):
            cv = r.curves.get(f"dag_acc_vs_{name}")
            if cv:
                ax.plot(cv["x"], cv["y"], "o-", label=f"seed {i}")
        ax.set_xlabel(name)
        ax.set_ylabel("DAG pass@1")
        legend(ax)
    return fig


def layer_overlap_curves(results: Sequence[SeedResult]) -> Figure:
    """Logit-lens overlap per layer for s = 0.6 e_a + 0.4 e_b: top-5 of a-only / b-only inside the soft top-10."""
    fig, ax = new_figure(width=6, height=3.5)
    for key, style, label in (
        ("lens_overlap_top1", "-", "a (weight 0.6)"),
        ("lens_overlap_top2", "--", "b (0.4)"),
    ):
        if any(key in r.curves for r in results):
            seed_band(ax, results, key, interval=None, ls=style, marker="o", label=label)
    ax.set_xlabel("layer (0 = embedding)")
    ax.set_ylabel("overlap count (of 5)")
    ax.set_ylim(0, 5.2)
    ax.legend()
    return fig
