"""Figures of the FLy reproduction."""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.figure import Figure

from iclr26.harness.figures import metric_mean, new_figure

__all__ = ["tau_and_accuracy"]


def tau_and_accuracy(results: Sequence) -> Figure:
    """Acceptance length tau and final-answer accuracy of target greedy, exact SD and FLy (mean over seeds)."""
    fig, (ax1, ax2) = new_figure(ncols=2, width=8, height=3.2)
    taus = [metric_mean(results, k) for k in ("tau_sd", "tau_fly")]
    ax1.bar(["exact SD", "FLy"], taus, color=["tab:gray", "tab:blue"])
    ax1.axhline(1.0, color="k", lw=0.8, ls="--")
    ax1.set_ylabel("tokens per target forward (tau)")
    accs = [metric_mean(results, k) for k in ("acc_target", "acc_sd", "acc_fly")]
    ax2.bar(["target", "exact SD", "FLy"], accs, color=["k", "tab:gray", "tab:blue"])
    ax2.set_ylabel("final-answer accuracy")
    return fig
