"""Figures of the offline C3B reproduction: accuracy by level x language, by cultures per image, by culture, and
one example strip with its questions.

Each function takes the per-seed results of one budget and returns a matplotlib Figure (no pyplot); its
docstring's first line is its caption.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from iclr26.generative.c3b.comics import ComicGenerator, Scene
from iclr26.generative.c3b.cultures import CULTURES, LANGUAGES
from iclr26.harness.figures import grouped_bars, legend, metric_values, new_figure, note, seed_errorbar

__all__ = ["by_culture", "by_level_language", "by_n_cultures", "example_strip"]


def _vals(results: Sequence[Any], name: str, scale: float = 1.0) -> np.ndarray:
    return metric_values(results, name, required=False) * scale


def _chance(ax) -> None:
    ax.axhline(0.25, color="0.4", ls="--", lw=1, label="chance (1/4)")


def by_level_language(results: Sequence[Any]) -> Figure:
    """Trained backend per language: L1 and L2 accuracy and L3 chrF / 100 (bars: mean over seeds, dots: seeds)."""
    fig, ax = new_figure(width=7, height=3.6)
    series = {
        "L1 Extraction": [_vals(results, f"acc_l1_{lang}") for lang in LANGUAGES],
        "L2 Conflict": [_vals(results, f"acc_l2_{lang}") for lang in LANGUAGES],
        "L3 Generation (chrF/100)": [_vals(results, f"chrf_l3_{lang}", 0.01) for lang in LANGUAGES],
    }
    grouped_bars(ax, list(LANGUAGES), series, dots=True, colors=["C0", "C3", "C2"])
    _chance(ax)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("score on the test split")
    legend(ax, fontsize=7, loc="upper right")
    return fig


def by_n_cultures(results: Sequence[Any]) -> Figure:
    """Trained backend vs cultures per strip: L1 and L2 accuracy (mean and 95% t interval over seeds)."""
    fig, ax = new_figure(width=5, height=3.6)
    x = np.array([1, 2, 3])
    for lv, color in ((1, "C0"), (2, "C3")):
        groups = [_vals(results, f"acc_l{lv}_c{n}") for n in x]
        seed_errorbar(ax, x + (lv - 1.5) * 0.06, groups, interval="t", fmt="-o", color=color, label=f"L{lv}")
    _chance(ax)
    ax.set_xticks(x, ["1 culture", "2 cultures", "3 cultures"])
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("accuracy")
    legend(ax, fontsize=7)
    return fig


def by_culture(results: Sequence[Any]) -> Figure:
    """Trained backend per culture: L1 by the dish's culture, L2 by the host culture (dots: seeds)."""
    fig, ax = new_figure(width=8, height=3.6)
    keys = [c.key for c in CULTURES]
    series = {
        "L1 (dish culture)": [_vals(results, f"acc_l1_{k}") for k in keys],
        "L2 (host culture)": [_vals(results, f"acc_l2_{k}") for k in keys],
    }
    grouped_bars(ax, [f"{c.key} {c.name}" for c in CULTURES], series, dots=True, colors=["C0", "C3"],
                 tick_kw={"rotation": 30, "fontsize": 7})  # fmt: skip
    _chance(ax)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("accuracy")
    legend(ax, fontsize=7)
    return fig


def example_strip(results: Sequence[Any]) -> Figure:
    """One test strip (first seed) with its three questions, the answers and the trained backend's replies."""
    fig, (top, bottom) = new_figure(nrows=2, width=9, height=5.2, height_ratios=[2, 1.3])
    ex = results[0].artifacts.get("example") if results else None
    if not ex:
        note(top, "no example stored")
        return fig
    s = ex["scene"]
    scene = Scene(s["host"], s["dish"], tuple(s["characters"]), s["guest"], tuple(s["gestures"]),
                  tuple(s["flowers"]), int(s["n_cultures"]))  # fmt: skip
    top.imshow(ComicGenerator(panel_size=int(ex["panel_size"])).render(scene))
    top.axis("off")
    top.set_title(f"host {scene.host}, dish {scene.dish}, {scene.n_cultures} culture(s)", fontsize=8)
    lines = []
    for it in ex["items"]:
        opts = f"  [{' / '.join(it['choices'])}]" if it["choices"] else ""
        lines.append(f"Q: {it['question']}{opts}\n   answer: {it['answer']}   |   trained: {it['reply']}")
    bottom.axis("off")
    bottom.text(0, 1, "\n".join(lines), va="top", ha="left", fontsize=7, family="DejaVu Sans")
    return fig
