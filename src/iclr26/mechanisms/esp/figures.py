"""Figures of the ESP reproduction ("Two (narrow) heads are better than (an arbitrarily wide) one", RRmPbbZsvl).

Each function takes the stored per-seed results and returns a ``matplotlib.figure.Figure``; the first line of
its docstring is the caption.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import legend, metric_mean, new_figure, seed_band, seed_bars
from iclr26.harness.store import SeedResult

__all__ = ["accuracy_curves", "attention_maps", "one_head_vs_optimum"]

_TAG = re.compile(r"^(?P<graph>[A-Z]\d*)_(?P<heads>\d+)h_d(?P<d>\d+)(?P<lr>_lr.*)?$")


def _graph_keys(results: Sequence[SeedResult]) -> list[str]:
    return [k.removeprefix("optimum_") for k in results[0].metrics if k.startswith("optimum_")]


def _graph_label(results: Sequence[SeedResult], g: str) -> str:
    graphs = results[0].artifacts.get("graphs", {})
    return graphs.get(g, {}).get("name", g)


def accuracy_curves(results: Sequence[SeedResult]) -> Figure:
    """Accuracy vs training step per graph (best restart, mean over seeds); dotted: the 1-head optimum."""
    keys = _graph_keys(results)
    fig, axes = new_figure(ncols=len(keys), width=3.2 * len(keys), height=3.0, sharey=True, flat=True)
    colors = {1: "tab:red", 2: "tab:blue"}
    styles = ["-", "--", ":", "-."]
    for ax, g in zip(axes, keys):
        tags = sorted({t for t in results[0].curves if _TAG.match(t) and _TAG.match(t)["graph"] == g})
        widths = sorted({int(_TAG.match(t)["d"]) for t in tags})
        for tag in tags:
            match = _TAG.match(tag)
            heads, d = int(match["heads"]), int(match["d"])
            seed_band(
                ax,
                results,
                tag,
                interval=None,
                color=colors.get(heads, "k"),
                ls=styles[widths.index(d) % len(styles)],
                label=f"{heads} head{'s' if heads > 1 else ''}, d={d}{match['lr'] or ''}",
            )
        ax.axhline(metric_mean(results, f"optimum_{g}"), color="k", ls=":", lw=1)
        ax.set_title(_graph_label(results, g))
        ax.set_xlabel("step")
    axes[0].set_ylabel("accuracy (all 2m instances)")
    legend(axes[-1], loc="lower right")
    return fig


def one_head_vs_optimum(results: Sequence[SeedResult]) -> Figure:
    """Best trained 1-head accuracy per graph (bars: mean over seeds, dots: seeds) against the optimum 1/2 + |MAS|/(2m)."""
    keys = _graph_keys(results)
    fig, ax = new_figure(width=1.2 * len(keys) + 2.5)
    x = np.arange(len(keys))
    best = []
    for g in keys:
        per_seed = [
            max(v for k, v in r.metrics.items() if k.startswith(f"acc_{g}_1h_") and k.endswith("_best"))
            for r in results
        ]
        best.append(per_seed)
    optimum = [[r.metrics[f"optimum_{g}"] for r in results] for g in keys]
    seed_bars(
        ax, x - 0.2, best, width=0.4, color="tab:red", label="trained, 1 head (best restart)", dot_size=8
    )
    seed_bars(ax, x + 0.2, optimum, width=0.4, color="0.7", label="optimum 1/2 + |MAS|/(2m)", dots=False)
    ax.set_xticks(x, [_graph_label(results, g) for g in keys])
    ax.set_ylim(0.4, 1.02)
    ax.set_ylabel("accuracy")
    legend(ax, loc="lower left")
    return fig


def attention_maps(results: Sequence[SeedResult]) -> Figure:
    """Attention of the `#` query on K_n per head and selector: the 2-head hand construction and the best trained 2-head model (seed of the first result)."""
    attention = results[0].artifacts.get("attention", {})
    panels = [("hand construction (d=5)", attention.get("construction"))]
    if attention.get("trained") is not None:
        panels.append(
            (
                f"trained (d={attention.get('trained_d')}, acc {attention.get('trained_acc', 0):.2f})",
                attention["trained"],
            )
        )
    panels = [(title, np.asarray(p)) for title, p in panels if p is not None]
    heads = max(p.shape[0] for _, p in panels) if panels else 1
    n = max(heads * len(panels), 1)
    fig, axes = new_figure(ncols=n, width=2.6 * heads * max(len(panels), 1), height=2.4, flat=True)
    image = None
    for pi, (title, pattern) in enumerate(panels):
        for h in range(pattern.shape[0]):
            ax = axes[pi * heads + h]
            image = ax.imshow(pattern[h], vmin=0.0, vmax=1.0, cmap="viridis")
            ax.set_xticks(range(4), ["u", "v", "sel", "#"])
            ax.set_yticks(range(2), ["sel=1", "sel=2"])
            ax.set_title(f"{title}\nhead {h + 1}", fontsize=8)
    if image is not None:
        fig.colorbar(image, ax=list(axes), shrink=0.8, label="attention weight")
    return fig
