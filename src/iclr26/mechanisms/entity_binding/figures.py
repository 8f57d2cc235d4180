"""Figures of the entity-binding reproduction (arXiv 2510.06182); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import legend, metric_mean, new_figure
from iclr26.harness.store import SeedResult

__all__ = ["agreement_per_n", "mechanism_weights", "patch_heatmap"]


def patch_heatmap(results: Sequence[SeedResult]) -> Figure:
    """Post-patch candidate distribution (mean over pairs and seeds) by positional target, largest n."""
    n = max(int(v) for v in results[0].artifacts["eval_ns"])
    heat = np.mean([np.asarray(r.artifacts["heatmap"][str(n)]) for r in results], axis=0)
    fig, ax = new_figure(width=4.6, height=4)
    im = ax.imshow(heat, cmap="viridis", vmin=0)
    ax.set(xlabel="candidate answer position", ylabel="positional target (c's query index)", title=f"n = {n}")
    fig.colorbar(im, ax=ax, label="probability")
    return fig


def mechanism_weights(results: Sequence[SeedResult]) -> Figure:
    """Fitted mixture parameters at the largest n: sigma(p), lexical and reflexive gates vs position (per seed)."""
    n = max(int(v) for v in results[0].artifacts["eval_ns"])
    fig, axes = new_figure(ncols=3, width=9, height=3)
    for r in results:
        fit = r.artifacts["fits"][str(n)]
        for ax, key in zip(axes, ("sigma", "g_lex", "g_ref")):
            ax.plot(range(n), fit[key], "o-", alpha=0.7, label=f"seed {r.seed}")
    for ax, key in zip(
        axes, ("positional width sigma(p)", "lexical gate g_lex[k]", "reflexive gate g_ref[i]")
    ):
        ax.set(xlabel="target position", title=key)
    legend(axes[0])
    return fig


def agreement_per_n(results: Sequence[SeedResult]) -> Figure:
    """Held-out agreement (1 - JS_2) per n for the full mixture and its ablations (mean over seeds)."""
    ns = [int(v) for v in results[0].artifacts["eval_ns"]]
    fig, ax = new_figure(width=4.6)
    for name in ("full", "pos", "lex", "poslex"):
        ax.plot(ns, [metric_mean(results, f"agree_{name}_n{n}") for n in ns], "o-", label=name)
    ax.set(xlabel="number of groups n", ylabel="agreement 1 - JS_2")
    legend(ax)
    return fig
