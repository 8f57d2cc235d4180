"""Figures of the ENS reproduction (OpenReview iZ7i2y1YxO); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.store import SeedResult

__all__ = ["green_rate_vs_n", "nll_histogram", "robustness_curves", "tpr_vs_tokens", "z_growth"]


def _mean_curve(results: Sequence[SeedResult], key: str) -> tuple[np.ndarray, np.ndarray]:
    xs = np.asarray(results[0].curves[key]["x"])
    return xs, np.mean([r.curves[key]["y"] for r in results], axis=0)


def tpr_vs_tokens(results: Sequence[SeedResult]) -> Figure:
    """TPR at 1% FPR (z > 2.326) against the number of generated tokens, for ENS_n with n keys (mean over seeds)."""
    art = results[0].artifacts
    fig = Figure(figsize=(5, 3.4), layout="constrained")
    ax = fig.subplots()
    for base in art["bases"]:
        for n in art["n_values"]:
            ax.plot(*_mean_curve(results, f"tpr_{base}_n{n}"), label=f"{base} n={n}")
    ax.set(xlabel="generated tokens T", ylabel="TPR at 1% FPR", ylim=(-0.02, 1.02))
    ax.legend(fontsize=7)
    return fig


def z_growth(results: Sequence[SeedResult]) -> Figure:
    """Mean detection z-score against the number of generated tokens, for each number of keys n."""
    art = results[0].artifacts
    fig = Figure(figsize=(5, 3.4), layout="constrained")
    ax = fig.subplots()
    for base in art["bases"]:
        for n in art["n_values"]:
            ax.plot(*_mean_curve(results, f"z_{base}_n{n}"), label=f"{base} n={n}")
    ax.axhline(2.326, color="gray", ls="--", lw=0.8)
    ax.set(xlabel="generated tokens T", ylabel="mean z")
    ax.legend(fontsize=7)
    return fig


def robustness_curves(results: Sequence[SeedResult]) -> Figure:
    """TPR at 1% FPR on full texts after each attack against its strength eps (0 = clean), n = 1 vs n = 3."""
    art = results[0].artifacts
    base = art["bases"][0]
    fig = Figure(figsize=(5.5, 3.4), layout="constrained")
    ax = fig.subplots()
    eps = [0.0, *art["attack_eps"]]
    for n in art["attack_ns"]:
        for attack, style in zip(art["attacks"], ("-o", "--s", ":^")):
            keys = [f"tpr_{base}_n{n}_clean"] + [
                f"tpr_{base}_n{n}_{attack}_eps{e:g}" for e in art["attack_eps"]
            ]
            ax.plot(
                eps, [np.mean([r.metrics[k] for r in results]) for k in keys], style, label=f"n={n} {attack}"
            )
    ax.set(xlabel="attack strength eps", ylabel="TPR at 1% FPR", ylim=(-0.02, 1.02))
    ax.legend(fontsize=7)
    return fig


def nll_histogram(results: Sequence[SeedResult]) -> Figure:
    """Per-text mean NLL of generated tokens: unwatermarked vs ENS with the most keys (all seeds pooled)."""
    n_hi = results[0].artifacts["n_hi"]
    base = results[0].artifacts["bases"][0]
    plain = np.concatenate([r.artifacts["nll_plain"] for r in results])
    ens = np.concatenate([r.artifacts[f"nll_{base}_n{n_hi}"] for r in results])
    fig = Figure(figsize=(5, 3.4), layout="constrained")
    ax = fig.subplots()
    bins = np.linspace(min(plain.min(), ens.min()), max(plain.max(), ens.max()), 25)
    ax.hist(plain, bins=bins, alpha=0.5, label=f"unwatermarked (mean {plain.mean():.3f})")
    ax.hist(ens, bins=bins, alpha=0.5, label=f"ENS n={n_hi} (mean {ens.mean():.3f})")
    ax.set(xlabel="mean NLL per token (nats)", ylabel="texts")
    ax.legend(fontsize=7)
    return fig


def green_rate_vs_n(results: Sequence[SeedResult]) -> Figure:
    """Per-key green rate of watermarked text against the number of keys n (0.5 = no signal); dots are seeds."""
    art = results[0].artifacts
    base = art["bases"][0]
    fig = Figure(figsize=(4.5, 3.2), layout="constrained")
    ax = fig.subplots()
    ns = art["n_values"]
    for r in results:
        ax.plot(ns, [r.metrics[f"green_rate_{base}_n{n}"] for n in ns], "o", color="tab:blue", alpha=0.5)
    ax.plot(
        ns, [np.mean([r.metrics[f"green_rate_{base}_n{n}"] for r in results]) for n in ns], "-", color="k"
    )
    ax.axhline(0.5, color="gray", ls="--", lw=0.8)
    ax.set(xlabel="number of keys n", ylabel="per-key green rate")
    return fig
