"""Figures of the ENS reproduction (OpenReview iZ7i2y1YxO); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import legend, metric_mean, metric_values, new_figure, seed_band, seed_dots
from iclr26.harness.store import SeedResult

__all__ = ["green_rate_vs_n", "nll_histogram", "robustness_curves", "tpr_vs_tokens", "z_growth"]


def tpr_vs_tokens(results: Sequence[SeedResult]) -> Figure:
    """TPR at 1% FPR (z > 2.326) against the number of generated tokens, for ENS_n with n keys (mean over seeds)."""
    art = results[0].artifacts
    fig, ax = new_figure(width=5, height=3.4)
    for base in art["bases"]:
        for n in art["n_values"]:
            seed_band(ax, results, f"tpr_{base}_n{n}", interval=None, label=f"{base} n={n}")
    ax.set(xlabel="generated tokens T", ylabel="TPR at 1% FPR", ylim=(-0.02, 1.02))
    legend(ax)
    return fig


def z_growth(results: Sequence[SeedResult]) -> Figure:
    """Mean detection z-score against the number of generated tokens, for each number of keys n."""
    art = results[0].artifacts
    fig, ax = new_figure(width=5, height=3.4)
    for base in art["bases"]:
        for n in art["n_values"]:
            seed_band(ax, results, f"z_{base}_n{n}", interval=None, label=f"{base} n={n}")
    ax.axhline(2.326, color="gray", ls="--", lw=0.8)
    ax.set(xlabel="generated tokens T", ylabel="mean z")
    legend(ax)
    return fig


def robustness_curves(results: Sequence[SeedResult]) -> Figure:
    """TPR at 1% FPR on full texts after each attack against its strength eps (0 = clean), n = 1 vs n = 3."""
    art = results[0].artifacts
    base = art["bases"][0]
    fig, ax = new_figure(width=5.5, height=3.4)
    eps = [0.0, *art["attack_eps"]]
    for n in art["attack_ns"]:
        for attack, style in zip(art["attacks"], ("-o", "--s", ":^")):
            keys = [f"tpr_{base}_n{n}_clean"] + [
                f"tpr_{base}_n{n}_{attack}_eps{e:g}" for e in art["attack_eps"]
            ]
            ax.plot(eps, [metric_mean(results, k) for k in keys], style, label=f"n={n} {attack}")
    ax.set(xlabel="attack strength eps", ylabel="TPR at 1% FPR", ylim=(-0.02, 1.02))
    legend(ax)
    return fig


def nll_histogram(results: Sequence[SeedResult]) -> Figure:
    """Per-text mean NLL of generated tokens: unwatermarked vs ENS with the most keys (all seeds pooled)."""
    n_hi = results[0].artifacts["n_hi"]
    base = results[0].artifacts["bases"][0]
    plain = np.concatenate([r.artifacts["nll_plain"] for r in results])
    ens = np.concatenate([r.artifacts[f"nll_{base}_n{n_hi}"] for r in results])
    fig, ax = new_figure(width=5, height=3.4)
    bins = np.linspace(min(plain.min(), ens.min()), max(plain.max(), ens.max()), 25)
    ax.hist(plain, bins=bins, alpha=0.5, label=f"unwatermarked (mean {plain.mean():.3f})")
    ax.hist(ens, bins=bins, alpha=0.5, label=f"ENS n={n_hi} (mean {ens.mean():.3f})")
    ax.set(xlabel="mean NLL per token (nats)", ylabel="texts")
    legend(ax)
    return fig


def green_rate_vs_n(results: Sequence[SeedResult]) -> Figure:
    """Per-key green rate of watermarked text against the number of keys n (0.5 = no signal); dots are seeds."""
    art = results[0].artifacts
    base = art["bases"][0]
    fig, ax = new_figure()
    ns = art["n_values"]
    rates = [metric_values(results, f"green_rate_{base}_n{n}") for n in ns]
    seed_dots(ax, ns, rates, color="tab:blue", alpha=0.5, size=36)
    ax.plot(ns, [v.mean() for v in rates], "-", color="k")
    ax.axhline(0.5, color="gray", ls="--", lw=0.8)
    ax.set(xlabel="number of keys n", ylabel="per-key green rate")
    return fig
