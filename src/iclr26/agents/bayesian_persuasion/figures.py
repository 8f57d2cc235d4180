"""Figures of the BP-LLM reproduction, drawn from stored per-seed results.

Paper: "Towards Strategic Persuasion with Language Models" (Cheng, You; ICLR 2026, arXiv 2509.22989). Each
function takes the per-seed results of one budget and returns a matplotlib Figure (built without pyplot); its
docstring's first line is its caption.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import grouped_bars, legend, metric_values, new_figure, note, seed_band

__all__ = ["envelopes", "gain_bars", "gain_curves", "per_game_gains"]


def gain_bars(results: Sequence[Any]) -> Figure:
    """Normalised gain G (0: no information, 1: LP optimum) of each sender, mean over seeds with per-seed dots."""
    fig, ax = new_figure(width=7.5, height=3.8)
    senders = ["no disclosure", "random scheme", "full disclosure", "per-episode RL", "commitment RL"]
    keys = {
        "Bayesian": ["none_G", "random_G", "full_G", "pe_G", "rl_G"],
        "PartialUpdater": ["none_G", "partial_random_G", "partial_full_G", None, "partial_rl_G"],
    }
    series = {
        rec: [metric_values(results, k, required=False) if k else np.array([]) for k in names]
        for rec, names in keys.items()
    }
    grouped_bars(ax, senders, series, dots=True, tick_kw={"fontsize": 8})
    ax.axhline(1.0, color="k", ls="--", lw=1, label="LP optimum")
    ax.set_ylabel("G = (V - V_0) / (V* - V_0)")
    ax.set_title("random games, mean over games per seed")
    legend(ax, fontsize=8)
    return fig


def gain_curves(results: Sequence[Any]) -> Figure:
    """Mean G of the learned scheme along training, per receiver and mode (band: min-max over seeds)."""
    fig, (left, right) = new_figure(ncols=2, width=10, height=3.8)
    for name, label in (
        ("G_bayes", "commitment, Bayesian"),
        ("G_partial", "commitment, PartialUpdater(0.6)"),
        ("G_per_episode", "per-episode control, Bayesian"),
    ):
        if any(name in r.curves for r in results):
            seed_band(left, results, name, label=label)
    left.set_title("random games")
    for name, label in (("G_prosecutor_tabular", "tabular"), ("G_prosecutor_mlp", "MLP")):
        if any(name in r.curves for r in results):
            seed_band(right, results, name, label=label)
    right.set_title("prosecutor game (Bayesian judge)")
    for ax in (left, right):
        ax.axhline(1.0, color="k", ls="--", lw=1)
        ax.set_xlabel("update")
        ax.set_ylabel("G")
        legend(ax, fontsize=8)
    return fig


def per_game_gains(results: Sequence[Any]) -> Figure:
    """Per game: the RL sender's G against full disclosure's (left) and its TV to the LP optimum (right)."""
    fig, (left, right) = new_figure(ncols=2, width=10, height=3.8)
    rows = [g for r in results for g in r.artifacts.get("games", [])[1:]]
    if not rows:
        note(left, "no games stored")
        note(right, "no games stored")
        return fig
    full = np.array([g["full_G"] for g in rows], dtype=float)
    rl = np.array([g["rl_G"] for g in rows], dtype=float)
    kinds = np.array([g["n_states"] for g in rows])
    for k, marker in zip(sorted(set(kinds.tolist())), "os^vD"):
        sel = kinds == k
        left.scatter(full[sel], rl[sel], s=14, marker=marker, label=f"|Omega| = {k}")
    lo = min(0.0, float(np.nanmin(full)))
    left.plot([lo, 1], [lo, 1], "k:", lw=1, label="RL = full disclosure")
    left.set_xlabel("G of full disclosure")
    left.set_ylabel("G of the RL sender")
    legend(left, fontsize=8)
    tv = np.array([g["tv"] for g in rows], dtype=float)
    unique = np.array([bool(g["unique"]) for g in rows])
    bins = np.linspace(0, max(0.3, float(tv.max()) if tv.size else 0.3), 31)
    right.hist(tv[unique], bins=bins, alpha=0.7, label=f"unique LP optimum ({int(unique.sum())})")
    if (~unique).any():
        right.hist(tv[~unique], bins=bins, alpha=0.5, label=f"not unique ({int((~unique).sum())})")
    cap = float(results[0].artifacts.get("tv_max", 0.1))
    right.axvline(cap, color="k", ls="--", lw=1, label=f"TV = {cap:g}")
    right.set_xlabel("TV(learned, LP optimum), induced (state, action) distributions")
    right.set_ylabel("games")
    legend(right, fontsize=8)
    return fig


def envelopes(results: Sequence[Any]) -> Figure:
    """Two-state games of the first seed: v_hat (grey), its concave envelope (blue), the learned posteriors (red, on the envelope, size ~ probability)."""
    stored = results[0].artifacts.get("envelopes", []) if results else []
    if not stored:
        fig, ax = new_figure()
        note(ax, "no two-state games stored")
        return fig
    fig, axes = new_figure(ncols=len(stored), width=3.6 * len(stored), height=3.2, flat=True)
    for ax, e in zip(axes, stored):
        ax.plot(e["grid"], e["v_hat"], color="0.6", lw=1, label="v_hat")
        ax.plot(e["hull_x"], e["hull_y"], color="tab:blue", lw=1.5, label="cav v_hat")
        p = np.asarray(e["learned_p"], dtype=float)
        mass = np.asarray(e["learned_mass"], dtype=float)
        y = np.interp(p, e["hull_x"], e["hull_y"])
        ax.scatter(p, y, s=20 + 200 * mass, color="tab:red", zorder=3, label="learned posteriors")
        ax.axvline(e["prior"], color="k", ls=":", lw=1, label="prior")
        ax.set_title(f"{e['name']}: V* = {e['value']:.3f}", fontsize=9)
        ax.set_xlabel("belief in state 1")
    axes[0].set_ylabel("sender value")
    legend(axes[0], fontsize=7)
    return fig
