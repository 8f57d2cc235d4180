"""Gradient-descent training with the diagnostics of the Mamba training-dynamics theory (arXiv 2602.12499).

Plain (full-batch) GD on the hinge loss ``max(0, 1 - y f(X))`` (or the logistic loss), via ``torch.optim.SGD``
without momentum. Every step logs the training loss; every `eval_every` steps the test error and the gate
alignment ``w^T o_k`` for every pattern o_k. Training can stop at the first evaluation whose test error is at or
below `target_error`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch
import torch.nn.functional as F
from torch import nn

from iclr26.architectures.mamba_theory.data import SequenceData
from iclr26.checks import check_bool, check_choice, check_float, check_int, check_probability

__all__ = ["LOSSES", "TrainResult", "classification_error", "train_gd"]

LOSSES = ("hinge", "logistic")


@dataclass
class TrainResult:
    """Per-step training loss; per-evaluation steps, test errors and alignments (n_evals, M).

    steps_to_target is the first evaluated step with test error <= target (None if never reached or no target).
    """

    loss: list[float] = field(default_factory=list)
    eval_steps: list[int] = field(default_factory=list)
    test_error: list[float] = field(default_factory=list)
    alignment: list[list[float]] = field(default_factory=list)
    steps_to_target: int | None = None


def classification_error(model: nn.Module, data: SequenceData) -> float:
    """Fraction of sequences with sign(f(X)) != y (f = 0 counts as an error)."""
    _check_model_data(model, data)
    with torch.no_grad():
        return float((torch.sign(model(data.X)) != data.y).double().mean())


def _check_model_data(model: object, data: object, name: str = "data") -> None:
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    if not isinstance(data, SequenceData):
        raise TypeError(f"{name} must be a SequenceData, got {type(data).__name__}")


def _loss(f: torch.Tensor, y: torch.Tensor, kind: str) -> torch.Tensor:
    if kind == "hinge":
        return F.relu(1 - y * f).mean()
    return F.softplus(-y * f).mean()


def train_gd(
    model: nn.Module,
    data: SequenceData,
    eta: float,
    steps: int,
    full_batch: bool = True,
    *,
    test_data: SequenceData | None = None,
    loss: str = "hinge",
    eval_every: int = 10,
    target_error: float | None = None,
    stop_at_target: bool = True,
    batch_size: int = 32,
    seed: int = 0,
) -> TrainResult:
    """Train `model` (with a gate vector ``model.w``) by GD with step `eta` for at most `steps` steps.

    With ``full_batch=False`` each step uses `batch_size` sequences drawn without replacement (SGD).
    `test_data` defaults to the training data. With `target_error` set, the first evaluated step whose test error
    is <= target is recorded and, if `stop_at_target`, training stops there. The alignment ``w^T o_k`` uses ``data.patterns``.
    """
    _check_model_data(model, data)
    if test_data is not None:
        _check_model_data(model, test_data, "test_data")
    if not isinstance(getattr(model, "w", None), torch.Tensor):
        raise TypeError(f"model must have a gate vector model.w (a tensor), got {type(model).__name__}")
    check_float("eta (step size)", eta, low=0.0, low_open=True)
    steps = check_int("steps", steps, low=0)
    check_choice("loss", loss, LOSSES)
    check_int("eval_every", eval_every, low=1)
    if target_error is not None:
        check_probability("target_error (None or an error rate)", target_error, open_high=True)
    check_bool("full_batch", full_batch)
    check_bool("stop_at_target", stop_at_target)
    if not full_batch:
        check_int(f"batch_size (in [1, n={len(data)}])", batch_size, 1, len(data))
    check_int("seed", seed, low=0)
    test = data if test_data is None else test_data
    out = TrainResult()
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.SGD(params, lr=float(eta)) if params else None
    gen = torch.Generator().manual_seed(int(seed))
    patterns = data.patterns.to(model.w.dtype)

    def evaluate(step: int) -> bool:
        err = classification_error(model, test)
        out.eval_steps.append(step)
        out.test_error.append(err)
        out.alignment.append((patterns @ model.w.detach()).tolist())
        if target_error is not None and err <= target_error and out.steps_to_target is None:
            out.steps_to_target = step
            return stop_at_target
        return False

    if evaluate(0):
        return out
    for step in range(1, steps + 1):
        if full_batch:
            X, y = data.X, data.y
        else:
            idx = torch.randperm(len(data), generator=gen)[:batch_size]
            X, y = data.X[idx], data.y[idx]
        value = _loss(model(X), y, loss)
        if opt is not None:
            opt.zero_grad(set_to_none=True)
            value.backward()
            opt.step()
        out.loss.append(float(value.detach()))
        if (step % eval_every == 0 or step == steps) and evaluate(step):
            break
    return out
