"""Figures of the ICL causal-structure reproduction; each works on a single seed."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import legend, new_figure
from iclr26.harness.store import SeedResult

__all__ = ["attention_vs_posterior", "kl_by_position", "lpa_curve", "rpe_weights", "wkq_alignment"]


def _first(results: Sequence[SeedResult]) -> SeedResult:
    if not results:
        raise ValueError("results is empty: need at least one seed")
    return results[0]


def lpa_curve(results: Sequence[SeedResult]) -> Figure:
    """Parent-selection loss L_pa of the transformer's layer-2 attention during training, with the BMA value."""
    fig, ax = new_figure(width=5.5, height=3.6)
    for i, res in enumerate(results):
        cv = res.curves.get("lpa_tf")
        if cv is not None:
            ax.plot(cv["x"], cv["y"], color=f"C{i}", label=f"TF seed {res.seed}")
        bma = res.curves.get("lpa_bma")
        if bma is not None:
            ax.plot(bma["x"], bma["y"], color=f"C{i}", ls="--", lw=1, label=f"BMA seed {res.seed}")
    ax.set_xlabel("training step")
    ax.set_ylabel("L_pa = mean -log A2(pa(h)) (nats)")
    legend(ax)
    return fig


def attention_vs_posterior(results: Sequence[SeedResult]) -> Figure:
    """Layer-2 attention of the query row next to the exact BMA posterior over parents; crosses: true parents."""
    ex = _first(results).artifacts["example"]
    attn, post, parents = np.array(ex["attention"]), np.array(ex["posterior"]), ex["parents"]
    attn[0] = 0.0
    fig, axes = new_figure(ncols=2, width=8.5, height=3.8)
    for ax, mat, title in ((axes[0], attn, "TF layer-2 attention"), (axes[1], post, "BMA posterior w_h(h')")):
        im = ax.imshow(mat, vmin=0, vmax=1, cmap="viridis")
        ax.plot(parents[1:], range(1, len(parents)), "rx", ms=7, label="true parent")
        ax.set_title(title)
        ax.set_xlabel("candidate parent h'")
        ax.set_ylabel("query position h")
    legend(axes[1], loc="upper right")
    fig.colorbar(im, ax=axes, shrink=0.8)
    return fig


def rpe_weights(results: Sequence[SeedResult]) -> Figure:
    """Learned layer-1 RPE weights per head: across-example offset w_L[r - r'] and within-row offset w_H[h - h']."""
    art = _first(results).artifacts
    w_l, w_h = np.array(art["w_L"]), np.array(art["w_H"])
    H = (w_h.shape[1] + 1) // 2
    fig, axes = new_figure(ncols=2, width=9, height=3.6)
    im0 = axes[0].imshow(w_l, aspect="auto", cmap="coolwarm")
    axes[0].set_xlabel("example offset r - r'")
    axes[0].set_ylabel("layer-1 head")
    axes[0].set_title("w_L")
    axes[0].set_yticks(range(w_l.shape[0]))
    axes[1].set_yticks(range(w_h.shape[0]))
    fig.colorbar(im0, ax=axes[0])
    im1 = axes[1].imshow(
        w_h, aspect="auto", cmap="coolwarm", extent=(-H + 0.5, H - 0.5, w_h.shape[0] - 0.5, -0.5)
    )
    axes[1].set_xlabel("position offset h - h'")
    axes[1].set_title("w_H")
    fig.colorbar(im1, ax=axes[1])
    return fig


def wkq_alignment(results: Sequence[SeedResult]) -> Figure:
    """Column-wise softmax of the learned layer-2 block W_tf next to that of log pi (equal up to column shifts)."""
    art = _first(results).artifacts
    mats = [np.array(art["softmax_col_w_tf"]), np.array(art["softmax_col_log_pi"])]
    fig, axes = new_figure(ncols=2, width=7.5, height=3.4)
    for ax, mat, title in zip(axes, mats, ("softmax_col(W_tf)", "softmax_col(log pi)")):
        im = ax.imshow(mat, vmin=0, vmax=1, cmap="magma")
        ax.set_title(title)
        ax.set_xlabel("child value b")
        ax.set_ylabel("parent value a")
    fig.colorbar(im, ax=axes, shrink=0.8)
    return fig


def kl_by_position(results: Sequence[SeedResult]) -> Figure:
    """KL(BMA || predictor) by query position, mean over evaluation contexts and seeds."""
    fig, ax = new_figure(width=5.5, height=3.6)
    names = list(_first(results).artifacts["kl_by_position"])
    for i, name in enumerate(n for n in names if n != "bma"):
        ys = np.mean([r.artifacts["kl_by_position"][name] for r in results], axis=0)
        ax.plot(range(1, len(ys) + 1), ys, marker="o", ms=3, color=f"C{i}", label=name)
    ax.set_yscale("symlog", linthresh=1e-3)
    ax.set_xlabel("query position h (0-based)")
    ax.set_ylabel("KL(BMA || predictor) (nats)")
    legend(ax)
    return fig
