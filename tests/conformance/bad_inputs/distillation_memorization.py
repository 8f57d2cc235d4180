"""Bad input to the soft-label leakage components: temperature, split fraction, classes, unmemorised teacher."""

import warnings

import numpy as np

from iclr26.optim.distillation_memorization import (
    MemorizationWarning,
    SoftLabelLogisticRegression,
    distill,
    make_random_memorization_task,
    soft_targets,
    split_by_fraction,
    stratified_split,
    train_teacher,
)


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
]
