"""Figures of the ELM reproduction: accuracy vs pruned layers, GPPO policy, residuals, KV memory."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import legend, metric_mean, new_figure, note
from iclr26.harness.store import SeedResult

__all__ = ["gppo_plot", "kv_memory", "pruning_curve", "residuals"]

_METHODS = ("elm", "drop_ft", "single_layer", "linear")


def pruning_curve(results: Sequence[SeedResult]) -> Figure:
    """Arithmetic exact match (mean over seeds) vs number of pruned layers G, per method; dashed: dense."""
    order = list(results[0].artifacts.get("groups", [])) if results else []  # the first one is the claim's G
    first = results[0].metrics if results else {}
    fig, ax = new_figure(width=5, height=3.5)
    for method in _METHODS:
        points = []
        for i, g in enumerate(order):
            key = f"{method}_acc" if i == 0 else f"g{g}_{method}_acc"
            if key in first:
                points.append((g, metric_mean(results, key)))
        points.sort()
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=method)
    if "dense_acc" in first:
        ax.axhline(metric_mean(results, "dense_acc"), ls="--", color="k", label="dense")
    ax.set_xlabel("pruned layers G")
    ax.set_ylabel("exact match")
    legend(ax)
    return fig


def gppo_plot(results: Sequence[SeedResult]) -> Figure:
    """GPPO policy probability per candidate start (bars) and each candidate's loss after the search (line)."""
    fig, ax = new_figure(width=5, height=3.5)
    gppo = next((r.artifacts["gppo"] for r in results if "gppo" in r.artifacts), None)
    if gppo is None:
        note(ax, "no GPPO run")
        return fig
    x = np.arange(len(gppo["candidates"]))
    ax.bar(x, gppo["probs"], color="C0")
    ax.set_xticks(x, [str(c) for c in gppo["candidates"]])
    ax.set_xlabel("start layer s")
    ax.set_ylabel("policy probability")
    twin = ax.twinx()
    twin.plot(x, gppo["candidate_loss"], color="C3", marker="o")
    twin.set_ylabel("candidate loss (nats)")
    return fig


def residuals(results: Sequence[SeedResult]) -> Figure:
    """Fixed-point residual ||z_k - z_(k-1)||_2 per iteration of the trained ELM, one line per seed."""
    fig, ax = new_figure(width=5, height=3.5)
    for i, r in enumerate(results):
        c = r.curves.get("elm_residual")
        if c:
            ax.semilogy(c["x"], c["y"], marker=".", label=f"seed {i}")
    ax.set_xlabel("iteration k")
    ax.set_ylabel("mean residual")
    legend(ax)
    return fig


def kv_memory(results: Sequence[SeedResult]) -> Figure:
    """KV-cache memory vs sequence length: dense, ELM with One-Step cache, and baselines (measured bytes/token)."""
    first = results[0].metrics if results else {}
    fig, ax = new_figure(width=5, height=3.5)
    lengths = np.array([128, 512, 1024, 2048])
    for name in ("dense", *_METHODS):
        key = f"{name}_kv_bytes_per_token"
        if key in first:
            ax.plot(lengths, lengths * first[key] / 1024, marker="o", label=name)
    ax.set_xlabel("sequence length")
    ax.set_ylabel("KV cache (KiB)")
    legend(ax)
    return fig
