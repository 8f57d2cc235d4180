"""Leakage metrics and the (|D_S|, tau) phase diagram of held-out accuracy.

Paper: "Dataset Distillation for Memorized Data: Soft Labels can Leak Held-Out Teacher Knowledge" (arXiv
2506.14457). On the held-out memorised points D_H the student is scored by

    acc_H   = mean_{x in D_H} 1[argmax z_S(x) = y(x)]               (the random labels it never saw),
    agree_H = mean_{x in D_H} 1[argmax z_S(x) = argmax z_T(x)]      (agreement with the teacher),
    agree_F = mean_{x ~ N(0, I)/sqrt(d)} 1[argmax z_S(x) = argmax z_T(x)]   (functional recovery off the data).

The phase diagram repeats distillation over a grid of transfer-set sizes |D_S| and temperatures tau on one task,
with the hard-label and the within-class-shuffled soft-label students as baselines (same code, other targets).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from iclr26.checks import check_array
from iclr26.harness.progress import track
from iclr26.optim.distillation_memorization.task import (
    MemorizationTask,
    one_hot,
    shuffle_within_class,
    soft_targets,
    stratified_split,
)
from iclr26.optim.distillation_memorization.training import (
    Model,
    check_model_input,
    fit_on_targets,
    model_logits,
)

__all__ = ["PhaseDiagram", "evaluate_leakage", "phase_diagram"]


def evaluate_leakage(
    student: Model, teacher: Model, X_H: np.ndarray, y_H: np.ndarray, X_fresh: np.ndarray
) -> dict[str, float]:
    """Held-out accuracy on the random labels, held-out agreement with the teacher, agreement on fresh inputs.

    Examples
    --------
    >>> from iclr26.optim.distillation_memorization import SoftLabelLogisticRegression
    >>> X = np.random.default_rng(0).standard_normal((12, 8)); y = np.arange(12) % 3
    >>> teacher = SoftLabelLogisticRegression(alpha=1e-3).fit(X, y)
    >>> evaluate_leakage(teacher, teacher, X, y, X)["heldout_teacher_agreement"]
    1.0
    """
    check_model_input(student, X_H, "X_H")
    check_model_input(student, X_fresh, "X_fresh")
    y_H = check_array("y_H", y_H, ndim=1, integer=True)
    if np.shape(X_H)[0] != y_H.shape[0]:
        raise ValueError(f"X_H has {np.shape(X_H)[0]} rows but y_H has {y_H.shape[0]} labels")
    s_H = model_logits(student, X_H).argmax(axis=1)
    t_H = model_logits(teacher, X_H).argmax(axis=1)
    s_F = model_logits(student, X_fresh).argmax(axis=1)
    t_F = model_logits(teacher, X_fresh).argmax(axis=1)
    return {
        "heldout_accuracy": float(np.mean(s_H == y_H)),  # acc_H
        "heldout_teacher_agreement": float(np.mean(s_H == t_H)),  # agree_H
        "fresh_agreement": float(np.mean(s_F == t_F)),  # agree_F
    }


@dataclass
class PhaseDiagram:
    """Leakage metrics over a grid: ``soft[metric]`` is (len(sizes), len(taus)); baselines are per size.

    ``hard[metric]`` holds the hard-label student's metrics and ``shuffled[metric]`` the within-class-shuffled
    soft-label student's (at ``shuffle_tau``), each of length len(sizes).
    """

    sizes: list[int]
    taus: list[float]
    shuffle_tau: float
    soft: dict[str, np.ndarray] = field(default_factory=dict)
    hard: dict[str, np.ndarray] = field(default_factory=dict)
    shuffled: dict[str, np.ndarray] = field(default_factory=dict)


def phase_diagram(
    make_student: Callable[[], Model],
    task: MemorizationTask,
    teacher: Model,
    sizes: Sequence[int],
    taus: Sequence[float],
    rng: np.random.Generator,
    X_fresh: np.ndarray,
    epochs: int = 2000,
    lr: float = 1e-3,
    shuffle_tau: float = 20.0,
    baseline_sizes: Sequence[int] | None = None,
    description: str = "phase diagram",
) -> PhaseDiagram:
    """Distil fresh students from ``teacher`` for every (|D_S|, tau) and score them on the held-out rest.

    For each size one class-stratified split is drawn; all temperatures and both baselines use that split
    (paired comparisons). ``make_student()`` returns an untrained student (same initialisation for every cell).
    The baselines are trained at ``baseline_sizes`` only (default: every size; NaN elsewhere).

    Examples
    --------
    >>> from iclr26.optim.distillation_memorization import (
    ...     SoftLabelLogisticRegression, make_random_memorization_task, train_teacher)
    >>> task = make_random_memorization_task(6, 4, 2, seed=0)
    >>> teacher = SoftLabelLogisticRegression(alpha=1e-3); _ = train_teacher(teacher, task.X, task.y, 0.5)
    >>> pd = phase_diagram(SoftLabelLogisticRegression, task, teacher, [6], [1.0], np.random.default_rng(0),
    ...                    task.fresh(20, np.random.default_rng(1)))
    >>> pd.soft["heldout_accuracy"].shape
    (1, 1)
    """
    C = task.n_classes
    check_model_input(teacher, X_fresh, "X_fresh")
    if np.shape(X_fresh)[1] != task.d:
        raise ValueError(f"X_fresh must have the task's d={task.d} features, got shape {np.shape(X_fresh)}")
    z_T = model_logits(teacher, task.X)
    out = PhaseDiagram(list(sizes), [float(t) for t in taus], float(shuffle_tau))
    cells = [(i, n) for i, n in enumerate(sizes)]
    for i, n in track(cells, description=description):
        S, H = stratified_split(task.y, int(n), rng, C)

        def score(targets: np.ndarray, S: np.ndarray = S, H: np.ndarray = H) -> dict[str, float]:
            student = fit_on_targets(make_student(), task.X[S], targets, epochs, lr)
            return evaluate_leakage(student, teacher, task.X[H], task.y[H], X_fresh)

        for j, tau in enumerate(out.taus):
            for key, value in score(soft_targets(z_T[S], tau)).items():
                out.soft.setdefault(key, np.full((len(sizes), len(taus)), np.nan))[i, j] = value
        baselines = (
            (out.hard, one_hot(task.y[S], C)),
            (out.shuffled, shuffle_within_class(soft_targets(z_T[S], shuffle_tau), task.y[S], rng)),
        )
        if baseline_sizes is not None and n not in baseline_sizes:
            continue
        for store, targets in baselines:
            for key, value in score(targets).items():
                store.setdefault(key, np.full(len(sizes), np.nan))[i] = value
    return out
