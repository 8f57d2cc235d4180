"""Reproduction of "FACT: Fine-grained Across-variable Convolution for Multivariate Time Series Forecasting"
(ICLR 2026, OpenReview j3gNYqrHtl).

Per harness seed (one independent replication): an advection-diffusion sensor grid (S x S variables, wind that
switches every few days, daily sources) is generated, presented in raster and in randomly permuted variable
order, and FACT, iTransformer and DLinear (optionally FACTAttn, PatchTST, TSMixer-lite) are trained for a fixed
number of steps (Adam, lr halved every epoch) and scored by test MSE/MAE (standardised scale). Efficiency: mean
training-step wall time (NaN when ``timing=False``, so smoke is deterministic) and bytes saved for backward of
FACT, FACTAttn and iTransformer at each N in ``cost_n``. Claim: the brief's accuracy + efficiency rule.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from iclr26.architectures.fact_forecast.baselines import DLinear, ITransformer, PatchTST, TSMixerLite
from iclr26.architectures.fact_forecast.claim_check import fact_decider
from iclr26.architectures.fact_forecast.data import ForecastData, make_grid_diffusion, ordering, prepare
from iclr26.architectures.fact_forecast.figures import cost_vs_n, kernels, mse_bars
from iclr26.architectures.fact_forecast.model import FACT, DConvBlock2d, FACTAttn
from iclr26.architectures.fact_forecast.training import (
    evaluate,
    saved_activation_bytes,
    step_time,
    train_forecaster,
)
from iclr26.harness.claims import Claim, Precondition, difference_at_least
from iclr26.harness.experiment import Curve, Experiment, Metrics
from iclr26.harness.progress import track

__all__ = ["EXPERIMENT", "FactConfig", "build_model", "run", "trivial_mse"]

N_MARK = 2


@dataclass(frozen=True)
class FactConfig:
    """One budget of the FACT reproduction."""

    S: int = 10
    T: int = 8000
    seq_len: int = 96
    pred_len: int = 24
    d_model: int = 64
    d_ff: int = 64
    dilations: tuple[int, ...] = (1, 2, 1)
    models: tuple[str, ...] = ("fact", "itransformer", "dlinear")
    orderings: tuple[str, ...] = ("raster", "permuted")
    steps: int = 80
    linear_steps: int = 300
    epochs: int = 6
    batch: int = 32
    lr: float = 1e-3
    eval_stride: int = 8
    cost_models: tuple[str, ...] = ("fact", "factattn", "itransformer")
    cost_n: tuple[int, ...] = (100, 400)
    cost_batch: int = 8
    cost_steps: int = 5
    timing: bool = True


def build_model(name: str, cfg: FactConfig, n_vars: int) -> nn.Module:
    """A forecaster by name at the config's sizes."""
    L, F, D, f = cfg.seq_len, cfg.pred_len, cfg.d_model, cfg.d_ff
    if name == "fact":
        return FACT(L, F, n_vars, N_MARK, D, f, list(cfg.dilations))
    if name == "factattn":
        return FACTAttn(L, F, n_vars, N_MARK, D, f, list(cfg.dilations))
    if name == "itransformer":
        return ITransformer(L, F, n_vars, N_MARK, D, f, n_layers=2)
    if name == "dlinear":
        return DLinear(L, F, n_vars)
    if name == "patchtst":
        return PatchTST(L, F, n_vars, d_model=D, d_ff=f)
    if name == "tsmixer":
        return TSMixerLite(L, F, n_vars, d_ff=f)
    raise ValueError(f"unknown model name {name!r}")


def _uses_marks(name: str) -> bool:
    return name in ("fact", "factattn", "itransformer")


@torch.no_grad()
def trivial_mse(data: ForecastData, split: str = "test", stride: int = 4) -> dict[str, float]:
    """Test MSE of the two trivial forecasters on the same windows as :func:`evaluate`: the last observed value
    repeated over the horizon (``last``) and the lookback mean (``mean``), per variable."""
    starts = data.split_starts(split, stride)
    se = {"last": 0.0, "mean": 0.0}
    count = 0
    for chunk in starts.split(256):
        x, _, y = data.windows(chunk)
        se["last"] += float(((x[:, -1:, :] - y) ** 2).sum())
        se["mean"] += float(((x.mean(1, keepdim=True) - y) ** 2).sum())
        count += y.numel()
    return {k: v / count for k, v in se.items()}


def run(cfg: FactConfig, seed: int, device: str) -> Metrics:
    """Generate the grid, train and score every model on both orderings, then measure cost vs N."""
    values: dict[str, float] = {}
    curves: dict[str, Curve] = {}
    artifacts: dict = {
        "models": list(cfg.models),
        "orderings": list(cfg.orderings),
        "cost_n": list(cfg.cost_n),
    }
    n_vars = cfg.S * cfg.S
    raw = make_grid_diffusion(cfg.S, cfg.T, dynamic=True, seed=seed)
    jobs = [(o, m) for o in cfg.orderings for m in cfg.models]
    for k, (order_kind, name) in enumerate(track(jobs, description=f"fact-forecast seed {seed}")):
        data = prepare(raw, cfg.seq_len, cfg.pred_len, ordering(n_vars, order_kind, seed=10_000 + seed))
        torch.manual_seed(1000 * seed + k)
        model = build_model(name, cfg, n_vars)
        steps = cfg.linear_steps if name == "dlinear" else cfg.steps
        marks = _uses_marks(name)
        losses = train_forecaster(
            model, data, steps, cfg.batch, cfg.lr, cfg.epochs, seed=1000 * seed + 7, use_marks=marks
        )
        mse, mae = evaluate(model, data, "test", cfg.eval_stride, use_marks=marks)
        values[f"{order_kind}_{name}_mse"] = mse
        values[f"{order_kind}_{name}_mae"] = mae
        curves[f"loss_{order_kind}_{name}"] = Curve(list(range(1, steps + 1)), losses, "step", "train MSE")
        if f"{order_kind}_trivial_mse" not in values:
            triv = trivial_mse(data, "test", cfg.eval_stride)
            values[f"{order_kind}_last_mse"], values[f"{order_kind}_mean_mse"] = (
                triv["last"],
                triv["mean"],
            )
            values[f"{order_kind}_trivial_mse"] = min(triv.values())
        values[f"{order_kind}_{name}_rel_trivial"] = mse / values[f"{order_kind}_trivial_mse"]
        if name == "fact" and order_kind == cfg.orderings[0]:
            block = model.time[0]
            assert isinstance(block, DConvBlock2d)
            w = block.incs[0].convs[-1].weight.detach()[:4, 0]
            artifacts["kernels"] = w.tolist()
    for o in cfg.orderings:
        if "fact" in cfg.models and "itransformer" in cfg.models:
            values[f"{o}_mse_diff"] = values[f"{o}_fact_mse"] - values[f"{o}_itransformer_mse"]
    for n in cfg.cost_n:
        for name in cfg.cost_models:
            torch.manual_seed(seed)
            model = build_model(name, cfg, n)
            values[f"mem_{name}_n{n}"] = saved_activation_bytes(
                model, cfg.batch, cfg.seq_len, n, N_MARK if _uses_marks(name) else 0
            )
            sec = float("nan")
            if cfg.timing:
                sec = step_time(
                    model,
                    cfg.cost_batch,
                    cfg.seq_len,
                    n,
                    N_MARK if _uses_marks(name) else 0,
                    cfg.cost_steps,
                    1,
                )
            values[f"time_{name}_n{n}"] = sec
    if "fact" in cfg.cost_models and "factattn" in cfg.cost_models:
        n_max = max(cfg.cost_n)
        values["time_fact_nmax"] = values[f"time_fact_n{n_max}"]
        values["time_factattn_nmax"] = values[f"time_factattn_n{n_max}"]
        values["time_ratio_fact_attn"] = values[f"time_fact_n{n_max}"] / values[f"time_factattn_n{n_max}"]
        values["mem_ratio_fact_attn"] = values[f"mem_fact_n{n_max}"] / values[f"mem_factattn_n{n_max}"]
    return Metrics(values=values, curves=curves, artifacts=artifacts)


_SMOKE = FactConfig(
    S=4,
    T=1200,
    d_model=16,
    d_ff=16,
    steps=3,
    linear_steps=3,
    epochs=1,
    batch=8,
    eval_stride=48,
    cost_n=(16, 36),
    cost_batch=2,
    cost_steps=1,
    timing=False,
)
_QUICK = FactConfig(d_model=32, d_ff=32, steps=80, epochs=3)
_FULL = FactConfig(
    S=16,
    models=("fact", "factattn", "itransformer", "dlinear", "patchtst", "tsmixer"),
    steps=3000,
    linear_steps=3000,
    epochs=10,
    cost_n=(100, 400, 900),
    cost_batch=32,
    cost_steps=20,
)


def _beats_trivial(order_kind: str) -> tuple[Precondition, ...]:
    return tuple(
        Precondition(
            f"{order_kind}_{name}_rel_trivial",
            "<",
            1.0,
            f"{label} learned: its {order_kind} test MSE is below the better trivial forecaster's (last value "
            "repeated, or the lookback mean), on the same windows",
        )
        for name, label in (("fact", "FACT"), ("itransformer", "iTransformer"))
    )


EXPERIMENT = Experiment(
    slug="fact-forecast",
    configs={"smoke": _SMOKE, "quick": _QUICK, "full": _FULL},
    seeds={"smoke": 1, "quick": 3, "full": 5},
    run=run,
    claims=[
        Claim(
            id="fact-accuracy-and-efficiency",
            statement=(
                "on the raster-ordered advection-diffusion grid (N = 100), FACT's test MSE is below iTransformer's "
                "(seed-paired 95% interval of the difference below 0) and a FACT training step at the largest N "
                "takes at most 0.7x the time of the same model with attention across variables (FACTAttn)"
            ),
            paper_value="state of the art on 12 benchmarks (lookback 96) with much lower training time and memory "
            "than attention-based cross-variable models (figures only; per-dataset numbers not retrieved)",
            decide=fact_decider(
                "raster_fact_mse", "raster_itransformer_mse", "time_fact_nmax", "time_factattn_nmax"
            ),
            preconditions=_beats_trivial("raster"),
            scale_gap="synthetic 10x10 grid, D = 32, step-capped training on a shared CPU",
        ),
        Claim(
            id="fact-permuted-not-worse",
            statement="(caveat, not the paper's) with randomly permuted variable order FACT's MSE is not above "
            "iTransformer's (mean difference <= 0)",
            paper_value="(not in the paper) control for reliance on index order",
            decide=difference_at_least(
                "permuted_fact_mse", "permuted_itransformer_mse", margin=0.0, higher_is_better=False
            ),
            preconditions=_beats_trivial("permuted"),
            scale_gap="synthetic permuted grid",
        ),
    ],
    figures=[mse_bars, cost_vs_n, kernels],
    scale_gap=(
        "A synthetic 10 x 10 advection-diffusion sensor grid (8000 steps) replaces ECL/Traffic/Solar/PEMS; models "
        "use D = d_ff = 32 (paper 512) and a few dozen optimiser steps instead of 10-15 epochs with early stopping; "
        "timings are single-thread CPU at batch 8 on a shared machine, memory is bytes saved for backward."
    ),
)
