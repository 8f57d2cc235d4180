"""Figures of the FLy reproduction."""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.figure import Figure

from iclr26.lab.speculative_bench import tau_accuracy_figure

__all__ = ["tau_and_accuracy"]


def tau_and_accuracy(results: Sequence) -> Figure:
    """Acceptance length tau and final-answer accuracy of target greedy, exact SD and FLy (per seed and mean)."""
    return tau_accuracy_figure(
        results,
        tau=[("tau_sd", "exact SD"), ("tau_fly", "FLy")],
        accuracy=[("acc_target", "target"), ("acc_sd", "exact SD"), ("acc_fly", "FLy")],
    )
