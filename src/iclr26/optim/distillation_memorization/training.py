"""Teacher training to memorisation and soft-label distillation of a student (PyTorch and L-BFGS students).

Paper: "Dataset Distillation for Memorized Data: Soft Labels can Leak Held-Out Teacher Knowledge" (arXiv
2506.14457). The teacher is trained on random labels until it memorises them (train accuracy 1). The student sees
only the transfer set D_S and the teacher's soft labels, and minimises the official code's loss

    L_S = (1/|D_S|) sum_{x in D_S} H( softmax(z_T(x) / tau), softmax(z_S(x) / tau_S) ),

with tau_S = ``student_temperature`` = 1 by default (temperature on the teacher only); tau_S = tau is the
symmetric knowledge-distillation convention.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from iclr26.checks import check_array, check_float, check_int, check_tensor
from iclr26.harness.progress import task
from iclr26.optim.distillation_memorization.soft_logistic import SoftLabelLogisticRegression
from iclr26.optim.distillation_memorization.task import check_tau, soft_targets

__all__ = [
    "MemorizationWarning",
    "TeacherFit",
    "distill",
    "distillation_loss",
    "fit_on_targets",
    "make_mlp",
    "model_logits",
    "train_teacher",
]

Model = nn.Module | SoftLabelLogisticRegression


class MemorizationWarning(UserWarning):
    """The teacher did not reach the requested training accuracy, so the task is not pure memorisation."""


@dataclass(frozen=True)
class TeacherFit:
    """What :func:`train_teacher` reports: the reached training accuracy and the epochs (or refits) used."""

    train_accuracy: float
    epochs: int


def make_mlp(
    d: int, hidden: int, C: int, depth: int = 1, seed: int = 0, dtype: torch.dtype = torch.float32
) -> nn.Sequential:
    """A ReLU MLP with ``depth`` hidden layers of width ``hidden`` (depth 0 is multinomial logistic regression).

    The weights use PyTorch's default uniform initialisation drawn from a generator seeded with ``seed``.

    Examples
    --------
    >>> make_mlp(10, 16, 3)(torch.zeros(4, 10)).shape
    torch.Size([4, 3])
    """
    for name, value in (("d", d), ("hidden", hidden)):
        check_int(name, value, low=1)
    check_int("C (number of classes)", C, low=2)
    check_int("depth", depth, low=0)
    check_int("seed", seed, low=0)
    gen = torch.Generator().manual_seed(seed)
    widths = [d] + [hidden] * depth + [C]
    layers: list[nn.Module] = []
    for i, (a, b) in enumerate(zip(widths[:-1], widths[1:])):
        layer = nn.Linear(a, b, dtype=dtype)
        with torch.no_grad():  # PyTorch's default init, drawn from our own generator
            bound = 1.0 / np.sqrt(a)
            layer.weight.uniform_(-bound, bound, generator=gen)
            layer.bias.uniform_(-bound, bound, generator=gen)
        layers.append(layer)
        if i < depth:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


def check_model_input(model: object, X: object, name: str = "X") -> None:
    """`name`: the argument's name in the caller's signature."""
    if not isinstance(model, (nn.Module, SoftLabelLogisticRegression)):
        raise TypeError(
            f"model must be a torch module or a SoftLabelLogisticRegression, got {type(model).__name__}"
        )
    a = check_array(name, X) if not isinstance(X, torch.Tensor) else X.detach().double().cpu().numpy()
    if a.ndim != 2 or a.shape[0] == 0 or not np.all(np.isfinite(a)):
        raise ValueError(f"{name} must be a finite non-empty (n, d) array, got shape {a.shape}")


def _as_input(model: nn.Module, X: np.ndarray) -> torch.Tensor:
    """``X`` as a tensor on the model's device, in its parameters' dtype."""
    check_model_input(model, X)
    p = next(model.parameters())
    return torch.as_tensor(np.asarray(X), device=p.device).to(p.dtype)


def model_logits(model: Model, X: np.ndarray) -> np.ndarray:
    """The logits (n, C) of a torch module or a :class:`SoftLabelLogisticRegression`, as a float64 array."""
    check_model_input(model, X)
    if isinstance(model, SoftLabelLogisticRegression):
        return model.logits(X)
    with torch.no_grad():
        return model(_as_input(model, X)).double().cpu().numpy()


def distillation_loss(
    student_logits: torch.Tensor, teacher_logits: torch.Tensor, tau: float, student_temperature: float = 1.0
) -> torch.Tensor:
    """H(softmax(z_T / tau), softmax(z_S / tau_S)), averaged over the batch.

    Examples
    --------
    >>> z = torch.tensor([[1.0, 2.0, 3.0]])
    >>> round(float(distillation_loss(z, z, tau=1.0)), 4)
    0.8324
    """
    tau = check_tau(tau)
    tau_s = check_tau(student_temperature, "student_temperature")
    check_tensor("student_logits", student_logits, ndim=2, floating=True)
    check_tensor("teacher_logits", teacher_logits, floating=True, shape=tuple(student_logits.shape))
    p_teacher = torch.softmax(teacher_logits / tau, dim=1)  # p_T = softmax(z_T / tau)
    log_q = torch.log_softmax(student_logits / tau_s, dim=1)  # log softmax(z_S / tau_S)
    return -(p_teacher * log_q).sum(dim=1).mean()  # H(p_T, q_S)


def fit_on_targets(
    student: Model,
    X: np.ndarray,
    targets: np.ndarray,
    epochs: int,
    lr: float,
    student_temperature: float = 1.0,
) -> Model:
    """Fit ``student`` to the target distributions ``targets`` (n, C) by cross-entropy; returns the student.

    Torch modules: full-batch Adam for ``epochs`` steps at learning rate ``lr``. A
    :class:`SoftLabelLogisticRegression` is solved by L-BFGS (``epochs`` and ``lr`` unused); its weights are
    then multiplied by ``student_temperature`` so that softmax(z_S / tau_S) is the fitted distribution.
    """
    tau_s = check_tau(student_temperature, "student_temperature")
    check_model_input(student, X)
    t_arr = check_array("targets", targets)
    if t_arr.ndim != 2 or t_arr.shape[0] != np.shape(X)[0]:
        raise ValueError(
            f"targets must be (n, C) with one row per input ({np.shape(X)[0]}), got {t_arr.shape}"
        )
    if (
        not np.all(np.isfinite(t_arr))
        or t_arr.min() < 0
        or not np.allclose(t_arr.sum(axis=1), 1.0, atol=1e-6)
    ):
        raise ValueError("targets must be finite probability rows (>= 0, summing to 1)")
    if isinstance(student, SoftLabelLogisticRegression):
        student.fit(X, targets)
        student.coef_ = student.coef_ * tau_s
        student.intercept_ = student.intercept_ * tau_s
        return student
    check_int("epochs", epochs, low=1)
    check_float("lr", lr, low=0.0, low_open=True)
    x = _as_input(student, X)
    t = torch.as_tensor(np.asarray(targets), device=x.device).to(x.dtype)
    opt = torch.optim.Adam(student.parameters(), lr=lr)
    with task("distill: student epochs", epochs) as bar:
        for _ in range(epochs):
            opt.zero_grad()
            log_q = torch.log_softmax(student(x) / tau_s, dim=1)
            loss = -(t * log_q).sum(dim=1).mean()  # H(targets, softmax(z_S / tau_S))
            loss.backward()
            opt.step()
            bar.advance()
    return student


def distill(
    student: Model,
    X_S: np.ndarray,
    teacher_logits_S: np.ndarray,
    tau: float,
    epochs: int = 2000,
    lr: float = 1e-3,
    student_temperature: float = 1.0,
) -> Model:
    """Train ``student`` on the transfer set with the teacher's soft labels softmax(z_T / tau); returns it.

    Parameters
    ----------
    student : a torch module (trained in place by full-batch Adam) or a :class:`SoftLabelLogisticRegression`.
    X_S : transfer inputs (n_S, d).
    teacher_logits_S : the teacher's logits z_T on ``X_S``, (n_S, C).
    tau : teacher temperature (> 0).
    epochs, lr : Adam steps and learning rate for torch students.
    student_temperature : tau_S dividing the student's logits in the loss (1: the official convention).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((30, 4)); Z = X @ rng.standard_normal((4, 3))
    >>> student = distill(SoftLabelLogisticRegression(), X, Z, tau=2.0)
    >>> bool(np.allclose(2.0 * student.logits(X), Z - Z.mean(axis=1, keepdims=True), atol=1e-4))
    True
    """
    check_model_input(student, X_S, "X_S")
    Z = check_array("teacher_logits_S", teacher_logits_S, finite=True)
    if Z.ndim != 2 or Z.shape[0] != np.shape(X_S)[0]:
        raise ValueError(
            f"teacher_logits_S must be (n_S, C) matching X_S's {np.shape(X_S)[0]} rows, got {Z.shape}"
        )
    return fit_on_targets(student, X_S, soft_targets(Z, tau), epochs, lr, student_temperature)


def train_teacher(
    model: Model,
    X: np.ndarray,
    y: np.ndarray,
    until_acc: float = 1.0,
    lr: float = 1e-3,
    max_epochs: int = 20_000,
    check_every: int = 25,
) -> TeacherFit:
    """Train ``model`` in place on the labels ``y`` until its training accuracy reaches ``until_acc`` or a cap.

    Torch modules: full-batch Adam at ``lr``, no weight decay, accuracy checked every ``check_every`` epochs up to
    ``max_epochs``. A :class:`SoftLabelLogisticRegression` is refitted by L-BFGS with its ``alpha`` divided by
    10 (up to 6 times) until the accuracy is reached. Warns with :class:`MemorizationWarning` when it is not.

    Examples
    --------
    >>> X = np.random.default_rng(0).standard_normal((12, 8)); y = np.arange(12) % 3
    >>> train_teacher(SoftLabelLogisticRegression(alpha=1e-3), X, y).train_accuracy
    1.0
    """
    check_float("until_acc", until_acc, 0.0, 1.0, low_open=True)
    check_model_input(model, X)
    y = np.asarray(y)
    if y.shape != (np.shape(X)[0],) or y.dtype.kind not in "iu":
        raise ValueError(
            f"y must be integer labels of shape ({np.shape(X)[0]},), got {y.dtype} of shape {y.shape}"
        )
    if not isinstance(model, SoftLabelLogisticRegression):
        check_float("lr", lr, low=0.0, low_open=True)
        check_int("max_epochs", max_epochs, low=1)
        check_int("check_every", check_every, low=1)
        outs = [m for m in model.modules() if isinstance(m, nn.Linear)]
        if outs and (y.min() < 0 or y.max() >= outs[-1].out_features):
            raise ValueError(
                f"y must hold labels in [0, {outs[-1].out_features}), got values in [{y.min()}, {y.max()}]"
            )
    if isinstance(model, SoftLabelLogisticRegression):
        refits, acc = 0, 0.0
        while refits < 7:
            refits += 1
            acc = float(np.mean(model.fit(X, y).predict(X) == y))
            if acc >= until_acc:
                break
            model.set_params(alpha=model.alpha / 10)
        return _report(TeacherFit(acc, refits), until_acc)
    x = _as_input(model, X)
    target = torch.as_tensor(y, dtype=torch.long, device=x.device)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    epoch, acc = 0, 0.0
    with task("teacher: epochs to memorise", max_epochs) as bar:
        while epoch < max_epochs:
            for _ in range(check_every):
                opt.zero_grad()
                nn.functional.cross_entropy(model(x), target).backward()
                opt.step()
            epoch += check_every
            bar.advance(check_every)
            with torch.no_grad():
                acc = float((model(x).argmax(dim=1) == target).double().mean())
            if acc >= until_acc:
                break
    return _report(TeacherFit(acc, epoch), until_acc)


def _report(fit: TeacherFit, until_acc: float) -> TeacherFit:
    if fit.train_accuracy < until_acc:
        warnings.warn(
            f"teacher reached train accuracy {fit.train_accuracy:.4f} < until_acc = {until_acc}: it has not "
            "memorised the random labels, so the task is not pure memorisation",
            MemorizationWarning,
            stacklevel=3,
        )
    return fit
