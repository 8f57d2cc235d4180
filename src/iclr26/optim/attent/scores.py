"""Per-example scores a teacher ranks the pool by (AtteNT, arXiv 2602.20461; GraNT, the same group's earlier code).

Two families, each for classification, regression and causal LM outputs:

* the per-example **loss** (what the official AtteNT code ranks by, Jianghui-Wang/AttenNT):

      score_i = CE(f(S_i), y_i)                                  (:func:`classification_loss_score`)
      score_i = mean_d (f(S_i)_d - y_i,d)^2                      (:func:`regression_loss_score`)
      score_i = sum_t CE_t [y_t valid] / T                       (:func:`causal_lm_loss_score`; the release's
                                                                  reduction, T = all positions, "valid": / #valid)

* the norm of the **functional gradient** dl/df (the GraNT rule the first version of this package adopted):

      score_i = || softmax(f(S_i)) - onehot(y_i) ||_2            (:func:`classification_score`: = || dCE_i / d logits ||)
      score_i = || f(S_i) - y_i ||_2                             (:func:`regression_score`: gradient of (f - y)^2 / 2)
      score_i = mean over valid t of || softmax - onehot ||_2    (:func:`causal_lm_score`)

For two classes the loss and the gradient norm are monotone in each other (both in the true-class probability),
so the rankings agree; from three classes on they differ.

Example
-------
>>> import torch
>>> logits = torch.tensor([[0.3] + [0.7 / 9] * 9, [0.35, 0.65] + [1e-9] * 8]).log()
>>> y = torch.tensor([0, 0])
>>> [round(v, 3) for v in classification_loss_score(logits, y).tolist()]  # row 0 has the larger loss
[1.204, 1.05]
>>> [round(v, 3) for v in classification_score(logits, y).tolist()]       # ... but the smaller gradient norm
[0.738, 0.919]
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from iclr26.checks import check_choice, check_int, check_tensor, check_token_ids

__all__ = [
    "IGNORE_INDEX",
    "ScoreFn",
    "causal_lm_loss_score",
    "causal_lm_score",
    "classification_loss_score",
    "classification_score",
    "regression_loss_score",
    "regression_score",
]

IGNORE_INDEX = -100

ScoreFn = Callable[[Tensor, Tensor], Tensor]


def _check_pair(outputs: Tensor, targets: Tensor, first: str = "outputs") -> None:
    """`first` (the name of the outputs argument) and targets: tensors with a common leading batch axis."""
    for name, t in ((first, outputs), ("targets", targets)):
        if not isinstance(t, Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
        if t.ndim < 1:
            raise ValueError(f"{name} must have a leading batch axis, got a 0-D tensor")
    if outputs.shape[0] != targets.shape[0]:
        raise ValueError(
            f"{first} and targets must have the same batch size, got {outputs.shape[0]} and {targets.shape[0]}"
        )


def _check_classes(logits: Tensor, targets: Tensor) -> None:
    _check_pair(logits, targets, "logits")
    if logits.ndim != 2 or targets.ndim != 1:
        raise ValueError(
            f"logits must be (N, C) and targets (N,), got {tuple(logits.shape)}, {tuple(targets.shape)}"
        )
    check_tensor("logits", logits, floating=True)
    check_token_ids("targets", targets, logits.shape[1])


def _check_regression(outputs: Tensor, targets: Tensor) -> None:
    _check_pair(outputs, targets)
    check_tensor("outputs", outputs, floating=True)
    check_tensor("targets", targets, floating=True)
    if outputs.shape != targets.shape:
        raise ValueError(
            f"outputs and targets must have one shape, got {tuple(outputs.shape)}, {tuple(targets.shape)}"
        )


def _check_lm(logits: Tensor, targets: Tensor, ignore_index: int) -> Tensor:
    """The mask of valid (non-ignored) target positions, after checking shapes and ids."""
    _check_pair(logits, targets, "logits")
    if logits.ndim != 3 or targets.shape != logits.shape[:2]:
        raise ValueError(
            f"logits must be (N, T, V) and targets (N, T), got {tuple(logits.shape)}, {tuple(targets.shape)}"
        )
    check_tensor("logits", logits, floating=True)
    check_tensor("targets", targets, floating=False)
    check_int("ignore_index", ignore_index)
    valid = targets != ignore_index
    if bool(valid.any()):
        check_token_ids("targets (non-ignored)", targets[valid], logits.shape[-1])
    return valid


# ------------------------------------------------------------------------------------- per-example losses


def classification_loss_score(logits: Tensor, targets: Tensor) -> Tensor:
    """Per-example cross-entropy -log softmax(logits_i)[y_i]; logits (N, C), targets (N,) class ids."""
    _check_classes(logits, targets)
    ce = torch.nn.functional.cross_entropy(logits.double(), targets, reduction="none")
    return ce.to(logits.dtype)


def regression_loss_score(outputs: Tensor, targets: Tensor) -> Tensor:
    """Per-example mean squared error over the non-batch dimensions (|f - y|^2 for scalar outputs)."""
    _check_regression(outputs, targets)
    diff = (outputs - targets).reshape(outputs.shape[0], -1)
    return diff.pow(2).mean(dim=-1)


def causal_lm_loss_score(
    logits: Tensor, targets: Tensor, ignore_index: int = IGNORE_INDEX, reduction: str = "positions"
) -> Tensor:
    """Per-sequence token cross-entropy; logits (N, T, V), targets (N, T) aligned with the logits (shift first).

    Positions whose target is `ignore_index` contribute 0. ``reduction="positions"`` divides the sum by T, all
    positions (the released AtteNT LLM trainer's ``mean(dim=1)`` over a ``reduction="none"`` loss);
    ``"valid"`` divides by the number of valid positions (a row with none scores 0).
    """
    valid = _check_lm(logits, targets, ignore_index)
    check_choice("reduction", reduction, ("positions", "valid"))
    safe = torch.where(valid, targets, torch.zeros_like(targets))
    logp = torch.log_softmax(logits.double(), dim=-1)
    token = -logp.gather(-1, safe.unsqueeze(-1)).squeeze(-1) * valid
    total = token.sum(dim=-1)
    if reduction == "valid":
        return (total / valid.sum(dim=-1).clamp(min=1)).to(logits.dtype)
    return (total / token.shape[1]).to(logits.dtype)


# ------------------------------------------------------------------------- functional-gradient norms (GraNT)


def classification_score(logits: Tensor, targets: Tensor) -> Tensor:
    """|| softmax(logits_i) - onehot(y_i) ||_2 per example; logits (N, C), targets (N,) class ids.

    This is the norm of the gradient of the cross-entropy of example i with respect to its logits (GraNT's rule).
    """
    _check_classes(logits, targets)
    p = torch.softmax(logits.double(), dim=-1)
    p[torch.arange(len(targets), device=targets.device), targets] -= 1.0
    return p.norm(dim=-1).to(logits.dtype)


def regression_score(outputs: Tensor, targets: Tensor) -> Tensor:
    """|| f(S_i) - y_i ||_2 per example (|f - y| for scalar outputs): the gradient of (f - y)^2 / 2."""
    _check_regression(outputs, targets)
    diff = (outputs - targets).reshape(outputs.shape[0], -1)
    return diff.norm(dim=-1)


def causal_lm_score(logits: Tensor, targets: Tensor, ignore_index: int = IGNORE_INDEX) -> Tensor:
    """Mean over non-ignored target positions of || softmax(logits_t) - onehot(y_t) ||_2; logits (N, T, V).

    Positions whose target is `ignore_index` (padding, prompt) are left out; a row with no valid position
    scores 0.
    """
    valid = _check_lm(logits, targets, ignore_index)
    p = torch.softmax(logits.double(), dim=-1)
    onehot = torch.zeros_like(p)
    safe = torch.where(valid, targets, torch.zeros_like(targets))
    onehot.scatter_(-1, safe.unsqueeze(-1), 1.0)
    per_token = (p - onehot).norm(dim=-1) * valid
    count = valid.sum(dim=-1)
    return (per_token.sum(dim=-1) / count.clamp(min=1)).to(logits.dtype)
