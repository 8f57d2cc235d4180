"""Reproduction of "Do We Really Need Permutations? Impact of Model Width on Linear Mode Connectivity" (LEWC).

arXiv 2510.08023 (ICLR 2026). Per harness seed (one independent pair per width and task): two MLPs with 3 hidden
ReLU layers of 16 x w units are trained from different inits and data orders on the bundled 8x8 digits and on
a generated 20-class Gaussian mixture in d = 50, for w in {1, 4, 16, 64}. On the same test data, per width:

- no-permutation merging theta_lambda = (1 - lambda) theta_A + lambda theta_B on lambda in {0, 0.1, ..., 1},
  uncalibrated and with the temperature of every model recalibrated on a held-out split; barriers;
- weight matching (Ainsworth et al.) then the same merging (+ calibration);
- the logit-averaging ensemble (calibrated), the upper reference;
- the LEWC fit h_lambda ~ c_A h_A + c_B h_B per layer at lambda = 1/2 (every lambda at the widest width).

Claims: the brief's rule per task (see ``claim_check``), the Gaussian mixture being the headline (digits may be
near-LMC at every width), and "calibration matters": uncalibrated barrier >= 2 x calibrated at the widest width.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from iclr26.harness.claims import Claim, Precondition, difference_at_least
from iclr26.harness.experiment import Curve, Experiment, Metrics
from iclr26.harness.progress import track
from iclr26.harness.seeding import resolve_device
from iclr26.optim.lewc.calibration import calibrate_temperature, nll
from iclr26.optim.lewc.claim_check import lewc_decider
from iclr26.optim.lewc.coefficients import lewc_fit
from iclr26.optim.lewc.figures import barrier_vs_width, lewc_coefficients, lmc_curves
from iclr26.optim.lewc.lmc import DEFAULT_LAMBDAS, accuracy, lmc_curve, predict_logits
from iclr26.optim.lewc.tasks import Splits, make_task
from iclr26.optim.lewc.training import make_mlp, train_mlp
from iclr26.optim.lewc.weight_matching import weight_matching_permute

__all__ = ["EXPERIMENT", "LewcConfig", "run"]

TASKS = ("digits", "gmm")


@dataclass(frozen=True)
class LewcConfig:
    """One budget of the LEWC reproduction."""

    tasks: tuple[str, ...] = TASKS
    widths: tuple[int, ...] = (1, 4, 16, 64)  # width multipliers: 16 x w hidden units
    depth: int = 3
    epochs_digits: int = 40
    epochs_gmm: int = 20
    gmm_samples: int = 4000  # 3/4 train, 1/8 calibration, 1/8 test
    lr: float = 0.05
    batch_size: int = 64
    probe: int = 256  # inputs of the LEWC fit (test split)
    single_thread: bool = True  # small models on a shared CPU run faster on one thread


def _ensemble(
    za: torch.Tensor, zb: torch.Tensor, s: Splits, cal_a: torch.Tensor, cal_b: torch.Tensor
) -> tuple[float, float]:
    """Calibrated test loss and accuracy of the averaged-logit ensemble (z_A + z_B) / 2."""
    temp = calibrate_temperature((cal_a + cal_b) / 2, s.y_cal)
    z = (za + zb) / 2
    return nll(z, s.y_test, temp), accuracy(z, s.y_test)


def _pair(
    cfg: LewcConfig, task: str, s: Splits, w: int, seeds: tuple[int, ...], device: str
) -> tuple[dict, dict, dict]:
    """Train one pair at width multiplier `w` and evaluate merging, weight matching, ensemble and LEWC fit."""
    epochs = cfg.epochs_digits if task == "digits" else cfg.epochs_gmm
    models = []
    for init_seed, order_seed in (seeds[:2], seeds[2:]):
        net = make_mlp(s.dim, s.n_classes, w, cfg.depth, seed=init_seed).to(device)
        models.append(train_mlp(net, s.x_train, s.y_train, epochs, order_seed, cfg.lr, cfg.batch_size))
    a, b = models
    data = {"test": (s.x_test, s.y_test.cpu()), "cal": (s.x_cal, s.y_cal.cpu())}
    plain = lmc_curve(a, b, data, DEFAULT_LAMBDAS, calibrate=True)
    permuted = lmc_curve(a, weight_matching_permute(a, b), data, DEFAULT_LAMBDAS, calibrate=True)
    ens_loss, ens_acc = _ensemble(
        predict_logits(a, s.x_test),
        predict_logits(b, s.x_test),
        s.to("cpu"),
        predict_logits(a, s.x_cal),
        predict_logits(b, s.x_cal),
    )
    half = DEFAULT_LAMBDAS.index(0.5)
    fit = lewc_fit(a, b, 0.5, s.x_test[: cfg.probe])
    values = {
        "barrier_cal": plain["barrier_loss"],
        "barrier_raw": plain["barrier_loss_raw"],
        "barrier_acc": plain["barrier_acc"],
        "barrier_perm_cal": permuted["barrier_loss"],
        "barrier_perm_raw": permuted["barrier_loss_raw"],
        "barrier_perm_acc": permuted["barrier_acc"],
        "acc_endpoints": (plain["acc"][0] + plain["acc"][-1]) / 2,
        "acc_merged": plain["acc"][half],
        "acc_perm_merged": permuted["acc"][half],
        "acc_ensemble": ens_acc,
        "loss_ensemble": ens_loss,
        "loss_merged_cal": plain["loss"][half],
        "temperature_half": plain["temperature"][half],
        "temperature_ratio": plain["temperature"][half]
        / ((plain["temperature"][0] + plain["temperature"][-1]) / 2),
        "r2_out": fit[-1].r2,
        "c_out_sum": fit[-1].c_a + fit[-1].c_b,
    }
    curves = {"loss_cal": plain["loss"], "loss_raw": plain["loss_raw"], "loss_perm": permuted["loss"]}
    curves |= {"acc": plain["acc"], "acc_perm": permuted["acc"]}
    coeffs = {}
    if w == max(cfg.widths):
        fits = [lewc_fit(a, b, lam, s.x_test[: cfg.probe]) for lam in DEFAULT_LAMBDAS]
        coeffs = {
            "lambdas": list(DEFAULT_LAMBDAS),
            "c_a": [[f.c_a for f in row] for row in fits],
            "c_b": [[f.c_b for f in row] for row in fits],
            "r2": [[f.r2 for f in row] for row in fits],
        }
    return values, curves, coeffs


def run(cfg: LewcConfig, seed: int, device: str) -> Metrics:
    """Train one pair per (task, width) and measure merging barriers, ensembles and LEWC fits."""
    device = resolve_device(device, EXPERIMENT.devices, "lewc")
    values: dict[str, float] = {}
    curves: dict[str, Curve] = {}
    artifacts: dict = {"widths": list(cfg.widths), "tasks": list(cfg.tasks), "lewc": {}}
    jobs = [(ti, task, wi, w) for ti, task in enumerate(cfg.tasks) for wi, w in enumerate(cfg.widths)]
    splits: dict[str, Splits] = {}
    for ti, task, wi, w in track(jobs, description=f"lewc seed {seed}: pairs"):
        if task not in splits:
            splits[task] = make_task(task, 1000 * seed + ti, cfg.gmm_samples).to(device)
        base = 1_000_000 * seed + 10_000 * ti + 100 * wi
        pair_values, pair_curves, coeffs = _pair(
            cfg, task, splits[task], w, (base, base + 1, base + 2, base + 3), device
        )
        aliases = (
            [f"w{w}"]
            + (["wmin"] if w == min(cfg.widths) else [])
            + (["wmax"] if w == max(cfg.widths) else [])
        )
        for tag in aliases:
            values |= {f"{task}_{tag}_{k}": v for k, v in pair_values.items()}
        values[f"{task}_w{w}_calibration_gap"] = pair_values["barrier_raw"] - 2 * pair_values["barrier_cal"]
        for k, ys in pair_curves.items():
            ylabel = "test loss (nats)" if k.startswith("loss") else "test accuracy"
            curves[f"{task}_w{w}_{k}"] = Curve(list(DEFAULT_LAMBDAS), ys, "lambda", ylabel)
        if coeffs:
            artifacts["lewc"][task] = coeffs | {"width": w}
    for task in cfg.tasks:
        values[f"{task}_wmax_calibration_gap"] = values[f"{task}_w{max(cfg.widths)}_calibration_gap"]
        values[f"{task}_wmax_barrier_cal_x2"] = 2.0 * values[f"{task}_wmax_barrier_cal"]
    return Metrics(values=values, curves=curves, artifacts=artifacts)


CHANCE = {"gmm": 1 / 20, "digits": 1 / 10}  # 20 Gaussian classes, 10 digits
TRAINED_FLOOR = {"gmm": 0.2, "digits": 0.5}  # endpoint accuracy: chance + 0.15 (gmm), chance + 0.4 (digits)


def _trained(task: str, tag: str, label: str) -> Precondition:
    """The `tag` (wmin / wmax) pair of `task` trained: mean endpoint test accuracy above the task's floor."""
    floor = TRAINED_FLOOR[task]
    return Precondition(
        f"{task}_{tag}_acc_endpoints",
        ">=",
        floor,
        f"the {label} {task} models trained: endpoint test accuracy >= {floor:g} = chance {CHANCE[task]:g} + "
        f"{floor - CHANCE[task]:.2g}",
    )


def _headline(task: str) -> Claim:
    return Claim(
        id=f"lewc-lmc-{task}",
        statement=(
            f"{task}: without permutation, the calibrated loss barrier of the widest MLPs is <= 0.05 nats and <= 0.2x "
            "the narrowest's, the merged output is a two-coefficient mix of the two models' outputs (R^2 >= 0.9, "
            "growing with width), and merged accuracy is within 1 point of the logit ensemble"
        ),
        paper_value="merged (no permutation, calibrated) accuracy approaches permutation merging as width grows "
        "(ResNet/VGG on CIFAR-10/100, ImageNet)",
        decide=lewc_decider(task),
        scale_gap="MLPs 3x(16w) on small offline data, 3 pairs; w <= 64",
        preconditions=(_trained(task, "wmin", "narrowest"), _trained(task, "wmax", "widest")),
    )


EXPERIMENT = Experiment(
    slug="lewc",
    configs={
        "smoke": LewcConfig(widths=(1, 4), epochs_digits=5, epochs_gmm=5, gmm_samples=2000, probe=128),
        "quick": LewcConfig(),
        "full": LewcConfig(widths=(1, 4, 16, 64, 128), epochs_digits=60, epochs_gmm=40, gmm_samples=10_000),
    },
    seeds={"smoke": 1, "quick": 3, "full": 5},
    run=run,
    claims=[
        _headline("gmm"),
        _headline("digits"),
        Claim(
            id="lewc-calibration-matters",
            statement="on the Gaussian mixture at the widest width the uncalibrated barrier is >= 2x the calibrated one",
            paper_value="merged models need temperature calibration to be low-loss",
            decide=difference_at_least("gmm_wmax_barrier_raw", "gmm_wmax_barrier_cal_x2", 0.0),
            scale_gap="MLPs on a generated Gaussian mixture",
            preconditions=(_trained("gmm", "wmax", "widest"),),
        ),
    ],
    figures=[barrier_vs_width, lmc_curves, lewc_coefficients],
    devices=("cpu", "cuda"),
    scale_gap=(
        "MLPs (3 hidden layers, 16-1024 units) on sklearn's bundled 8x8 digits and a generated 20-class Gaussian "
        "mixture replace the paper's ResNets/VGGs on CIFAR-10/100 and ImageNet; no BatchNorm (BN reset is "
        "implemented and tested but unused); 3 pairs per width; the full budget widens the MLPs (up to 2048 units) "
        "and data instead of training ResNet-20 on CIFAR, which this package does not implement."
    ),
)
