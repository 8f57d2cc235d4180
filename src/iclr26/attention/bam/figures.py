"""Figures of the BAM reproduction (arXiv 2505.22842); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from matplotlib.figure import Figure

from iclr26.attention.bam.prior import alibi_slopes, ggd_bias
from iclr26.harness.figures import legend, metric_mean, new_figure
from iclr26.harness.store import SeedResult

__all__ = ["accuracy_vs_length", "learned_prior", "loss_vs_length", "passkey_heatmap"]


def _schemes(results: Sequence[SeedResult]) -> list[str]:
    return list(results[0].artifacts["schemes"])


def _key(name: str) -> str:
    return name.replace("-", "_")


def passkey_heatmap(results: Sequence[SeedResult]) -> Figure:
    """Passkey exact-match accuracy by context length (rows, x training length) and needle depth (columns)."""
    schemes = _schemes(results)
    mults = [str(m) for m in results[0].artifacts["eval_mults"]]
    fig, axes = new_figure(ncols=len(schemes), width=3.2 * len(schemes), height=2.8, flat=True)
    for ax, s in zip(axes, schemes):
        grid = np.mean([[r.artifacts["schemes"][s]["by_depth"][m] for m in mults] for r in results], axis=0)
        im = ax.imshow(grid, vmin=0, vmax=1, cmap="viridis", aspect="auto", origin="lower")
        ax.set(
            title=s,
            xlabel="needle depth bin",
            ylabel="length (x T)",
            yticks=range(len(mults)),
            yticklabels=mults,
        )
    fig.colorbar(im, ax=list(axes), shrink=0.8, label="accuracy")
    return fig


def accuracy_vs_length(results: Sequence[SeedResult]) -> Figure:
    """Passkey accuracy against evaluation length (mean over seeds; log x)."""
    mults = results[0].artifacts["eval_mults"]
    train_len = results[0].artifacts["train_len"]
    fig, ax = new_figure(width=5)
    for s in _schemes(results):
        y = [metric_mean(results, f"{_key(s)}_acc_x{m}") for m in mults]
        ax.semilogx([m * train_len for m in mults], y, "o-", label=s, lw=2.5 if s.startswith("bam") else 1)
    ax.set(xlabel="context length (tokens)", ylabel="passkey exact match", ylim=(-0.03, 1.03))
    legend(ax)
    return fig


def learned_prior(results: Sequence[SeedResult]) -> Figure:
    """Learned GGD prior g_h(delta) per head (first seed) against ALiBi's -m_h |delta| at init."""
    art = results[0].artifacts
    length = max(art["eval_mults"]) * art["train_len"]
    delta = -np.arange(length, dtype=float)
    fig, ax = new_figure(width=5.5, height=3.4)
    priors = {s: a for s, a in art["schemes"].items() if "theta_alpha" in a}
    for s, a in priors.items():
        for h, (alpha, beta) in enumerate(zip(a["theta_alpha"], a["beta"])):
            g = ggd_bias(torch.tensor(delta), torch.tensor(alpha), torch.tensor(beta)).numpy()
            ax.plot(-delta, g, label=f"{s} h{h}: beta={beta:.2f}, scale={np.exp(alpha):.2g}")
    n_heads = len(next(iter(priors.values()))["beta"]) if priors else 4
    for h, m in enumerate(alibi_slopes(n_heads).tolist()):
        ax.plot(-delta, -m * np.abs(delta), "k:", lw=0.8, label="ALiBi" if h == 0 else None)
    ax.set(xscale="symlog", xlabel="distance |delta|", ylabel="log-prior g(delta)")
    ax.set_ylim(max(ax.get_ylim()[0], -50), 1)
    legend(ax, fontsize=6)
    return fig


def loss_vs_length(results: Sequence[SeedResult]) -> Figure:
    """Held-out filler next-token loss against evaluation length (mean over seeds)."""
    mults = results[0].artifacts["eval_mults"]
    train_len = results[0].artifacts["train_len"]
    fig, ax = new_figure(width=5)
    for s in _schemes(results):
        y = [metric_mean(results, f"{_key(s)}_loss_x{m}") for m in mults]
        ax.semilogx([m * train_len for m in mults], y, "o-", label=s)
    ax.set(xlabel="context length (tokens)", ylabel="loss (nats/token)")
    legend(ax)
    return fig
