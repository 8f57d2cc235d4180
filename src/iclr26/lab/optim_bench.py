"""What the optimizer reproductions share on top of :mod:`iclr26.lab.tinygpt`: budget -> bench configs, figures.

A paper's budget config carries the bench fields (``n_layers``, ``d_model``, ``n_heads``, ``seq_len``, ``steps``,
``batch_size``, ``eval_every``, ``eval_batches``); :func:`model_config` and :func:`train_config` turn it into the
bench's :class:`~iclr26.lab.tinygpt.TinyGPTConfig` and :class:`~iclr26.lab.tinygpt.TrainConfig`. Per-seed results
store, for every optimizer ``name`` listed in ``artifacts["optimizers"]``, a curve ``{name}_eval`` and metrics
``{name}_final`` and ``{name}_state_floats``; :func:`loss_curves` and :func:`loss_vs_state` draw them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import SimpleNamespace
from typing import Any

import numpy as np
import torch
from matplotlib.figure import Figure

from iclr26.harness.claims import Precondition
from iclr26.harness.experiment import Curve
from iclr26.harness.progress import track
from iclr26.harness.store import SeedResult
from iclr26.lab.tinygpt import CharData, TinyGPT, TinyGPTConfig, TrainConfig, char_data, evaluate, train

__all__ = [
    "BenchRun",
    "TinyGPTBenchConfig",
    "OptimizerBench",
    "basis_orth_error",
    "bench_optimizers",
    "data_on",
    "learned_lrs",
    "trained_below_marginal",
    "marginal_eval_loss",
    "LadderSearch",
    "ladder_search",
    "loss_curves",
    "loss_vs_state",
    "model_config",
    "optimizer_names",
    "train_config",
]


def model_config(cfg: Any) -> TinyGPTConfig:
    """The tiny GPT shape of a budget config."""
    return TinyGPTConfig(n_layers=cfg.n_layers, d_model=cfg.d_model, n_heads=cfg.n_heads, seq_len=cfg.seq_len)


def train_config(cfg: Any) -> TrainConfig:
    """The training schedule of a budget config (warm-up 10%, cosine to 0, grad clip 1)."""
    return TrainConfig(
        steps=cfg.steps, batch_size=cfg.batch_size, eval_every=cfg.eval_every, eval_batches=cfg.eval_batches
    )


@dataclass(frozen=True)
class TinyGPTBenchConfig:
    """The settings every optimizer comparison on the tiny GPT shares: model shape, schedule, evaluation, corpus size
    and the key of the tuned learning-rate table. A paper's config subclasses it and adds only its own fields."""

    n_layers: int = 2
    d_model: int = 64
    n_heads: int = 4
    seq_len: int = 64
    steps: int = 150
    batch_size: int = 16
    eval_every: int = 25
    eval_batches: int = 8
    max_chars: int = 1_500_000
    lr_key: str = "quick"


@dataclass
class LadderSearch:
    """Outcome of :func:`ladder_search`: every window tried, every point's loss (keyed ``f"{lr:g}"``), winners."""

    grids: list[list[float]] = field(default_factory=list)
    losses: dict[str, float] = field(default_factory=dict)
    best_in_window: float = math.nan
    best_overall: float = math.nan


def ladder_search(
    measure: Callable[[list[float]], Mapping[float, float]],
    grid: Sequence[float],
    ladder: Sequence[float],
    max_windows: int,
    known: Mapping[str, float] | None = None,
) -> LadderSearch:
    """Tune a learning rate on a grid that slides along ``ladder`` while its winner sits on an edge.

    ``measure(lrs) -> {lr: final loss}`` runs the points not yet known (``known`` lends already measured ones);
    if it raises RuntimeError (every point diverged) they score NaN. After each window, when the window's best
    finite point is its first or last, the window moves one ladder step that way (at most ``max_windows``
    windows, never past the ladder's ends). ``best_in_window`` is the last window's winner, ``best_overall``
    the best finite point measured anywhere (the last window's first point when nothing is finite).
    """
    grid = [float(lr) for lr in grid]
    out = LadderSearch()
    known = dict(known or {})
    for _ in range(max_windows):
        out.losses |= {f"{lr:g}": known[f"{lr:g}"] for lr in grid if f"{lr:g}" in known}
        new = [lr for lr in grid if f"{lr:g}" not in out.losses]
        table: Mapping[float, float] = {}
        if new:
            try:
                table = measure(new)
            except RuntimeError:
                table = {lr: math.nan for lr in new}
        out.grids.append(list(grid))
        out.losses |= {f"{lr:g}": float(v) for lr, v in table.items()}
        finite = {lr: out.losses[f"{lr:g}"] for lr in grid if math.isfinite(out.losses[f"{lr:g}"])}
        out.best_in_window = min(finite, key=finite.__getitem__) if finite else grid[0]
        if out.best_in_window not in (grid[0], grid[-1]):
            break
        i = list(ladder).index(grid[0]) + (1 if out.best_in_window == grid[-1] else -1)
        if i < 0 or i + len(grid) > len(ladder):
            break
        grid = [float(lr) for lr in ladder[i : i + len(grid)]]
    every = {float(k): v for k, v in out.losses.items() if math.isfinite(v)}
    out.best_overall = min(every, key=every.__getitem__) if every else out.best_in_window
    return out


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


class _Marginal(torch.nn.Module):
    """The trivial predictor: every position gets the training split's character frequencies (add-one)."""

    def __init__(self, data: CharData, seq_len: int) -> None:
        super().__init__()
        counts = torch.bincount(data.train.cpu(), minlength=data.vocab_size).double() + 1.0
        self.register_buffer("log_p", (counts / counts.sum()).log().float())
        self.cfg = SimpleNamespace(seq_len=seq_len)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        return self.log_p.expand(*idx.shape, -1)


def marginal_eval_loss(data: CharData, seq_len: int, batch_size: int, eval_batches: int) -> float:
    """Eval loss (nats/char) of predicting the character marginal, on the windows every optimizer is scored on:
    the floor of the optimizer comparisons' learned-model preconditions."""
    model = _Marginal(data, seq_len).to(data.val.device)
    return evaluate(model, data, batch_size, eval_batches)  # type: ignore[arg-type]


def data_on(data: CharData, device: str) -> CharData:
    """`data` with its tensors on `device` (the same object when they already are)."""
    if data.train.device == torch.device(device):
        return data
    return replace(data, train=data.train.to(device), val=data.val.to(device))


def learned_lrs(load: Callable[[str], dict[str, float]], key: str) -> tuple[dict[str, float], str]:
    """The tuned learning rates of budget `key` and the key they came from: the quick budget's when `key` has
    not been tuned yet (e.g. the full budget before its own tuning run)."""
    try:
        return load(key), key
    except KeyError:
        return load("quick"), "quick"


def trained_below_marginal(name: str, label: str) -> Precondition:
    """`name` trained: its final eval loss lies below the trivial predictor's (the character marginal)."""
    return Precondition(
        f"{name}_final_over_marginal",
        "<",
        1.0,
        f"{label} trained: final eval loss below that of predicting the training split's character marginal "
        "on the same eval windows (trivial-predictor floor; a diverged run gives NaN and fails)",
    )


def basis_orth_error(opt: torch.optim.Optimizer, params: Sequence[torch.nn.Parameter], key: str) -> float:
    """Largest entry of |U^T U - I| (float64) over the bases ``opt.state[p][key]`` of ``params``: how far the
    orthonormal bases a low-rank optimizer tracks have drifted after training (0 when there are none)."""
    worst = 0.0
    for p in params:
        u = opt.state[p][key].detach().cpu().double()
        worst = max(worst, float((u.T @ u - torch.eye(u.shape[1], dtype=torch.float64)).abs().max()))
    return worst


@dataclass
class BenchRun:
    """One optimizer's training run: the trained model, the optimizer(s) built for it, and its result."""

    model: TinyGPT
    optimizers: list[Any]
    result: Any  # iclr26.lab.tinygpt.TrainResult


@dataclass
class OptimizerBench:
    """What every optimizer comparison records per seed, and the runs for what a paper adds itself."""

    values: dict[str, float]
    curves: dict[str, Curve]
    seconds: dict[str, float]
    runs: dict[str, BenchRun]


def bench_optimizers(
    cfg: Any,
    seed: int,
    device: str,
    runs: Sequence[tuple[str, Callable[[torch.nn.Module], Any]]],
    description: str,
) -> OptimizerBench:
    """The optimizer-comparison template: train the tiny GPT once per ``(label, build)`` in `runs` (same
    initial weights and batch order for all: both come from CPU generators seeded by `seed`, so they are the same
    on every device) and record, per label, ``{label}_final``, ``{label}_final_over_marginal`` (over the
    character marginal's eval loss, ``marginal_eval_loss``), ``{label}_state_floats``, ``{label}_diverged`` and
    the curve ``{label}_eval``; wall seconds go to ``seconds`` (an artifact: they vary run to run).
    ``build(model)`` returns the optimizer (or a list of them) for that model.
    """
    data = data_on(char_data(max_chars=cfg.max_chars), device)
    mcfg, tcfg = model_config(cfg), train_config(cfg)
    values: dict[str, float] = {
        "marginal_eval_loss": marginal_eval_loss(data, cfg.seq_len, cfg.batch_size, cfg.eval_batches)
    }
    bench = OptimizerBench(values, {}, {}, {})
    for label, build in track(list(runs), description=description):
        model = TinyGPT(mcfg, data.vocab_size, init_seed=seed).to(device)
        built: list[Any] = []

        def factory(m: torch.nn.Module, build: Callable = build, built: list = built) -> Any:
            built.append(build(m))
            return built[-1]

        res = train(model, factory, tcfg, seed, data)
        values[f"{label}_final"] = res.final_eval_loss
        values[f"{label}_final_over_marginal"] = res.final_eval_loss / values["marginal_eval_loss"]
        values[f"{label}_state_floats"] = float(res.state_numel)
        values[f"{label}_diverged"] = float(res.diverged)
        bench.seconds[label] = res.seconds
        bench.curves[f"{label}_eval"] = Curve(res.eval_steps, res.eval_losses, "step", "eval loss (nats)")
        bench.runs[label] = BenchRun(model, built, res)
    return bench
