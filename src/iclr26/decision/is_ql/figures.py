"""Figures of the iS-QN reproduction: learning curves, normalised AUC bars, parameter counts."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import legend, new_figure

__all__ = ["auc_bars", "iqm", "learning_curves", "param_bars"]

_LABELS = {"dqn": "DQN", "tf": "TF-DQN", "is1": "iS-DQN K=1", "is4": "iS-DQN K=4"}


def iqm(x: np.ndarray, axis: int = 0) -> np.ndarray:
    """Interquartile mean along ``axis`` (mean of the middle 50% of values)."""
    x = np.sort(np.asarray(x, dtype=float), axis=axis)
    n = x.shape[axis]
    lo, hi = n // 4, n - n // 4
    return np.take(x, np.arange(lo, max(hi, lo + 1)), axis=axis).mean(axis=axis)


def _pooled(results: Sequence) -> tuple[dict, dict, list]:
    curves: dict = {}
    random: dict = {}
    x: list = []
    for r in results:
        art = r.artifacts
        x = art.get("x", x)
        for env, per in art.get("curves", {}).items():
            random.setdefault(env, []).append(art["random"][env])
            for m, ys in per.items():
                curves.setdefault(env, {}).setdefault(m, []).extend(ys)
    return curves, {e: float(np.mean(v)) for e, v in random.items()}, x


def learning_curves(results: Sequence) -> Figure:
    """Training-episode return (IQM over all replicates, 95% bootstrap band) per environment and method."""
    curves, _, x = _pooled(results)
    fig, axes = new_figure(ncols=max(len(curves), 1), width=5 * max(len(curves), 1), height=3.6, flat=True)
    rng = np.random.default_rng(0)
    for ax, (env, per) in zip(axes, curves.items()):
        for m, ys in per.items():
            y = np.asarray(ys, dtype=float)
            mid = iqm(y)
            boots = np.stack([iqm(y[rng.integers(0, len(y), len(y))]) for _ in range(200)])
            lo, hi = np.quantile(boots, [0.025, 0.975], axis=0)
            ax.plot(x, mid, label=_LABELS.get(m, m))
            ax.fill_between(x, lo, hi, alpha=0.2)
        ax.set_title(env)
        ax.set_xlabel("environment step")
        ax.set_ylabel("episode return (IQM)")
        legend(ax)
    return fig


def auc_bars(results: Sequence) -> Figure:
    """AUC normalised to DQN = 100% and random = 0% over the pooled replicates, with 95% bootstrap intervals."""
    curves, random, _ = _pooled(results)
    fig, axes = new_figure(ncols=max(len(curves), 1), width=5 * max(len(curves), 1), height=3.4, flat=True)
    rng = np.random.default_rng(0)
    for ax, (env, per) in zip(axes, curves.items()):
        aucs = {m: np.asarray(ys, dtype=float).mean(1) for m, ys in per.items()}
        scale = aucs["dqn"].mean() - random[env] if "dqn" in aucs else 1.0
        names = list(aucs)
        means, errs = [], []
        for m in names:
            norm = 100.0 * (aucs[m] - random[env]) / (scale if scale != 0 else 1.0)
            boots = [norm[rng.integers(0, len(norm), len(norm))].mean() for _ in range(1000)]
            lo, hi = np.quantile(boots, [0.025, 0.975])
            means.append(norm.mean())
            errs.append([norm.mean() - lo, hi - norm.mean()])
        ax.bar(range(len(names)), means, yerr=np.asarray(errs).T, capsize=4)
        ax.set_xticks(range(len(names)), [_LABELS.get(m, m) for m in names], fontsize=7)
        ax.axhline(100.0, color="gray", lw=0.8, ls="--")
        ax.set_title(env)
        ax.set_ylabel("normalised AUC (%)")
    return fig


def param_bars(results: Sequence) -> Figure:
    """Parameters kept in memory per method (online network plus any target copy)."""
    params = results[0].artifacts.get("params", {}) if results else {}
    fig, axes = new_figure(ncols=max(len(params), 1), width=5 * max(len(params), 1), flat=True)
    for ax, (env, per) in zip(axes, params.items()):
        names = list(per)
        ax.bar(range(len(names)), [per[m] for m in names])
        ax.set_xticks(range(len(names)), [_LABELS.get(m, m) for m in names], fontsize=7)
        for k, m in enumerate(names):
            ax.text(k, per[m], str(per[m]), ha="center", va="bottom", fontsize=7)
        ax.set_title(env)
        ax.set_ylabel("parameters")
    return fig
