"""Figures of the HDLA reproduction (OpenReview HVFjzaQeig); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import legend, metric_values, new_figure, note, seed_errorbar
from iclr26.harness.store import SeedResult

__all__ = ["accuracy_vs_nkv", "core_timing", "eigen_spectrum", "training_curves"]

LABELS = {
    "hdla": "HDLA",
    "gated_deltanet": "Gated DeltaNet",
    "gla": "GLA",
    "deltanet": "DeltaNet",
    "deltaproduct2": "DeltaProduct (2)",
}


def _mixers(results: Sequence[SeedResult]) -> list[str]:
    return [m for m in LABELS if f"acc_{m}" in results[0].metrics]


def accuracy_vs_nkv(results: Sequence[SeedResult]) -> Figure:
    """MQAR test accuracy against the number of key-value pairs, one line per mixer (mean +- sd over seeds)."""
    n_kvs = [int(n) for n in results[0].artifacts["eval_n_kv"]]
    fig, ax = new_figure(width=5, height=3.4)
    for m in _mixers(results):
        acc = [metric_values(results, f"acc_{m}_nkv{n}") for n in n_kvs]
        seed_errorbar(ax, n_kvs, acc, interval="sd", marker="o", label=LABELS[m])
    ax.axhline(results[0].metrics["chance"], color="gray", ls=":", label="chance")
    ax.set(xlabel="key-value pairs", ylabel="test accuracy", ylim=(0, 1.02))
    legend(ax, fontsize=8)
    return fig


def training_curves(results: Sequence[SeedResult]) -> Figure:
    """Training loss and validation accuracy against step, one line per mixer and seed."""
    fig, (ax_loss, ax_acc) = new_figure(ncols=2, width=9)
    for i, m in enumerate(_mixers(results)):
        for j, r in enumerate(results):
            label = LABELS[m] if j == 0 else None
            c = r.curves[f"loss_{m}"]
            ax_loss.plot(c["x"], c["y"], color=f"C{i}", alpha=0.7, lw=0.8, label=label)
            c = r.curves[f"val_acc_{m}"]
            ax_acc.plot(c["x"], c["y"], "o-", color=f"C{i}", alpha=0.7, label=label)
    ax_loss.set(xlabel="step", ylabel="training loss")
    ax_acc.set(xlabel="step", ylabel="validation accuracy", ylim=(0, 1.02))
    legend(ax_acc, fontsize=8)
    return fig


def eigen_spectrum(results: Sequence[SeedResult]) -> Figure:
    """Eigenvalues of the first layer's transition P_t on test sequences after training (first seed)."""
    spec = results[0].artifacts["spectrum"]
    fig, ax = new_figure(width=5)
    for i, (m, h) in enumerate(spec.items()):
        edges = np.asarray(h["edges"])
        counts = np.asarray(h["counts"], dtype=float)
        ax.stairs(counts / max(counts.sum(), 1.0), edges, color=f"C{i}", label=LABELS.get(m, m))
    ax.axvline(0.0, color="gray", ls=":")
    ax.set(xlabel="eigenvalue of P_t", ylabel="fraction")
    legend(ax, fontsize=8)
    return fig


def core_timing(results: Sequence[SeedResult]) -> Figure:
    """Forward wall time of the HDLA core on CPU: chunk-wise (C = 16) vs step by step, against T (first seed)."""
    fig, ax = new_figure(width=5)
    timing = results[0].artifacts.get("timing")
    if not timing:
        note(ax, "no timings in this budget")
        return fig
    ax.loglog(timing["T"], timing["chunk_s"], "o-", label="chunk-wise")
    ax.loglog(timing["T"], timing["recurrent_s"], "s-", label="step by step")
    ax.set(xlabel="sequence length T", ylabel="seconds (forward, B=2, H=2, d=32)")
    legend(ax, fontsize=8)
    return fig
