"""What the optimizer reproductions share on top of :mod:`iclr26.lab.tinygpt`: budget -> bench configs, figures.

A paper's budget config carries the bench fields (``n_layers``, ``d_model``, ``n_heads``, ``seq_len``, ``steps``,
``batch_size``, ``eval_every``, ``eval_batches``); :func:`model_config` and :func:`train_config` turn it into the
bench's :class:`~iclr26.lab.tinygpt.TinyGPTConfig` and :class:`~iclr26.lab.tinygpt.TrainConfig`. Per-seed results
store, for every optimizer ``name`` listed in ``artifacts["optimizers"]``, a curve ``{name}_eval`` and metrics
``{name}_final`` and ``{name}_state_floats``; :func:`loss_curves` and :func:`loss_vs_state` draw them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from iclr26.harness.store import SeedResult
from iclr26.lab.tinygpt import TinyGPTConfig, TrainConfig

__all__ = ["loss_curves", "loss_vs_state", "model_config", "optimizer_names", "train_config"]


def model_config(cfg: Any) -> TinyGPTConfig:
    """The tiny GPT shape of a budget config."""
    return TinyGPTConfig(n_layers=cfg.n_layers, d_model=cfg.d_model, n_heads=cfg.n_heads, seq_len=cfg.seq_len)


def train_config(cfg: Any) -> TrainConfig:
    """The training schedule of a budget config (warm-up 10%, cosine to 0, grad clip 1)."""
    return TrainConfig(
        steps=cfg.steps, batch_size=cfg.batch_size, eval_every=cfg.eval_every, eval_batches=cfg.eval_batches
    )


def optimizer_names(results: Sequence[SeedResult]) -> list[str]:
    """The optimizers a run compared, in its order."""
    return list(results[0].artifacts["optimizers"])


def loss_curves(results: Sequence[SeedResult], highlight: Sequence[str] = ()) -> Figure:
    """Eval loss vs training step per optimizer (mean over seeds, band = mean +- sd); ``highlight`` drawn bold."""
    fig = Figure(figsize=(6, 3.8), layout="constrained")
    ax = fig.subplots()
    for name in optimizer_names(results):
        key = f"{name}_eval"
        x = np.asarray(results[0].curves[key]["x"])
        ys = [r.curves[key]["y"] for r in results if len(r.curves[key]["y"]) == len(x)]
        if not ys:
            continue
        y = np.asarray(ys, dtype=float)
        mean, sd = y.mean(0), y.std(0)
        ax.plot(x, mean, lw=2.4 if name in highlight else 1.2, label=name)
        ax.fill_between(x, mean - sd, mean + sd, alpha=0.2)
    finals = [r.metrics["adamw_final"] for r in results if "adamw_final" in r.metrics]
    if finals and np.all(np.isfinite(finals)):
        ax.set_ylim(top=max(finals) + 0.8)
    ax.set(xlabel="step", ylabel="eval loss (nats/char)")
    ax.legend(fontsize=8)
    return fig


def loss_vs_state(results: Sequence[SeedResult]) -> Figure:
    """Final eval loss (mean +- sd over seeds) against total optimizer-state floats (log x)."""
    fig = Figure(figsize=(5.5, 3.6), layout="constrained")
    ax = fig.subplots()
    for i, name in enumerate(optimizer_names(results)):
        loss = np.array([r.metrics[f"{name}_final"] for r in results], dtype=float)
        state = results[0].metrics[f"{name}_state_floats"]
        ax.errorbar(
            state, np.nanmean(loss), yerr=np.nanstd(loss) if loss.size > 1 else None, fmt="o", capsize=3
        )
        ax.annotate(
            name,
            (state, np.nanmean(loss)),
            textcoords="offset points",
            xytext=(4, 4 if i % 2 else -11),
            fontsize=8,
        )
    ax.set_xscale("log")
    ax.set(xlabel="optimizer-state floats", ylabel="final eval loss (nats/char)")
    return fig
