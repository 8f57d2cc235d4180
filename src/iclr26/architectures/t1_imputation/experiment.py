"""Reproduction of "T1: One-to-One Channel-Head Binding for Multivariate Time-Series Imputation" (arXiv 2602.21043).

Per harness seed (one independent replication): a synthetic 16-variable series driven by 4 latent factors
(generator seeded by the harness seed) is split 70/10/20 in time and cut into windows. At every training missing
rate r, T1 (scaled down) and a SAITS-like masked Transformer are trained for a fixed number of Adam steps on fresh
MCAR masks at rate r and evaluated on held-out test windows under MCAR at rate r (MSE on the hidden entries, in
training-standardised units); classical baselines (window mean, linear interpolation, LOCF, KNNImputer,
IterativeImputer) impute the same masks. The rate-0.5 models are also tested on unseen patterns: block missing
(8 steps x 4 adjacent variables) and sequence missing (runs of 12 steps), each about 30% missing. An attention
probe records how each head's weight on one variable changes when a segment of that variable is hidden.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from iclr26.architectures.t1_imputation.baselines import (
    iterative_impute,
    knn_impute,
    linear_interpolation,
    locf,
)
from iclr26.architectures.t1_imputation.claim_check import t1_decider
from iclr26.architectures.t1_imputation.data import (
    block_missing,
    chronological_split,
    macrodata_series,
    mcar,
    seq_missing,
    sliding_windows,
    synthetic_series,
)
from iclr26.architectures.t1_imputation.figures import attention_maps, imputed_traces, mse_vs_rate
from iclr26.architectures.t1_imputation.model import T1Config, T1Imputer
from iclr26.architectures.t1_imputation.train import SAITS, T1
from iclr26.harness.claims import Claim, Precondition, mean_at_least
from iclr26.harness.experiment import Curve, Experiment, Metrics
from iclr26.harness.progress import track

__all__ = ["BASELINES", "EXPERIMENT", "T1ImputationConfig", "run"]

BASELINES = ("saits", "mean", "interp", "locf", "knn", "iterative")
TRIVIAL = ("mean", "interp", "locf")  # the non-learned imputers


@dataclass(frozen=True)
class T1ImputationConfig:
    """One budget of the T1 reproduction."""

    n_steps: int = 6000
    n_vars: int = 16
    seq_len: int = 48
    channels: int = 16
    n_blocks: tuple[int, ...] = (1, 1)
    kernel_large: tuple[int, ...] = (23, 11)
    kernel_small: int = 5
    drop_path: float = 0.1
    drop_attn: float = 0.1
    train_steps: int = 600
    batch_size: int = 16
    lr: float = 1e-2
    saits_lr: float = 3e-3
    saits_d_model: int = 64
    saits_layers: int = 2
    rates: tuple[float, ...] = (0.5, 0.7)
    pattern_model_rate: float = 0.5
    pattern_rate: float = 0.3
    block_shape: tuple[int, int] = (8, 4)
    missing_run: int = 12
    test_stride: int = 24
    knn_neighbors: int = 5
    macrodata: bool = False
    macro_seq_len: int = 24


def _mse(pred: np.ndarray, truth: np.ndarray, hidden: np.ndarray) -> float:
    return float(((pred - truth) ** 2 * hidden).sum() / max(hidden.sum(), 1.0))


def _mae(pred: np.ndarray, truth: np.ndarray, hidden: np.ndarray) -> float:
    return float((np.abs(pred - truth) * hidden).sum() / max(hidden.sum(), 1.0))


def _window_mean(x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    mu = (x * mask).sum(1, keepdims=True) / np.maximum(mask.sum(1, keepdims=True), 1.0)
    return np.where(mask > 0, x, mu)


def _classical(
    x: np.ndarray, mask: np.ndarray, train: np.ndarray, cfg: T1ImputationConfig, seed: int
) -> dict:
    return {
        "mean": _window_mean(x, mask),
        "interp": linear_interpolation(x, mask),
        "locf": locf(x, mask),
        "knn": knn_impute(x, mask, train, cfg.knn_neighbors),
        "iterative": iterative_impute(x, mask, train, seed),
    }


def _t1_config(cfg: T1ImputationConfig) -> T1Config:
    return T1Config(
        n_heads=cfg.channels,
        n_blocks=cfg.n_blocks,
        kernel_large=cfg.kernel_large,
        kernel_small=cfg.kernel_small,
        drop_path=cfg.drop_path,
        drop_attn=cfg.drop_attn,
    )


def _attention_probe(net: T1Imputer, x: np.ndarray, mask: np.ndarray, var: int) -> dict:
    """Per-head change of the attention weight each variable gives `var` when a middle segment of `var` is hidden."""
    t = x.shape[1]
    corrupted = mask.copy()
    corrupted[:, t // 4 : 3 * t // 4, var] = 0.0
    dev = next(net.parameters()).device
    with torch.no_grad():
        before = (
            net.attention_maps(torch.from_numpy(x).to(dev), torch.from_numpy(mask).to(dev))[0].cpu().numpy()
        )
        after = (
            net.attention_maps(torch.from_numpy(x).to(dev), torch.from_numpy(corrupted).to(dev))[0]
            .cpu()
            .numpy()
        )
    delta = after[:, :, var].mean(1) - before[:, :, var].mean(1)  # (C,)
    order = np.argsort(delta)
    heads = [int(h) for h in (*order[:3], int(np.argmin(np.abs(delta))))]
    return {
        "var": var,
        "delta": delta.tolist(),
        "heads": heads,
        "before": before[heads].tolist(),
        "after": after[heads].tolist(),
    }


def _macro(cfg: T1ImputationConfig, seed: int, device: str) -> dict[str, float]:
    """Sanity run on statsmodels' macrodata: T1 vs interpolation at 50% MCAR."""
    train, _, test = chronological_split(macrodata_series())
    rng = np.random.default_rng(1000 * seed + 7)
    w_tr = sliding_windows(train, cfg.macro_seq_len).astype(np.float32)
    w_te = sliding_windows(test, cfg.macro_seq_len, max(1, cfg.macro_seq_len // 2)).astype(np.float32)
    m = mcar(w_te.shape, 0.5, rng)
    t1 = T1(
        _t1_config(cfg),
        rate=0.5,
        steps=cfg.train_steps,
        batch_size=cfg.batch_size,
        lr=cfg.lr,
        seed=seed,
        device=device,
    )
    t1.fit(w_tr)
    hidden = 1 - m
    return {
        "macro_mse_t1": _mse(t1.impute(w_te, m), w_te, hidden),
        "macro_mse_interp": _mse(linear_interpolation(w_te, m), w_te, hidden),
    }


def run(cfg: T1ImputationConfig, seed: int, device: str) -> Metrics:
    """Train T1 and the SAITS-like model at every rate, impute the test windows, compare with the baselines."""
    values: dict[str, float] = {}
    curves: dict[str, Curve] = {}
    artifacts: dict = {"rates": list(cfg.rates), "pattern_model_rate": cfg.pattern_model_rate}
    series = synthetic_series(cfg.n_steps, cfg.n_vars, seed=1000 * seed + 1)
    train, _, test = chronological_split(series)
    w_tr = sliding_windows(train, cfg.seq_len).astype(np.float32)
    w_te = sliding_windows(test, cfg.seq_len, cfg.test_stride).astype(np.float32)
    rng = np.random.default_rng(1000 * seed + 2)
    masks = {f"mcar{round(r * 100)}": mcar(w_te.shape, r, rng) for r in cfg.rates}
    masks["block"] = block_missing(w_te.shape, cfg.pattern_rate, cfg.block_shape[0], cfg.block_shape[1], rng)
    masks["seq"] = seq_missing(w_te.shape, cfg.pattern_rate, cfg.missing_run, rng)
    for name, m in masks.items():
        values[f"missing_frac_{name}"] = float(1 - m.mean())
    for name, m in masks.items():
        for b, pred in _classical(w_te, m, train, cfg, seed).items():
            values[f"mse_{name}_{b}"] = _mse(pred, w_te, 1 - m)
            values[f"mae_{name}_{b}"] = _mae(pred, w_te, 1 - m)
    for i, r in enumerate(track(cfg.rates, description=f"t1-imputation seed {seed}")):
        common = dict(
            rate=r,
            steps=cfg.train_steps,
            batch_size=cfg.batch_size,
            lr=cfg.lr,
            seed=1000 * seed + 10 + i,
            device=device,
        )
        models = {
            "t1": T1(_t1_config(cfg), log_every=max(1, cfg.train_steps // 30), **common),
            "saits": SAITS(
                d_model=cfg.saits_d_model, n_layers=cfg.saits_layers, **(common | {"lr": cfg.saits_lr})
            ),
        }
        tests = [f"mcar{round(r * 100)}"] + (["block", "seq"] if r == cfg.pattern_model_rate else [])
        for mname, model in models.items():
            model.fit(w_tr)
            for name in tests:
                pred = model.impute(w_te, masks[name])
                values[f"mse_{name}_{mname}"] = _mse(pred, w_te, 1 - masks[name])
                values[f"mae_{name}_{mname}"] = _mae(pred, w_te, 1 - masks[name])
                if mname == "t1" and name == "mcar70":
                    artifacts["traces"] = {
                        "truth": w_te[0].T[:3].tolist(),
                        "mask": masks[name][0].T[:3].tolist(),
                        "t1": pred[0].T[:3].tolist(),
                    }
            if mname == "t1":
                steps, losses = zip(*model.losses)
                curves[f"t1_train_loss_r{round(r * 100)}"] = Curve(
                    list(steps), list(losses), "step", "masked MSE (train)"
                )
                if r == cfg.pattern_model_rate:
                    artifacts["attention"] = _attention_probe(model.net, w_te[:1], masks[tests[0]][:1], var=0)
                    delta = np.asarray(artifacts["attention"]["delta"])
                    values["attn_frac_heads_downweight"] = float((delta < 0).mean())
            if "traces" in artifacts and mname == "saits" and "saits" not in artifacts["traces"]:
                if "mcar70" in tests:
                    artifacts["traces"]["saits"] = (
                        model.impute(w_te[:1], masks["mcar70"][:1])[0].T[:3].tolist()
                    )
    if cfg.macrodata:
        values |= _macro(cfg, seed, device)
    if "traces" in artifacts:
        m = masks["mcar70"]
        artifacts["traces"]["interp"] = linear_interpolation(w_te[:1], m[:1])[0].T[:3].tolist()
    for name in masks:
        if f"mse_{name}_t1" not in values:
            continue
        best = min(values[f"mse_{name}_{b}"] for b in BASELINES if f"mse_{name}_{b}" in values)
        values[f"mse_{name}_best_baseline"] = best
        values[f"log_ratio_{name}"] = math.log(values[f"mse_{name}_t1"] / best)
        trivial = min(values[f"mse_{name}_{b}"] for b in TRIVIAL)
        values[f"mse_{name}_best_trivial"] = trivial
        values[f"rel_trivial_{name}_t1"] = values[f"mse_{name}_t1"] / trivial
        if f"mse_{name}_saits" in values:
            values[f"rel_mean_{name}_saits"] = values[f"mse_{name}_saits"] / values[f"mse_{name}_mean"]
    if "mse_block_t1" in values:
        values["block_diff_t1_saits"] = values["mse_block_t1"] - values["mse_block_saits"]
        values["seq_diff_t1_saits"] = values["mse_seq_t1"] - values["mse_seq_saits"]
    return Metrics(values=values, curves=curves, artifacts=artifacts)


def _t1_learned(pattern: str, rate: str) -> Precondition:
    return Precondition(
        f"rel_trivial_{pattern}_t1",
        "<",
        1.0,
        f"T1 trained at {rate} MCAR learned its task: its test MSE on that pattern is below the best non-learned "
        "imputer's (window mean, LOCF, linear interpolation)",
    )


def _saits_learned(pattern: str, rate: str) -> Precondition:
    return Precondition(
        f"rel_mean_{pattern}_saits",
        "<",
        1.0,
        f"the SAITS-like baseline trained at {rate} MCAR learned: its test MSE is below the window-mean imputer's "
        "(the per-variable marginal)",
    )


EXPERIMENT = Experiment(
    slug="t1-imputation",
    configs={
        "smoke": T1ImputationConfig(
            n_steps=700,
            n_vars=6,
            seq_len=24,
            channels=8,
            kernel_large=(7, 5),
            kernel_small=3,
            train_steps=30,
            saits_d_model=16,
            saits_layers=1,
            block_shape=(4, 2),
            missing_run=6,
            test_stride=24,
        ),
        "quick": T1ImputationConfig(),
        "full": T1ImputationConfig(
            channels=128,
            n_blocks=(2, 2),
            kernel_large=(71, 31),
            train_steps=4000,
            lr=1e-3,
            saits_lr=1e-3,
            rates=(0.1, 0.3, 0.5, 0.7),
            macrodata=True,
        ),
    },
    seeds={"smoke": 1, "quick": 3, "full": 5},
    run=run,
    claims=[
        Claim(
            id="t1-cuts-mse-at-70pct-and-generalises-to-blocks",
            statement=(
                "at 70% MCAR on a factor-driven synthetic series, T1's test MSE is at most 0.8x the best baseline's "
                "(SAITS-like, interpolation, LOCF, KNN, iterative, window mean) with the seed-paired interval of the "
                "ratio below 0.9, and T1 trained at 50% MCAR beats the SAITS-like model on unseen block missingness"
            ),
            paper_value="46% average MSE reduction vs the second-best model over 11 benchmarks; biggest at 70%",
            decide=t1_decider(),
            preconditions=(
                _t1_learned("mcar70", "70%"),
                _t1_learned("mcar50", "50%"),
                _saits_learned("mcar70", "70%"),
                _saits_learned("mcar50", "50%"),
            ),
            scale_gap="C=16 heads, blocks [1,1], kernels 23/11 & 5, 600 Adam steps at a constant lr 1e-2 (official: "
            "C=128, up to 300 epochs at 1e-3); synthetic data",
        ),
        Claim(
            id="t1-heads-downweight-corrupted-variable",
            statement="hiding half of one variable lowers the attention weight given to it in most heads "
            "(fraction of heads with a negative change > 0.5)",
            paper_value="(mechanism, qualitative in the paper) corrupted channels only change their own head's routes",
            decide=mean_at_least("attn_frac_heads_downweight", 0.5),
            preconditions=(_t1_learned("mcar50", "50%"),),
            scale_gap="one probe window per seed, first T1 block",
        ),
    ],
    figures=[mse_vs_rate, attention_maps, imputed_traces],
    devices=("cpu", "cuda"),
    scale_gap=(
        "Synthetic 16-variable factor series instead of the 11 benchmarks (not shippable offline); T1 scaled to "
        "16 channels/heads, one block per stage, kernels 23/11 and 5, trained for a fixed 600 Adam steps at a "
        "constant lr 1e-2 instead of up to 300 epochs at 1e-3 with early stopping; pypots baselines replaced by a "
        "SAITS-like Transformer and classical imputers."
    ),
)
