"""Figures of the FLy reproduction."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

__all__ = ["tau_and_accuracy"]


def tau_and_accuracy(results: Sequence) -> Figure:
    """Acceptance length tau and final-answer accuracy of target greedy, exact SD and FLy (mean over seeds)."""
    fig = Figure(figsize=(8, 3.2))
    ax1, ax2 = fig.subplots(1, 2)
    rows = [r.metrics for r in results]
    taus = [np.mean([m["tau_sd"] for m in rows]), np.mean([m["tau_fly"] for m in rows])]
    ax1.bar(["exact SD", "FLy"], taus, color=["tab:gray", "tab:blue"])
    ax1.axhline(1.0, color="k", lw=0.8, ls="--")
    ax1.set_ylabel("tokens per target forward (tau)")
    accs = [np.mean([m[k] for m in rows]) for k in ("acc_target", "acc_sd", "acc_fly")]
    ax2.bar(["target", "exact SD", "FLy"], accs, color=["k", "tab:gray", "tab:blue"])
    ax2.set_ylabel("final-answer accuracy")
    fig.tight_layout()
    return fig
