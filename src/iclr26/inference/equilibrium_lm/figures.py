"""Figures of the ELM reproduction: accuracy vs pruned layers, GPPO policy, residuals, KV memory."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

__all__ = ["gppo_plot", "kv_memory", "pruning_curve", "residuals"]

_METHODS = ("elm", "drop_ft", "single_layer", "linear")


def _rows(results: Sequence) -> list[dict]:
    return [r.metrics if hasattr(r, "metrics") else r["metrics"] for r in results]


def _artifacts(results: Sequence) -> list[dict]:
    return [r.artifacts if hasattr(r, "artifacts") else r.get("artifacts", {}) for r in results]


def _curves(results: Sequence) -> list[dict]:
    return [r.curves if hasattr(r, "curves") else r.get("curves", {}) for r in results]


def pruning_curve(results: Sequence) -> Figure:
    """Arithmetic exact match (mean over seeds) vs number of pruned layers G, per method; dashed: dense."""
    rows, arts = _rows(results), _artifacts(results)
    order = list(arts[0].get("groups", [])) if arts else []  # the first one is the claim's G
    fig = Figure(figsize=(5, 3.5))
    ax = fig.add_subplot()
    for method in _METHODS:
        points = []
        for i, g in enumerate(order):
            key = f"{method}_acc" if i == 0 else f"g{g}_{method}_acc"
            if rows and key in rows[0]:
                points.append((g, float(np.mean([r[key] for r in rows]))))
        points.sort()
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=method)
    if rows and "dense_acc" in rows[0]:
        ax.axhline(float(np.mean([r["dense_acc"] for r in rows])), ls="--", color="k", label="dense")
    ax.set_xlabel("pruned layers G")
    ax.set_ylabel("exact match")
    ax.legend(fontsize=7)
    return fig


def gppo_plot(results: Sequence) -> Figure:
    """GPPO policy probability per candidate start (bars) and each candidate's loss after the search (line)."""
    fig = Figure(figsize=(5, 3.5))
    ax = fig.add_subplot()
    gppo = next((a["gppo"] for a in _artifacts(results) if "gppo" in a), None)
    if gppo is None:
        ax.text(0.5, 0.5, "no GPPO run", ha="center")
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


def residuals(results: Sequence) -> Figure:
    """Fixed-point residual ||z_k - z_(k-1)||_2 per iteration of the trained ELM, one line per seed."""
    fig = Figure(figsize=(5, 3.5))
    ax = fig.add_subplot()
    for i, curves in enumerate(_curves(results)):
        c = curves.get("elm_residual")
        if c:
            ax.semilogy(c["x"], c["y"], marker=".", label=f"seed {i}")
    ax.set_xlabel("iteration k")
    ax.set_ylabel("mean residual")
    ax.legend(fontsize=7)
    return fig


def kv_memory(results: Sequence) -> Figure:
    """KV-cache memory vs sequence length: dense, ELM with One-Step cache, and baselines (measured bytes/token)."""
    rows = _rows(results)
    fig = Figure(figsize=(5, 3.5))
    ax = fig.add_subplot()
    lengths = np.array([128, 512, 1024, 2048])
    for name in ("dense", *_METHODS):
        key = f"{name}_kv_bytes_per_token"
        if rows and key in rows[0]:
            ax.plot(lengths, lengths * rows[0][key] / 1024, marker="o", label=name)
    ax.set_xlabel("sequence length")
    ax.set_ylabel("KV cache (KiB)")
    ax.legend(fontsize=7)
    return fig
