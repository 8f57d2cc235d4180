"""Figures of the RACS/Alice reproduction (arXiv 2502.07752); the first docstring line of each is its caption."""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.figure import Figure

from iclr26.harness.store import SeedResult
from iclr26.lab import optim_bench as bench

__all__ = ["loss_curves", "loss_vs_state"]


def loss_curves(results: Sequence[SeedResult]) -> Figure:
    """Eval loss vs training step per optimizer (mean over seeds, band = mean +- sd)."""
    return bench.loss_curves(results, highlight=("racs", "alice"))


def loss_vs_state(results: Sequence[SeedResult]) -> Figure:
    """Final eval loss (mean +- sd over seeds) against total optimizer-state floats (log x)."""
    return bench.loss_vs_state(results)
