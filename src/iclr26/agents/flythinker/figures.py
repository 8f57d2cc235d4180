"""Figures of the FlyThinker reproduction, drawn from stored per-seed results.

Paper: "Think-While-Generating: On-the-Fly Reasoning for Personalized Long-Form Generation" (ICLR 2026,
arXiv 2512.06690).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import grouped_bars, legend, new_figure

__all__ = ["preference_accuracy", "section_nll", "timings"]

LABELS = {
    "sft": "SFT (G alone)",
    "pm": "SFT, param-matched",
    "fly": "FlyThinker",
    "ttg": "think-then-generate",
    "chain": "latent chain (timed only)",
    "fly_parallel": "FlyThinker, R in a thread",
}


def section_nll(results: Sequence[Any]) -> Figure:
    """Test-user response NLL by section index (1-4) per method, mean over seeds with a band of the seed range:
    does FlyThinker's gain grow along the response?"""
    fig, ax = new_figure(width=6, height=3.8)
    for k in ("sft", "pm", "fly", "ttg"):
        rows = np.array([r.artifacts["section_nll"][k] for r in results if "section_nll" in r.artifacts])
        if not len(rows):
            continue
        x = np.arange(1, rows.shape[1] + 1)
        ax.plot(x, rows.mean(0), "o-", label=LABELS[k])
        ax.fill_between(x, rows.min(0), rows.max(0), alpha=0.15)
    ax.set_xlabel("response section")
    ax.set_ylabel("NLL per response token (nats)")
    ax.set_xticks([1, 2, 3, 4])
    legend(ax, fontsize=8)
    return fig


def timings(results: Sequence[Any]) -> Figure:
    """Wall-clock seconds per training step (left; interleaved, median) and per generated token (right, batch of
    test prompts) for each method; bars are means over seeds, dots the seeds."""
    fig, (a, b) = new_figure(2, width=10, height=3.8)
    for ax, key, title in ((a, "step_s", "training step (s)"), (b, "token_s", "decoding, per token (s)")):
        names = [k for k in LABELS if all(k in r.artifacts.get(key, {}) for r in results)]
        if names and results:
            vals = [[r.artifacts[key][k] for r in results] for k in names]
            grouped_bars(
                ax,
                [LABELS[k] for k in names],
                {title: vals},
                dots=True,
                tick_kw={"rotation": 30, "ha": "right", "fontsize": 7},
            )
        ax.set_title(title, fontsize=9)
    return fig


def preference_accuracy(results: Sequence[Any]) -> Figure:
    """Preference-word accuracy of greedy generations for unseen users (bars: mean over seeds, dots: seeds); the
    dashed line is the history-blind baseline (most frequent word per topic and slot)."""
    fig, ax = new_figure(width=6, height=3.8)
    names = [k for k in ("sft", "pm", "fly", "ttg") if all(f"{k}_pref_acc" in r.metrics for r in results)]
    if names and results:
        vals = [[r.metrics[f"{k}_pref_acc"] for r in results] for k in names]
        grouped_bars(ax, [LABELS[k] for k in names], {"accuracy": vals}, dots=True, tick_kw={"fontsize": 7})
        blind = [r.metrics["blind_pref_acc"] for r in results if "blind_pref_acc" in r.metrics]
        if blind:
            ax.axhline(float(np.mean(blind)), ls="--", color="k", lw=1, label="history-blind baseline")
            legend(ax, fontsize=8)
    ax.set_ylabel("preference words correct")
    ax.set_ylim(0, 1)
    return fig
