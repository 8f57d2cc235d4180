"""Trivial baselines that the "model learned" preconditions compare a trained model with.

Example
-------
>>> import torch
>>> x = torch.tensor([[0.0, 0.0], [0.1, 0.0], [1.0, 1.0], [0.9, 1.0]])
>>> y = torch.tensor([0, 0, 1, 1])
>>> nearest_class_mean_accuracy(x, y, torch.tensor([[0.2, 0.1], [0.8, 0.9]]), torch.tensor([0, 1]))
1.0
"""

from __future__ import annotations

import torch

__all__ = ["nearest_class_mean_accuracy"]


def nearest_class_mean_accuracy(
    x_train: torch.Tensor,
    y_train: torch.Tensor,
    x_eval: torch.Tensor,
    y_eval: torch.Tensor,
    n_classes: int | None = None,
) -> float:
    """Accuracy (a fraction) on ``(x_eval, y_eval)`` of the nearest-class-mean classifier fitted on the training set.

    Inputs are flattened per example and compared by Euclidean distance in their own dtype (cast beforehand for
    float64). ``n_classes`` defaults to ``max(y_train) + 1``; a class without training examples is an error.
    """
    if x_train.shape[0] != y_train.shape[0] or x_eval.shape[0] != y_eval.shape[0]:
        raise ValueError(
            f"x and y must have as many rows: x_train {tuple(x_train.shape)}, y_train {tuple(y_train.shape)}, "
            f"x_eval {tuple(x_eval.shape)}, y_eval {tuple(y_eval.shape)}"
        )
    k = int(y_train.max()) + 1 if n_classes is None else int(n_classes)
    a, b = x_train.flatten(1), x_eval.flatten(1)
    missing = [c for c in range(k) if not bool((y_train == c).any())]
    if missing:
        raise ValueError(f"y_train has no example of classes {missing} (n_classes={k})")
    means = torch.stack([a[y_train == c].mean(0) for c in range(k)])
    return float((torch.cdist(b, means).argmin(1) == y_eval).to(a.dtype).mean())
