"""Figures of the Cactus reproduction (arXiv 2604.04987); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import legend, metric_mean, new_figure
from iclr26.harness.store import SeedResult
from iclr26.lab.speculative_bench import tau_accuracy_figure

__all__ = ["frontier", "h_shift", "tau_accuracy"]

FAMILIES = (("cactus_", "Cactus (delta swept)"), ("topk_", "top-k"), ("interp_", "interpolation"))


def _point(results: Sequence[SeedResult], split: str, key: str) -> tuple[float, float]:
    """(KL, acceptance rate) of one verifier, mean over seeds; KL floored at 1e-8 for the log axis."""
    return max(metric_mean(results, f"{split}_{key}_kl"), 1e-8), metric_mean(results, f"{split}_{key}_acc")


def frontier(results: Sequence[SeedResult]) -> Figure:
    """Exact acceptance rate vs emitted KL(r||q) for every verifier (real and Dirichlet pairs; mean over seeds)."""
    fig, axes = new_figure(ncols=2, width=9, height=3.4)
    keys = list(results[0].artifacts["sweeps"]["real"].keys())
    for ax, split in zip(axes, ("real", "dirichlet")):
        for prefix, label in FAMILIES:
            pts = sorted(_point(results, split, k) for k in keys if k.startswith(prefix))
            ax.plot([x for x, _ in pts], [y for _, y in pts], "o-", label=label)
        for k, mk in (("tas", "s"), ("tasloose", "D"), ("sps", "*")):
            ax.plot(*_point(results, split, k), mk, ms=9, label=k)
        ax.set_xscale("log")
        ax.set(xlabel="KL(r || q) of the emitted token", ylabel="acceptance rate", title=f"{split} pairs")
    legend(axes[0])
    return fig


def tau_accuracy(results: Sequence[SeedResult]) -> Figure:
    """Acceptance length tau and answer accuracy of SpS, Cactus and TAS decoding (per seed and mean)."""
    names = ("sps", "cactus", "tas")
    return tau_accuracy_figure(
        results, tau=[(f"tau_{n}", n) for n in names], accuracy=[(f"acc_{n}", n) for n in names]
    )


def h_shift(results: Sequence[SeedResult]) -> Figure:
    """How far Cactus raises the drafted token: h_n - q_n against q_n on real pairs (first seed)."""
    a = results[0].artifacts["h_shift"]
    fig, ax = new_figure(height=3.4)
    ax.plot(a["qn"], a["dh"], ".", alpha=0.5)
    x = np.linspace(0, 1, 200)
    ax.plot(x, np.minimum(np.sqrt(2 * a["delta"] * x * (1 - x)), 1 - x), "k-", lw=1, label="Taylor curve")
    ax.set(xlabel="q_n (target prob. of drafted token)", ylabel="h_n - q_n", title=f"delta = {a['delta']:g}")
    ax.legend()
    return fig
