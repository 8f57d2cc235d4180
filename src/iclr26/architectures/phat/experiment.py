"""Reproduction of "PHAT: Modeling Period Heterogeneity for Multivariate Time Series Forecasting"
(ICLR 2026, arXiv 2602.00654).

Per harness seed: series with planted heterogeneous periods (3 groups, periods 12/24/48) and a homogeneous
control (all 24) are generated (:func:`iclr26.lab.timeseries.make_heterogeneous_periodic`), windowed (lookback
96, horizon 48, 70/10/20 chronological split), and PHAT, its ablations and the baselines are trained with the
same Huber loss (delta 0.5) and scored by test MSE/MAE on the standardised scale. Claim: the brief's relative
gain of PHAT over the better of DLinear and iTransformer on the heterogeneous data.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from iclr26.architectures.phat.claim_check import relative_gain_decider
from iclr26.architectures.phat.figures import attention_maps, forecast_traces, mse_bars
from iclr26.architectures.phat.model import PHAT
from iclr26.architectures.phat.periods import detect_periods, fold
from iclr26.harness.claims import Claim, Precondition, difference_at_least, never_refutes
from iclr26.harness.experiment import Curve, Experiment, Metrics
from iclr26.harness.progress import track
from iclr26.lab.timeseries import (
    DLinear,
    ITransformer,
    PatchTST,
    SeasonalNaive,
    TimesNetLite,
    evaluate,
    group_labels,
    make_heterogeneous_periodic,
    make_windows,
    train_forecaster,
    trivial_mse,
)

__all__ = ["EXPERIMENT", "PhatConfig", "build_model", "run"]

PHAT_MODELS = ("phat", "phat_shared", "phat_noneg", "phat_indep")


@dataclass(frozen=True)
class PhatConfig:
    """One budget of the PHAT reproduction."""

    C: int = 21
    T: int = 8000
    periods: tuple[int, ...] = (12, 24, 48)
    homo_period: int = 24
    drift: float = 0.0
    seq_len: int = 96
    pred_len: int = 48
    d_model: int = 32
    n_heads: int = 4
    top_k: int = 2
    hetero_models: tuple[str, ...] = ("phat", "phat_shared", "phat_noneg", "dlinear", "itransformer")
    homo_models: tuple[str, ...] = ("phat", "phat_shared")
    epochs: int = 6
    batch: int = 64
    phat_lr: float = 0.02
    baseline_lr: float = 1e-3
    phat_steps_per_epoch: int | None = 6
    baseline_steps_per_epoch: int | None = 30
    eval_stride: int = 8


def build_model(name: str, cfg: PhatConfig, period: int = 24) -> nn.Module:
    """A forecaster by name at the config's sizes."""
    L, F, C = cfg.seq_len, cfg.pred_len, cfg.C
    if name.startswith("phat"):
        kw = {
            "phat": {},
            "phat_shared": {"bucket_mode": "shared"},
            "phat_noneg": {"negative": False},
            "phat_indep": {"bucket_mode": "independent"},
        }[name]
        return PHAT(L, F, C, d_model=cfg.d_model, n_heads=cfg.n_heads, top_k=cfg.top_k, **kw)
    if name == "dlinear":
        return DLinear(L, F, C)
    if name == "itransformer":
        return ITransformer(L, F, C, d_model=cfg.d_model, d_ff=cfg.d_model, n_layers=2, n_heads=cfg.n_heads)
    if name == "patchtst":
        return PatchTST(L, F, C, d_model=cfg.d_model, d_ff=2 * cfg.d_model, n_heads=cfg.n_heads)
    if name == "timesnet":
        return TimesNetLite(L, F, C)
    if name == "seasonal_naive":
        return SeasonalNaive(L, F, C, period)
    raise ValueError(f"unknown model name {name!r}")


@torch.no_grad()
def _attention_artifact(model: PHAT, x: torch.Tensor) -> dict:
    """Offset +/- softmax weights and aligned weights of the largest-period bucket with N > 1, first window."""
    model.eval()
    xn, _ = model.revin.normalize(x)
    xhat = model.base_forecast(xn)
    cands = [(p, idx) for _, p, idx, _ in model.buckets(xn)]
    multi = [c for c in cands if model.pred_len > c[0]] or cands
    p, idx = max(multi, key=lambda c: c[0])
    z = xhat[..., idx] @ model.encoder.weight[:, idx].T + model.encoder.bias
    block = model.blocks[0]
    q, k, _, _ = block.attn.projections(block.norm1(fold(z, p, model.fold_layout)))
    signed = block.attn.signed_weights(q, k)[0, :, :, 0, 0]  # (P, P, 2)
    aligned = block.attn.aligned_weights(q, k)[0, 0, :, :, 0] if q.shape[2] > 1 else torch.zeros(0, 0)
    return {"period": p, "positive": signed[..., 0], "negative": signed[..., 1], "aligned": aligned}


def run(cfg: PhatConfig, seed: int, device: str) -> Metrics:
    """Generate both data sets, train and score every model, record period detection, attention, traces."""
    values: dict[str, float] = {}
    curves: dict[str, Curve] = {}
    models = list(dict.fromkeys([*cfg.hetero_models, *cfg.homo_models]))
    artifacts: dict = {"models": models}
    groups = len(cfg.periods)
    settings = {
        "hetero": cfg.periods,
        "homo": (cfg.homo_period,) * groups,
    }
    jobs = [("hetero", m) for m in cfg.hetero_models] + [("homo", m) for m in cfg.homo_models]
    data = {}
    for kind, periods in settings.items():
        raw = make_heterogeneous_periodic(
            cfg.C, cfg.T, groups, periods, cfg.drift, seed=1000 * seed + len(data)
        )
        data[kind] = make_windows(raw, cfg.seq_len, cfg.pred_len)
        triv = trivial_mse(data[kind], "test", cfg.eval_stride)
        values[f"{kind}_trivial_mse"] = min(triv.values())
    labels = group_labels(cfg.C, groups)
    test_x, test_y = data["hetero"].windows(data["hetero"].split_starts("test", cfg.pred_len)[:64])
    found, _ = detect_periods(test_x, 1, cfg.pred_len)
    planted = torch.tensor([cfg.periods[g] for g in labels])
    values["period_detection_acc"] = float((found[0] == planted).float().mean())
    trained = {}
    for k, (kind, name) in enumerate(track(jobs, description=f"phat seed {seed}")):
        torch.manual_seed(1000 * seed + k)
        model = build_model(name, cfg)
        is_phat = name.startswith("phat")
        losses = train_forecaster(
            model,
            data[kind],
            cfg.epochs,
            cfg.batch,
            cfg.phat_lr if is_phat else cfg.baseline_lr,
            "type3" if is_phat else "constant",
            "huber",
            steps_per_epoch=cfg.phat_steps_per_epoch if is_phat else cfg.baseline_steps_per_epoch,
            seed=1000 * seed + 7,
        )
        mse, mae = evaluate(model, data[kind], "test", cfg.eval_stride)
        values[f"{kind}_{name}_mse"], values[f"{kind}_{name}_mae"] = mse, mae
        values[f"{kind}_{name}_rel_trivial"] = mse / values[f"{kind}_trivial_mse"]
        curves[f"loss_{kind}_{name}"] = Curve(list(range(1, len(losses) + 1)), losses, "step", "train Huber")
        if kind == "hetero":
            trained[name] = model
    for kind in settings:
        if f"{kind}_phat_shared_mse" in values and f"{kind}_phat_mse" in values:
            values[f"bucket_gain_{kind}"] = values[f"{kind}_phat_shared_mse"] - values[f"{kind}_phat_mse"]
    if "phat" in trained:
        artifacts["attention"] = _attention_artifact(trained["phat"], test_x[:1])
        traces = []
        with torch.no_grad():
            preds = {n: trained[n](test_x[:1])[0] for n in ("phat", "dlinear") if n in trained}
        for g in range(groups):
            c = int(np.flatnonzero(labels == g)[0])
            traces.append(
                {
                    "var": c,
                    "period": cfg.periods[g],
                    "lookback": test_x[0, :, c],
                    "truth": test_y[0, :, c],
                    **{n: p[:, c] for n, p in preds.items()},
                }
            )
        artifacts["traces"] = traces
    return Metrics(values=values, curves=curves, artifacts=artifacts)


_SMOKE = PhatConfig(
    C=6,
    T=1500,
    d_model=16,
    epochs=1,
    phat_steps_per_epoch=2,
    baseline_steps_per_epoch=2,
    batch=16,
    eval_stride=48,
)
_QUICK = PhatConfig()
_FULL = PhatConfig(
    hetero_models=(
        "phat",
        "phat_shared",
        "phat_noneg",
        "phat_indep",
        "dlinear",
        "itransformer",
        "patchtst",
        "timesnet",
    ),
    homo_models=("phat", "phat_shared", "dlinear", "itransformer"),
    epochs=20,
    phat_steps_per_epoch=None,
    baseline_steps_per_epoch=None,
    eval_stride=1,
)


def _learned(kind: str, names: tuple[tuple[str, str], ...]) -> tuple[Precondition, ...]:
    return tuple(
        Precondition(
            f"{kind}_{name}_rel_trivial",
            "<",
            0.9,
            f"{label} learned the {kind} data: its test MSE is at least 10% below the better trivial forecaster's "
            "(last value repeated, or the lookback mean) on the same windows",
        )
        for name, label in names
    )


EXPERIMENT = Experiment(
    slug="phat",
    configs={"smoke": _SMOKE, "quick": _QUICK, "full": _FULL},
    seeds={"smoke": 1, "quick": 3, "full": 5},
    run=run,
    claims=[
        Claim(
            id="phat-beats-baselines-hetero",
            statement=(
                "on series with heterogeneous periods (3 groups, periods 12/24/48), PHAT's test MSE is at least 5% "
                "below the better of DLinear and iTransformer (mean of r = MSE ratio - 1 <= -5%, seed-paired 95% "
                "interval below 0)"
            ),
            paper_value="best on 71 of 96 metrics over 14 TFB datasets vs 18 baselines, e.g. MSE 0.161 vs 0.210 "
            "(xPatch) on NYSE-24",
            decide=relative_gain_decider(
                "hetero_phat_mse", ("hetero_dlinear_mse", "hetero_itransformer_mse")
            ),
            preconditions=_learned("hetero", (("phat", "PHAT"), ("dlinear", "DLinear"))),
            scale_gap="synthetic 21-variable series, d = 32, a few dozen optimiser steps per model on a CPU",
        ),
        Claim(
            id="bucketing-helps-more-under-heterogeneity",
            statement=(
                "(reported, not decisive; never refuted) the gain of period buckets over one shared bucket, "
                "MSE(shared) - MSE(PHAT), is larger on heterogeneous than on homogeneous periods"
            ),
            paper_value="ablation: removing buckets hurts clearly (per-dataset numbers not retrieved)",
            decide=never_refutes(difference_at_least("bucket_gain_hetero", "bucket_gain_homo", 0.0)),
            preconditions=_learned("hetero", (("phat", "PHAT"),)) + _learned("homo", (("phat", "PHAT"),)),
            scale_gap="synthetic data, 3 seeds, step-capped training",
        ),
    ],
    figures=[mse_bars, attention_maps, forecast_traces],
    scale_gap=(
        "Synthetic series with planted periods (C = 21, T = 8000) replace the 14 TFB datasets; PHAT uses d = 32, "
        "4 heads, k = 2 and 6 epochs of 6 batches (baselines 6 epochs of 30 batches) instead of up to 100 epochs "
        "with early stopping; one CPU thread."
    ),
)
