"""Figures of the RECALL reproduction, drawn from stored per-seed results.

Paper: "Image Can Bring Your Memory Back: A Novel Multi-Modal Guided Attack against Image Generation Model
Unlearning" (Liu, Li, Zhang, Ng; ICLR 2026, arXiv 2507.07139).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import legend, new_figure

__all__ = ["asr_by_method", "asr_vs_budget", "sample_grid"]

_LABELS = {
    "recall": "RECALL",
    "recall_desc": "RECALL, ascent=False",
    "recall_noinj": "RECALL, no injection",
    "reference": "reference as is",
    "random": "random image prompt",
    "text": "text-embedding attack",
}


def asr_by_method(results: Sequence[Any]) -> Figure:
    """Attack success rate per unlearning method and attack (mean over concepts and seeds)."""
    fig, ax = new_figure(width=7, height=4)
    rows = [r.artifacts.get("cells", {}) for r in results]
    methods = results[0].artifacts.get("methods", []) if results else []
    width = 0.8 / len(_LABELS)
    for j, (a, label) in enumerate(_LABELS.items()):
        ys = [
            np.mean([v for c in rows for k, v in c.items() if k.startswith(f"{a}/{m}/")] or [np.nan])
            for m in methods
        ]
        ax.bar(np.arange(len(methods)) + j * width, ys, width, label=label)
    ax.set_xticks(np.arange(len(methods)) + 0.4 - width / 2, methods)
    ax.set_ylabel("ASR (judge sees the erased digit)")
    ax.set_ylim(0, 1)
    legend(ax, fontsize=7)
    return fig


def asr_vs_budget(results: Sequence[Any]) -> Figure:
    """RECALL's ASR against the number of optimisation timesteps allowed (0 = the reference as is), per seed."""
    fig, ax = new_figure(width=6, height=3.6)
    for i, r in enumerate(results):
        b = r.artifacts.get("asr_vs_budget")
        if b:
            ax.plot(np.arange(len(b)), b, "o-", ms=3, label=f"seed {i}")
    ax.set_xlabel("timesteps of optimisation allowed")
    ax.set_ylabel("ASR (init successes included)")
    ax.set_ylim(0, 1)
    legend(ax, fontsize=8)
    return fig


def sample_grid(results: Sequence[Any]) -> Figure:
    """First cell of seed 0: reference, adversarial image prompt, RECALL output and text-attack output per prompt."""
    g = results[0].artifacts.get("grid", {}) if results else {}
    cols = ("reference", "adversarial", "output", "text_output")
    n = max(len(g.get("reference", [])), 1)
    fig, axes = new_figure(ncols=len(cols), nrows=n, width=6, height=1.6 * n, squeeze=False)
    for i in range(len(g.get("reference", []))):
        for j, c in enumerate(cols):
            ax = axes[i][j]
            ax.imshow(np.clip(np.array(g[c][i]).reshape(8, 8), -1, 1), cmap="gray_r", vmin=-1, vmax=1)
            ax.set_xticks([])
            ax.set_yticks([])
            if i == 0:
                ax.set_title(c.replace("_", " "), fontsize=8)
            if j == 0:
                ax.set_ylabel(g["prompts"][i], fontsize=8)
    if g:
        fig.suptitle(f"concept {g['concept']}, unlearning {g['method']}", fontsize=9)
    return fig
