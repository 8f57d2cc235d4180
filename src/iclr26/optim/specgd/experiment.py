"""Reproduction of "How Muon's Spectral Design Benefits Generalization: A Study on Imbalanced Data".

arXiv 2510.22980 (ICLR 2026). One harness seed ``s`` is one replication on data seed ``s + 1``; data seed 0 is
reserved for step-size tuning (each optimizer's step size is picked once on it, then reused for every seed).

Experiment 1 (theory regime): the reconstructed long-tailed Gaussian mixture (orthogonal means), squared loss,
full batch. Models: linear (``W = 0`` init), bilinear and deep linear (small Gaussian init). Optimizers: GD,
normalized GD, SpecGD, each at the step size of a 6-point grid that minimises the class-balanced test loss at
the end of training on the tuning seed. Metrics: balanced / worst-class test accuracy at the early checkpoint
(20% of the steps) and at the end.

Experiment 2 (practical): a 2-hidden-layer ReLU MLP trained with cross-entropy and minibatches on long-tailed
8x8 digits (and, at full budget, the Gaussian mixture with anisotropic noise); SGD+momentum, Adam, Muon(+AdamW)
(and at full budget Shampoo and SpecGD+momentum), step size from a 4-point grid by final balanced test accuracy on the tuning
seed. Claims: the brief's rule (:func:`specgd_decider`), each guarded by preconditions that the compared models
learned (final balanced test accuracy above chance).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import torch

from iclr26.harness.claims import (
    Claim,
    Decider,
    Precondition,
    all_of,
    difference_at_least,
    effect_at_least,
)
from iclr26.harness.experiment import Curve, Experiment, Metrics
from iclr26.harness.progress import track
from iclr26.optim.specgd.data import ImbalancedData, long_tailed_digits, make_imbalanced_gmm
from iclr26.optim.specgd.figures import (
    amplitude_curves,
    balanced_accuracy_curves,
    gap_vs_depth,
    practical_curves,
)
from iclr26.optim.specgd.practical import PracticalRun, train_mlp
from iclr26.optim.specgd.theory import OPTIMIZERS, TheoryRun, train_linear_model

__all__ = ["CHANCE", "EXPERIMENT", "LEARNED_MARGIN", "MIN_GAP", "SpecGDConfig", "run", "specgd_decider"]

MODEL_DEPTH = {"linear": 1, "bilinear": 2, "deep": None}  # deep: cfg.depth
TUNING_SEED = 0


@dataclass(frozen=True)
class SpecGDConfig:
    """One budget of the SpecGD reproduction."""

    # experiment 1: Gaussian mixture, (deep) linear models, full batch
    K: int = 10
    d: int = 100
    rho: float = 100.0
    a: float = 3.0
    sigma: float = 1.0
    n_train: int = 5000
    n_test: int = 5000
    steps: int = 300
    early_frac: float = 0.2
    eval_every: int = 10
    hidden: int = 100
    depth: int = 4
    init_scale: float = 0.1
    models: tuple[str, ...] = ("linear", "bilinear", "deep")
    gd_lrs: tuple[float, ...] = (0.01, 0.0316, 0.1, 0.316, 1.0, 3.16)
    ngd_lrs: tuple[float, ...] = (1e-4, 3.16e-4, 1e-3, 3.16e-3, 0.01, 0.0316)
    specgd_lrs: tuple[float, ...] = (1e-4, 3.16e-4, 1e-3, 3.16e-3, 0.01, 0.0316)
    # experiment 2: MLP with library optimizers on long-tailed data, minibatches
    practical_tasks: tuple[str, ...] = ("digits",)
    practical_optimizers: tuple[str, ...] = ("sgd", "adam", "muon")
    digits_rho: float = 20.0
    digits_test_per_class: int = 50
    gmm_K: int = 10
    gmm_d: int = 64
    gmm_n: int = 1000
    gmm_anisotropy: float = 1.0
    mlp_hidden: int = 256
    epochs: int = 30
    batch_size: int = 64
    shampoo_every: int = 1
    sgd_lrs: tuple[float, ...] = (0.01, 0.0316, 0.1, 0.316)
    adam_lrs: tuple[float, ...] = (1e-4, 3.16e-4, 1e-3, 3.16e-3)
    muon_lrs: tuple[float, ...] = (0.00316, 0.01, 0.0316, 0.1)
    shampoo_lrs: tuple[float, ...] = (0.1, 0.316, 1.0, 3.16)
    specgd_mlp_lrs: tuple[float, ...] = (0.00316, 0.01, 0.0316, 0.1)
    single_thread: bool = True

    @property
    def early_step(self) -> int:
        return round(self.early_frac * self.steps)

    @property
    def early_epoch(self) -> int:
        return max(1, round(self.early_frac * self.epochs))

    def eval_steps(self) -> list[int]:
        return sorted(set(range(0, self.steps + 1, self.eval_every)) | {self.early_step, self.steps})

    def depth_of(self, model: str) -> int:
        return self.depth if model == "deep" else MODEL_DEPTH[model]


def _score(value: float, minimise: bool) -> float:
    """Tuning score (lower is better); a diverged run scores +inf."""
    if not math.isfinite(value):
        return math.inf
    return value if minimise else -value


@functools.lru_cache(maxsize=8)
def _gmm(cfg: SpecGDConfig, data_seed: int) -> ImbalancedData:
    return make_imbalanced_gmm(
        cfg.K,
        cfg.d,
        cfg.rho,
        cfg.a,
        cfg.sigma,
        cfg.n_train,
        data_seed,
        n_test=cfg.n_test,
        dtype=torch.float64,
    )


def _theory_run(cfg: SpecGDConfig, model: str, opt: str, lr: float, data_seed: int) -> TheoryRun:
    return train_linear_model(
        _gmm(cfg, data_seed),
        opt,
        lr,
        cfg.steps,
        cfg.eval_steps(),
        depth=cfg.depth_of(model),
        hidden=cfg.hidden,
        init_scale=cfg.init_scale,
        init_seed=1000 + data_seed,
    )


@functools.lru_cache(maxsize=64)
def _tuned_theory_lr(cfg: SpecGDConfig, model: str, opt: str) -> float:
    """Step size of the grid minimising the final class-balanced test loss on the tuning seed."""
    grid = getattr(cfg, f"{opt}_lrs")
    scores = [_score(_theory_run(cfg, model, opt, lr, TUNING_SEED).balanced_loss[-1], True) for lr in grid]
    return grid[min(range(len(grid)), key=scores.__getitem__)]


def _practical_data(cfg: SpecGDConfig, task: str, data_seed: int) -> ImbalancedData:
    if task == "digits":
        return long_tailed_digits(cfg.digits_rho, cfg.digits_test_per_class, seed=data_seed)
    return make_imbalanced_gmm(
        cfg.gmm_K,
        cfg.gmm_d,
        cfg.digits_rho,
        a=3.0,
        sigma=1.0,
        n=cfg.gmm_n,
        seed=data_seed,
        n_test=cfg.gmm_n,
        anisotropy=cfg.gmm_anisotropy,
    )


def _practical_run(cfg: SpecGDConfig, task: str, opt: str, lr: float, data_seed: int) -> PracticalRun:
    data = _practical_data(cfg, task, data_seed)
    return train_mlp(
        data,
        opt,
        lr,
        cfg.epochs,
        cfg.batch_size,
        cfg.mlp_hidden,
        seed=1000 + data_seed,
        shampoo_every=cfg.shampoo_every,
    )


@functools.lru_cache(maxsize=64)
def _tuned_practical_lr(cfg: SpecGDConfig, task: str, opt: str) -> float:
    """Step size of the grid maximising the final balanced test accuracy on the tuning seed."""
    grid = getattr(cfg, "specgd_mlp_lrs" if opt == "specgd" else f"{opt}_lrs")
    scores = [
        _score(_practical_run(cfg, task, opt, lr, TUNING_SEED).balanced_accuracy[-1], False) for lr in grid
    ]
    return grid[min(range(len(grid)), key=scores.__getitem__)]


def _theory(cfg: SpecGDConfig, data_seed: int, values: dict, curves: dict, artifacts: dict) -> None:
    early = cfg.early_step
    jobs = [(m, o) for m in cfg.models for o in OPTIMIZERS]
    for model, opt in track(jobs, description=f"specgd theory seed {data_seed}"):
        lr = _tuned_theory_lr(cfg, model, opt)
        r = _theory_run(cfg, model, opt, lr, data_seed)
        p = f"{model}_{opt}_"
        values[p + "lr"] = lr
        values[p + "bal_acc_early"] = r.at(early, "balanced_accuracy")
        values[p + "worst_acc_early"] = r.at(early, "worst_class_accuracy")
        values[p + "bal_loss_early"] = r.at(early, "balanced_loss")
        values[p + "bal_acc_final"] = r.balanced_accuracy[-1]
        values[p + "bal_loss_final"] = r.balanced_loss[-1]
        values[p + "diverged"] = float(r.diverged)
        curves[p + "bal_acc"] = Curve(r.steps, r.balanced_accuracy, "step", "balanced test accuracy")
        if model == "linear" and opt in ("gd", "specgd"):
            artifacts.setdefault("amplitudes", {})[opt] = r.amplitudes
            artifacts["amplitude_steps"] = r.steps
    for model in cfg.models:
        for base in ("gd", "ngd"):
            values[f"{model}_gap_vs_{base}"] = (
                values[f"{model}_specgd_bal_acc_early"] - values[f"{model}_{base}_bal_acc_early"]
            )
    artifacts["depths"] = {m: cfg.depth_of(m) for m in cfg.models}
    artifacts["early_step"] = early


def _practical(cfg: SpecGDConfig, data_seed: int, values: dict, curves: dict) -> None:
    early = cfg.early_epoch
    jobs = [(t, o) for t in cfg.practical_tasks for o in cfg.practical_optimizers]
    for task, opt in track(jobs, description=f"specgd MLP seed {data_seed}"):
        lr = _tuned_practical_lr(cfg, task, opt)
        r = _practical_run(cfg, task, opt, lr, data_seed)
        p = f"{task}_{opt}_"
        values[p + "lr"] = lr
        values[p + "bal_acc_early"] = r.balanced_accuracy[early]
        values[p + "worst_acc_early"] = r.worst_class_accuracy[early]
        values[p + "bal_acc_final"] = r.balanced_accuracy[-1]
        values[p + "worst_acc_final"] = r.worst_class_accuracy[-1]
        curves[p + "bal_acc"] = Curve(
            list(range(len(r.balanced_accuracy))), r.balanced_accuracy, "epoch", "balanced test accuracy"
        )
    for task in cfg.practical_tasks:
        for new, old in (("muon", "sgd"), ("shampoo", "adam"), ("specgd", "sgd")):
            if {new, old} <= set(cfg.practical_optimizers):
                values[f"{task}_gap_{new}_vs_{old}"] = (
                    values[f"{task}_{new}_bal_acc_early"] - values[f"{task}_{old}_bal_acc_early"]
                )


def run(cfg: SpecGDConfig, seed: int, device: str) -> Metrics:
    """One replication on data seed ``seed + 1`` (step sizes tuned once on data seed 0)."""
    values: dict[str, float] = {}
    curves: dict[str, Curve] = {}
    artifacts: dict = {"early_frac": cfg.early_frac, "data_seed": seed + 1}
    _theory(cfg, seed + 1, values, curves, artifacts)
    _practical(cfg, seed + 1, values, curves)
    if {"linear", "deep"} <= set(cfg.models):
        values["depth_gap_excess"] = values["deep_gap_vs_gd"] - values["linear_gap_vs_gd"]
    return Metrics(values=values, curves=curves, artifacts=artifacts)


MIN_GAP = 0.03  # the brief's C1 margin: SpecGD beats GD by >= 3 balanced-accuracy points
CHANCE = 0.1  # balanced accuracy of a constant predictor: 1/K with K = 10 classes (GMM at quick/full, digits)
LEARNED_MARGIN = 0.1  # a model learned when its final balanced accuracy beats chance by 10 points


def specgd_decider(min_gap: float = MIN_GAP, level: float = 0.95) -> Decider:
    """The brief's rule on early (20% of training) balanced test accuracies, paired 95% t-intervals over seeds.

    C1: linear-model SpecGD beats GD by a mean >= `min_gap` with the interval above 0, and beats NGD (interval
    above 0); C3: Muon beats SGD+momentum on long-tailed digits (interval above 0). Supported when every part
    holds, not supported when any interval lies below 0, inconclusive otherwise.
    """
    return all_of(
        effect_at_least(
            "linear_specgd_bal_acc_early", "linear_gd_bal_acc_early", support_at=min_gap, refute_below=0.0
        ),
        difference_at_least("linear_specgd_bal_acc_early", "linear_ngd_bal_acc_early", level=level),
        difference_at_least("digits_muon_bal_acc_early", "digits_sgd_bal_acc_early", level=level),
    )


def _learned(prefix: str, label: str) -> Precondition:
    """The run `prefix` learned: final balanced test accuracy at least chance + LEARNED_MARGIN."""
    return Precondition(
        f"{prefix}_bal_acc_final",
        ">=",
        CHANCE + LEARNED_MARGIN,
        f"{label} learned: final balanced test accuracy >= chance 1/K = {CHANCE:g} (K = 10 classes at quick and "
        f"full) + {LEARNED_MARGIN:g}",
    )


_SMOKE = SpecGDConfig(
    K=4,
    d=16,
    rho=10.0,
    n_train=200,
    n_test=200,
    steps=30,
    eval_every=10,
    hidden=8,
    gd_lrs=(0.316,),
    ngd_lrs=(0.0316,),
    specgd_lrs=(0.01,),
    practical_tasks=("digits", "gmm"),
    practical_optimizers=("sgd", "adam", "muon", "shampoo", "specgd"),
    digits_test_per_class=10,
    gmm_K=4,
    gmm_d=16,
    gmm_n=128,
    mlp_hidden=16,
    epochs=1,
    shampoo_every=2,
    sgd_lrs=(0.1,),
    adam_lrs=(1e-3,),
    muon_lrs=(0.0316,),
    shampoo_lrs=(1.0,),
    specgd_mlp_lrs=(0.0316,),
)

EXPERIMENT = Experiment(
    slug="specgd",
    configs={
        "smoke": _SMOKE,
        "quick": SpecGDConfig(),
        "full": SpecGDConfig(
            steps=1000,
            eval_every=20,
            practical_tasks=("digits", "gmm"),
            practical_optimizers=("sgd", "adam", "muon", "shampoo", "specgd"),
            epochs=60,
        ),
    },
    seeds={"smoke": 1, "quick": 5, "full": 10},
    run=run,
    claims=[
        Claim(
            id="specgd-balanced-early",
            statement=(
                "early in training (20% of the steps) SpecGD's balanced test accuracy on the long-tailed Gaussian "
                "mixture (linear model) beats GD's by >= 3 points and NGD's (paired intervals > 0), and Muon's "
                "beats SGD+momentum's on long-tailed digits (interval > 0)"
            ),
            paper_value="SpecGD learns all principal components at equal rates and wins balanced accuracy early "
            "(theory, GMM); Muon/Shampoo beat SGD/Adam on balanced accuracy on imbalanced image/text data",
            decide=specgd_decider(),
            scale_gap="10-class GMM with d = 100 and an 8x8-digits MLP instead of the paper's datasets",
            preconditions=(
                _learned("linear_gd", "GD (linear model)"),
                _learned("linear_ngd", "NGD (linear model)"),
                _learned("linear_specgd", "SpecGD (linear model)"),
                _learned("digits_sgd", "SGD+momentum (digits MLP)"),
                _learned("digits_muon", "Muon (digits MLP)"),
            ),
        ),
        Claim(
            id="depth-amplifies-gap",
            statement="the SpecGD-minus-GD early balanced-accuracy gap of the depth-4 linear network exceeds the "
            "linear model's (paired interval > 0)",
            paper_value="depth widens the GD-SpecGD gap (deep linear models)",
            decide=difference_at_least("deep_gap_vs_gd", "linear_gap_vs_gd"),
            scale_gap="depth 4, width 100, one small-init scale",
            preconditions=(
                _learned("linear_gd", "GD (linear model)"),
                _learned("linear_specgd", "SpecGD (linear model)"),
                _learned("deep_gd", "GD (deep linear network)"),
                _learned("deep_specgd", "SpecGD (deep linear network)"),
            ),
        ),
        Claim(
            id="shampoo-beats-adam",
            statement="early in training Shampoo's balanced test accuracy on long-tailed digits beats Adam's "
            "(paired interval > 0)",
            paper_value="Shampoo beats Adam on balanced accuracy on imbalanced data",
            decide=difference_at_least("digits_shampoo_bal_acc_early", "digits_adam_bal_acc_early"),
            preconditions=(
                _learned("digits_shampoo", "Shampoo (digits MLP)"),
                _learned("digits_adam", "Adam (digits MLP)"),
            ),
            scale_gap="pytorch-optimizer's accumulating Shampoo; measured at the full budget only (too slow on a "
            "CPU for quick: its preconditioner roots cost ~10x an SGD step)",
        ),
    ],
    figures=[amplitude_curves, balanced_accuracy_curves, gap_vs_depth, practical_curves],
    scale_gap=(
        "A reconstructed 10-class Gaussian mixture with orthogonal means (d = 100, imbalance 100) and a 2-layer "
        "MLP on long-tailed 8x8 digits (imbalance 20) replace the paper's theorem setting constants and its "
        "CIFAR-LT-scale experiments; 5 seeds, CPU."
    ),
)
