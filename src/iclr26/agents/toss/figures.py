"""Figures of the TOSS reproduction, drawn from stored per-seed results.

Paper: "TOSS: Token-level Data Selection for Safe LLM Fine-tuning" (Li et al., ICLR 2026, arXiv 2603.01185).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import legend, metric_values, new_figure

__all__ = ["position_hist", "tradeoff"]

_R = ("r10", "r20", "r30")


def _mean(results, key):
    v = metric_values(results, key, required=False)
    return float(np.mean(v)) if len(v) else np.nan


def tradeoff(results: Sequence[Any]) -> Figure:
    """Safety (refusal rate on held-out harmful prompts) vs utility (new-task exact match), mean over seeds."""
    fig, ax = new_figure(width=6, height=4.2)
    for m, label in (("toss", "TOSS"), ("filter", "sample filtering")):
        xs = [_mean(results, f"{m}_util_{k}") for k in _R]
        ys = [_mean(results, f"{m}_refusal_{k}") for k in _R]
        ax.plot(xs, ys, "o-", label=f"{label} (rho 0.1, 0.2, 0.3)")
    for key, label, mk in (
        ("sft", "plain SFT", "s"),
        ("base", "base model", "*"),
        ("mix", "data mixing", "D"),
    ):
        ax.plot([_mean(results, f"{key}_util")], [_mean(results, f"{key}_refusal")], mk, label=label)
    for key, label, mk in (
        ("random", "random drop 0.2", "v"),
        ("first5", "first-5 masking", "^"),
        ("pro", "TOSS-Pro 0.2", "P"),
    ):
        ax.plot([_mean(results, f"{key}_util_r20")], [_mean(results, f"{key}_refusal_r20")], mk, label=label)
    ax.set_xlabel("utility: exact match on the new task")
    ax.set_ylabel("safety: refusal rate")
    legend(ax, fontsize=7)
    return fig


def position_hist(results: Sequence[Any]) -> Figure:
    """Fraction of response tokens discarded at each response position (last bin: >= 9), rho = 0.2, mean over seeds."""
    fig, ax = new_figure(width=6, height=3.6)
    for name, label in (("toss_r20", "TOSS"), ("pro_r20", "TOSS-Pro"), ("filter_r20", "sample filtering")):
        rows = [
            r.artifacts["position_drop_rate"][name]
            for r in results
            if name in r.artifacts.get("position_drop_rate", {})
        ]
        if rows:
            ax.plot(np.arange(len(rows[0])), np.mean(rows, 0), "o-", label=label)
    ax.set_xlabel("response position")
    ax.set_ylabel("discarded fraction")
    legend(ax, fontsize=8)
    return fig
