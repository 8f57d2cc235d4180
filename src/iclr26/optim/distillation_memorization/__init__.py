"""Soft-label leakage of memorised knowledge (Behrens & Zdeborova, arXiv 2506.14457, ICLR 2026).

A teacher memorises random labels; a student trained only on the teacher's soft labels softmax(z_T / tau) for part
of the training set recovers the labels of the held-out part once the soft-label equations pin down the teacher's
function (for logistic regression: |D_S| >= d + 1). Components: the random memorisation task and its stratified
split, teacher training to memorisation, distillation (PyTorch or L-BFGS students), the scikit-learn estimator
:class:`SoftLabelLogisticRegression`, the leakage metrics and the (|D_S|, tau) phase diagram.
"""

from iclr26.optim.distillation_memorization.leakage import PhaseDiagram, evaluate_leakage, phase_diagram
from iclr26.optim.distillation_memorization.soft_logistic import (
    SoftLabelLogisticRegression,
    soft_cross_entropy_and_grad,
)
from iclr26.optim.distillation_memorization.task import (
    MemorizationTask,
    make_random_memorization_task,
    one_hot,
    shuffle_within_class,
    soft_targets,
    split_by_fraction,
    stratified_split,
)
from iclr26.optim.distillation_memorization.training import (
    MemorizationWarning,
    TeacherFit,
    distill,
    distillation_loss,
    fit_on_targets,
    make_mlp,
    model_logits,
    train_teacher,
)

__all__ = [
    "MemorizationTask",
    "MemorizationWarning",
    "PhaseDiagram",
    "SoftLabelLogisticRegression",
    "TeacherFit",
    "distill",
    "distillation_loss",
    "evaluate_leakage",
    "fit_on_targets",
    "make_mlp",
    "make_random_memorization_task",
    "model_logits",
    "one_hot",
    "phase_diagram",
    "shuffle_within_class",
    "soft_cross_entropy_and_grad",
    "soft_targets",
    "split_by_fraction",
    "stratified_split",
    "train_teacher",
]
