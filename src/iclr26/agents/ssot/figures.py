"""Figures of the SSoT offline reproduction (first docstring line: caption)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import grouped_bars, legend, metric_values, new_figure, seed_band

__all__ = ["jsd_vs_length", "scripted_bars"]


def jsd_vs_length(results: Sequence[Any]) -> Figure:
    """Median JSD (over repeats) vs string length per source and task, dotted: PRNG 95% band's upper end."""
    art = results[0].artifacts
    sources = list(art["median_jsd"])
    fig, axes = new_figure(ncols=len(sources), width=3.6 * len(sources), height=3.4, flat=True, sharey=True)
    for ax, src in zip(axes, sources):
        for i, t in enumerate(art["tasks"]):
            line = seed_band(ax, results, f"jsd_{src}_{t}", label=t, color=f"C{i}")
            ax.axhline(art["prng_band"][t]["hi"], color=line.get_color(), ls=":", lw=0.8)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(src)
        ax.set_xlabel("string length L")
    axes[0].set_ylabel("median JSD (bits)")
    legend(axes[-1], fontsize=6)
    return fig


def scripted_bars(results: Sequence[Any]) -> Figure:
    """JSD per task of the scripted SSoT model (end-to-end pipeline) next to the PRNG band median; runs with
    ``--llm`` add the endpoint's direct and SSoT bars."""
    art = results[0].artifacts
    tasks = art["tasks"]
    fig, ax = new_figure(width=7, height=3.2)
    series = {}
    if all("endpoint" in r.artifacts for r in results):
        for m, label in (("direct", "endpoint direct"), ("ssot", "endpoint SSoT")):
            series[label] = [metric_values(results, f"llm_jsd_{m}_{t}") for t in tasks]
    series["scripted SSoT"] = [metric_values(results, f"scripted_jsd_{t}") for t in tasks]
    series["PRNG median"] = [
        np.array([r.artifacts["prng_band"][t]["median"] for r in results]) for t in tasks
    ]
    grouped_bars(ax, tasks, series, dots=True, tick_kw={"fontsize": 7})
    ax.set_ylabel("JSD (bits)")
    legend(ax)
    return fig
