"""Figures of the HyperPrune reproduction (OpenReview lqjQs2lVNm); first docstring line = caption."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.figures import legend, metric_values, new_figure, seed_bars
from iclr26.harness.store import SeedResult

__all__ = ["ablation_bars", "layer_error", "outlier_retention", "ppl_by_method"]

MAIN = ("magnitude", "wanda", "sparsegpt", "maskllm_lite", "hyperprune")
ABLATIONS = (
    "hyperprune",
    "hyperprune_nobeta",
    "hyperprune_nogamma",
    "hyperprune_outlier_channels",
    "hyperprune_indep",
)


def _prefixes(results: Sequence[SeedResult]) -> list[str]:
    return ["nm" + p.replace(":", "") + "_" for p in results[0].artifacts["patterns"]]


def _ppl(results: Sequence[SeedResult], key: str) -> np.ndarray:
    """Perplexity per seed from a stored log-perplexity metric."""
    return np.exp(metric_values(results, key))


def ppl_by_method(results: Sequence[SeedResult]) -> Figure:
    """Held-out perplexity of each method after 2:4 and 4:8 pruning (mean +- std over seeds; dashed: dense)."""
    prefixes = _prefixes(results)
    fig, axes = new_figure(ncols=len(prefixes), width=4 * len(prefixes), flat=True)
    dense = float(np.mean(_ppl(results, "dense_logppl")))
    for ax, p in zip(axes, prefixes):
        names = [n for n in MAIN if p + "logppl_" + n in results[0].metrics]
        ppl = [_ppl(results, p + "logppl_" + n) for n in names]
        seed_bars(ax, range(len(names)), ppl, interval="sd", dots=False, capsize=0, color="tab:blue")
        ax.axhline(dense, ls="--", color="k", lw=1)
        ax.set_xticks(range(len(names)), names, rotation=30, fontsize=7)
        ax.set(ylabel="perplexity", title=p[2:-1][0] + ":" + p[2:-1][1:])
    return fig


def layer_error(results: Sequence[SeedResult]) -> Figure:
    """Relative hidden-state error after each block vs the dense model, 2:4, per method (first seed)."""
    errs = results[0].artifacts["layer_error"]
    fig, ax = new_figure(width=5)
    for name in (*MAIN, *ABLATIONS[1:]):
        key = "nm24_" + name
        if key in errs:
            ax.semilogy(
                range(1, len(errs[key]) + 1), errs[key], "o-", label=name, lw=2 if name == "hyperprune" else 1
            )
    ax.set(xlabel="block", ylabel="||h - h_dense||^2 / ||h_dense||^2")
    legend(ax)
    return fig


def outlier_retention(results: Sequence[SeedResult]) -> Figure:
    """Fraction of weights in outlier input channels (norm > mean + 3 std) kept by each 2:4 method (mean over seeds)."""
    names = [n for n in (*MAIN, *ABLATIONS[1:]) if "nm24_" + n in results[0].artifacts["outlier_kept"]]
    vals = [np.nanmean([r.artifacts["outlier_kept"]["nm24_" + n] for r in results]) for n in names]
    fig, ax = new_figure(width=5)
    ax.bar(range(len(names)), np.nan_to_num(vals), color="tab:orange")
    ax.axhline(0.5, ls="--", color="k", lw=1)
    ax.set_xticks(range(len(names)), names, rotation=30, fontsize=7)
    ax.set(ylabel="outlier-channel weights kept")
    return fig


def ablation_bars(results: Sequence[SeedResult]) -> Figure:
    """2:4 perplexity of HyperPrune and its ablations (no continual term, no R_out, old outlier-channel term)."""
    names = [n for n in ABLATIONS if "nm24_logppl_" + n in results[0].metrics]
    ppl = [_ppl(results, "nm24_logppl_" + n) for n in names]
    fig, ax = new_figure()
    seed_bars(ax, range(len(names)), ppl, interval="sd", dots=False, capsize=0, color="tab:green")
    ax.set_xticks(range(len(names)), names, rotation=30, fontsize=7)
    ax.set_ylim(min(p.mean() for p in ppl) * 0.98, max(p.mean() + p.std() for p in ppl) * 1.01)
    ax.set(ylabel="perplexity")
    return fig
