"""Bad input to the soft-label leakage components: temperature, split fraction, classes, unmemorised teacher."""

import warnings

import numpy as np
import torch

from iclr26.optim.distillation_memorization import (
    MemorizationWarning,
    SoftLabelLogisticRegression,
    distill,
    distillation_loss,
    fit_on_targets,
    make_mlp,
    make_random_memorization_task,
    model_logits,
    one_hot,
    shuffle_within_class,
    soft_cross_entropy_and_grad,
    soft_targets,
    split_by_fraction,
    stratified_split,
    train_teacher,
)

NAN, INF = float("nan"), float("inf")
RNG = np.random.default_rng(0)
XS = np.random.default_rng(1).standard_normal((6, 3))
YS = np.arange(6) % 2


def _unmemorised_teacher() -> None:
    """Identical inputs with different labels cannot be memorised: the warning is raised as an error."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", MemorizationWarning)
        train_teacher(SoftLabelLogisticRegression(), np.zeros((4, 2)), np.array([0, 1, 0, 1]))


CASES = [
    (lambda: soft_targets(np.zeros((2, 3)), -1.0), ValueError, ["tau", "> 0"]),
    (
        lambda: distill(SoftLabelLogisticRegression(), np.zeros((3, 2)), np.zeros((3, 2)), tau=0.0),
        ValueError,
        ["tau"],
    ),
    (lambda: split_by_fraction(np.arange(10) % 2, 0.0, np.random.default_rng(0)), ValueError, ["train_frac"]),
    (lambda: make_random_memorization_task(5, 4, 1, seed=0), ValueError, ["C", ">= 2"]),
    (lambda: stratified_split(np.arange(6) % 3, 6, np.random.default_rng(0)), ValueError, ["n_transfer"]),
    (_unmemorised_teacher, MemorizationWarning, ["not pure memorisation"]),
    (lambda: soft_targets(np.zeros((2, 3)), NAN), ValueError, ["tau", "finite"]),
    (lambda: soft_targets(np.zeros((2, 3)), INF), ValueError, ["tau", "finite"]),
    (lambda: soft_targets(np.full((2, 3), NAN), 1.0), ValueError, ["logits", "finite"]),
    (lambda: split_by_fraction(np.arange(10) % 2, NAN, RNG), ValueError, ["train_frac", "(0, 1)"]),
    (lambda: split_by_fraction(np.arange(10) % 2, 0.5, None), TypeError, ["rng", "Generator"]),
    (lambda: stratified_split(np.arange(6) % 3 + 0.5, 3, RNG), ValueError, ["y", "integer labels"]),
    (lambda: make_random_memorization_task(5, 4, 2, seed=-1), ValueError, ["seed", ">= 0"]),
    (lambda: make_random_memorization_task(5, 4.5, 2, seed=0), ValueError, ["d", "int"]),
    (lambda: make_mlp(3, 4, 2, seed=-1), ValueError, ["seed", ">= 0"]),
    (lambda: make_mlp(3, 4, 2, depth=-1), ValueError, ["depth", ">= 0"]),
    (lambda: fit_on_targets(make_mlp(3, 4, 2), XS, one_hot(YS, 2), 10, INF), ValueError, ["lr", "finite"]),
    (lambda: fit_on_targets(make_mlp(3, 4, 2), XS, one_hot(YS, 2), 10, NAN), ValueError, ["lr", "finite"]),
    (
        lambda: fit_on_targets(make_mlp(3, 4, 2), XS, np.ones((6, 2)), 10, 0.1),
        ValueError,
        ["targets", "summing to 1"],
    ),
    (
        lambda: fit_on_targets(make_mlp(3, 4, 2), XS, one_hot(YS[:4], 2), 10, 0.1),
        ValueError,
        ["targets", "one row per input"],
    ),
    (
        lambda: fit_on_targets(make_mlp(3, 4, 2), np.full((6, 3), NAN), one_hot(YS, 2), 10, 0.1),
        ValueError,
        ["X", "finite"],
    ),
    (lambda: train_teacher(make_mlp(3, 4, 2), XS, YS, lr=INF), ValueError, ["lr", "finite"]),
    (lambda: train_teacher(make_mlp(3, 4, 2), XS, YS, until_acc=NAN), ValueError, ["until_acc", "(0, 1]"]),
    (lambda: train_teacher(make_mlp(3, 4, 2), XS, YS + 5), ValueError, ["y", "[0, 2)"]),
    (lambda: train_teacher(make_mlp(3, 4, 2), XS, YS, check_every=0), ValueError, ["check_every", ">= 1"]),
    (lambda: model_logits(None, XS), TypeError, ["model", "torch module"]),
    (
        lambda: distillation_loss(torch.zeros(2, 3), torch.zeros(2, 4), 1.0),
        ValueError,
        ["teacher_logits", "shape"],
    ),
    (
        lambda: distillation_loss(torch.zeros(2, 3), torch.zeros(2, 3), 1.0, NAN),
        ValueError,
        ["student_temperature", "finite"],
    ),
    (lambda: one_hot(np.array([0, 3]), 2), ValueError, ["y", "[0, 2)"]),
    (lambda: shuffle_within_class(np.ones((3, 2)), YS, RNG), ValueError, ["targets", "one row per label"]),
    (lambda: SoftLabelLogisticRegression(alpha=NAN).fit(XS, YS), ValueError, ["alpha", "finite"]),
    (lambda: SoftLabelLogisticRegression(tol=INF).fit(XS, YS), ValueError, ["tol", "finite"]),
    (
        lambda: soft_cross_entropy_and_grad(
            np.zeros((2, 3)), np.zeros(2), np.ones((4, 5)), np.full((4, 2), 0.5)
        ),
        ValueError,
        ["shapes", "X"],
    ),
]
