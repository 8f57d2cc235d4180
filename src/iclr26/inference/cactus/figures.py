"""Figures of the Cactus reproduction (arXiv 2604.04987); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.store import SeedResult

__all__ = ["frontier", "h_shift", "tau_accuracy"]

FAMILIES = (("cactus_", "Cactus (delta swept)"), ("topk_", "top-k"), ("interp_", "interpolation"))


def _mean(results: Sequence[SeedResult], split: str, key: str, stat: str) -> float:
    return float(np.mean([r.metrics[f"{split}_{key}_{stat}"] for r in results]))


def frontier(results: Sequence[SeedResult]) -> Figure:
    """Exact acceptance rate vs emitted KL(r||q) for every verifier (real and Dirichlet pairs; mean over seeds)."""
    fig = Figure(figsize=(9, 3.4), layout="constrained")
    keys = list(results[0].artifacts["sweeps"]["real"].keys())
    for ax, split in zip(fig.subplots(1, 2), ("real", "dirichlet")):
        for prefix, label in FAMILIES:
            ks = [k for k in keys if k.startswith(prefix)]
            pts = sorted((_mean(results, split, k, "kl"), _mean(results, split, k, "acc")) for k in ks)
            ax.plot([max(x, 1e-8) for x, _ in pts], [y for _, y in pts], "o-", label=label)
        for k, mk in (("tas", "s"), ("tasloose", "D"), ("sps", "*")):
            ax.plot(
                max(_mean(results, split, k, "kl"), 1e-8), _mean(results, split, k, "acc"), mk, ms=9, label=k
            )
        ax.set_xscale("log")
        ax.set(xlabel="KL(r || q) of the emitted token", ylabel="acceptance rate", title=f"{split} pairs")
    fig.axes[0].legend(fontsize=7)
    return fig


def tau_accuracy(results: Sequence[SeedResult]) -> Figure:
    """Acceptance length tau and answer accuracy of SpS, Cactus and TAS decoding (per seed and mean)."""
    fig = Figure(figsize=(8, 3.2), layout="constrained")
    names = ("sps", "cactus", "tas")
    for ax, stat, label in zip(
        fig.subplots(1, 2), ("tau", "acc"), ("acceptance length tau", "accuracy (pass@1)")
    ):
        for i, n in enumerate(names):
            ys = [r.metrics[f"{stat}_{n}"] for r in results]
            ax.bar(i, np.mean(ys), color=f"C{i}", alpha=0.6)
            ax.plot([i] * len(ys), ys, "k.")
        ax.set_xticks(range(len(names)), names)
        ax.set(ylabel=label)
    return fig


def h_shift(results: Sequence[SeedResult]) -> Figure:
    """How far Cactus raises the drafted token: h_n - q_n against q_n on real pairs (first seed)."""
    a = results[0].artifacts["h_shift"]
    fig = Figure(figsize=(4.5, 3.4), layout="constrained")
    ax = fig.subplots()
    ax.plot(a["qn"], a["dh"], ".", alpha=0.5)
    x = np.linspace(0, 1, 200)
    ax.plot(x, np.minimum(np.sqrt(2 * a["delta"] * x * (1 - x)), 1 - x), "k-", lw=1, label="Taylor curve")
    ax.set(xlabel="q_n (target prob. of drafted token)", ylabel="h_n - q_n", title=f"delta = {a['delta']:g}")
    ax.legend()
    return fig
