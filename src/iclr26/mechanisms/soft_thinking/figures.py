"""Figures of the soft-thinking reproduction; each takes the stored per-seed results."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure

__all__ = [
    "accuracy_per_mode",
    "dominance_vs_confidence",
    "js_histograms",
    "layer_overlap_curves",
    "tau_beta_sweeps",
]

_MODES = ("greedy", "soft", "sample", "dirichlet", "gumbel")


def _get(r: Any, key: str) -> Any:
    return r[key] if isinstance(r, dict) else getattr(r, key)


def _metrics(results: Sequence[Any]) -> list[dict]:
    return [_get(r, "metrics") for r in results]


def _curves(results: Sequence[Any]) -> list[dict]:
    return [_get(r, "curves") for r in results]


def _artifacts(results: Sequence[Any]) -> list[dict]:
    return [_get(r, "artifacts") for r in results]


def accuracy_per_mode(results: Sequence[Any]) -> Figure:
    """Pass@1 and pass@k per decoding mode (mean over seeds, dots = seeds)."""
    fig = Figure(figsize=(7, 3.5))
    ax = fig.add_subplot()
    ms = _metrics(results)
    draws = int(_artifacts(results)[0].get("draws", 8))
    x = np.arange(len(_MODES))
    for off, (key, label) in enumerate((("acc_{}", "pass@1"), (f"pass{draws}_{{}}", f"pass@{draws}"))):
        vals = np.array([[m.get(key.format(mode), np.nan) for mode in _MODES] for m in ms])
        ax.bar(x + (off - 0.5) * 0.38, np.nanmean(vals, 0), width=0.38, label=label, alpha=0.8)
        for row in vals:
            ax.plot(x + (off - 0.5) * 0.38, row, "k.", ms=3)
    ax.set_xticks(x, _MODES)
    ax.set_ylabel("accuracy (DAG + mod problems)")
    ax.legend()
    return fig


def js_histograms(results: Sequence[Any]) -> Figure:
    """Histograms of JS(soft, top-1) and JS(soft, top-2) at thinking steps with p_top1 < 0.8 (all seeds)."""
    fig = Figure(figsize=(6, 3.5))
    ax = fig.add_subplot()
    arts = _artifacts(results)
    bins = np.linspace(0, np.log(2), 25)
    for key, label in (("js_top1", "JS(soft, top-1)"), ("js_top2", "JS(soft, top-2)")):
        vals = np.concatenate([np.asarray(a.get(key, []), dtype=float) for a in arts] + [np.zeros(0)])
        ax.hist(vals, bins=bins, alpha=0.6, label=f"{label} (n={vals.size})")
    ax.axvline(np.log(2), color="k", ls=":", lw=1)
    ax.set_xlabel("Jensen-Shannon divergence (nats; max ln 2)")
    ax.set_ylabel("thinking steps")
    ax.legend()
    return fig


def dominance_vs_confidence(results: Sequence[Any]) -> Figure:
    """Argmax agreement of the soft-input and top-1-only next steps, by the top-1 weight p_top1."""
    fig = Figure(figsize=(6, 3.5))
    ax = fig.add_subplot()
    for i, a in enumerate(_artifacts(results)):
        edges = np.asarray(a["p_bins"], dtype=float)
        mids = 0.5 * (edges[:-1] + edges[1:])
        ax.plot(mids, np.asarray(a["agree_by_p"], dtype=float), "o-", label=f"seed {i}")
    ax.set_xlabel("p_top1 of the soft token")
    ax.set_ylabel("agreement with top-1-only input")
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=7)
    return fig


def tau_beta_sweeps(results: Sequence[Any]) -> Figure:
    """DAG pass@1 of Gumbel soft thinking vs tau and of Dirichlet soft thinking vs beta."""
    fig = Figure(figsize=(8, 3.2))
    for j, name in enumerate(("tau", "beta")):
        ax = fig.add_subplot(1, 2, j + 1)
        for i, c in enumerate(_curves(results)):
            cv = c.get(f"dag_acc_vs_{name}")
            if cv:
                ax.plot(cv["x"], cv["y"], "o-", label=f"seed {i}")
        ax.set_xlabel(name)
        ax.set_ylabel("DAG pass@1")
        ax.legend(fontsize=7)
    return fig


def layer_overlap_curves(results: Sequence[Any]) -> Figure:
    """Logit-lens overlap per layer for s = 0.6 e_a + 0.4 e_b: top-5 of a-only / b-only inside the soft top-10."""
    fig = Figure(figsize=(6, 3.5))
    ax = fig.add_subplot()
    for key, style, label in (
        ("lens_overlap_top1", "-", "a (weight 0.6)"),
        ("lens_overlap_top2", "--", "b (0.4)"),
    ):
        ys = [c[key]["y"] for c in _curves(results) if key in c]
        if ys:
            x = _curves(results)[0][key]["x"]
            ax.plot(x, np.mean(ys, 0), style, marker="o", label=label)
    ax.set_xlabel("layer (0 = embedding)")
    ax.set_ylabel("overlap count (of 5)")
    ax.set_ylim(0, 5.2)
    ax.legend()
    return fig
