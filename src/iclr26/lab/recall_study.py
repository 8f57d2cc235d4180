"""The template of the mixer papers that train small token models on recall tasks (HDLA, SWAX, BAM; LLA's Study B
shares the batch stream and the curves).

Such a reproduction trains one model per condition (a mixer, a window regime, a positional scheme) on fresh
synthetic batches and scores it at the answer positions. What every one of them does the same way lives here:

- :func:`seeded_batches`: one fresh task batch per step, the task's seed drawn from the training loop's generator
  (so the loop's ``seed`` fixes the whole batch stream);
- :func:`train_on_task`: :func:`iclr26.lab.training.train_loop` on the next-token loss of such a stream
  (:func:`iclr26.lab.training.sequence_loss`: the task's ``IGNORE_INDEX`` marks the unscored positions), batches
  drawn on the CPU and moved to the model's device;
- :func:`predict_tokens` and :func:`answer_accuracy`: greedy (argmax) predictions in chunks under ``no_grad`` and
  eval mode, and their accuracy at the scored positions;
- :func:`loss_curve` and :func:`eval_curve`: a :class:`~iclr26.lab.training.LoopResult` as harness curves;
- :func:`n_params` and :func:`matched_width`: the width (e.g. the FFN's) that gives a model a reference's
  parameter count, for comparisons at matched parameters.

What is a paper's own stays in its ``experiment.py``: the model and its mixer factory, the conditions, the
evaluation sets and what is read off them (exact match of all passkey digits, recall by distance, ...).

Example
-------
>>> import torch
>>> from iclr26.lab.tasks import mqar
>>> from iclr26.lab.transformer import Transformer
>>> model = Transformer(32, 16, 16, 1, 2, init_seed=0)
>>> batches = seeded_batches(lambda s: mqar(4, 16, 2, 32, seed=s), low=10**6)
>>> res = train_on_task(model, batches, steps=3, lr=1e-3, seed=0)
>>> len(res.losses), loss_curve(res).x
(3, [1, 2, 3])
>>> tokens, targets = mqar(8, 16, 2, 32, seed=1)
>>> 0.0 <= answer_accuracy(model, tokens, targets, chunk=4) <= 1.0
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch import Tensor, nn

from iclr26.checks import check_float, check_int, check_tensor
from iclr26.harness.experiment import Curve
from iclr26.lab.tasks.base import IGNORE_INDEX
from iclr26.lab.training import LoopResult, sequence_loss, train_loop

__all__ = [
    "answer_accuracy",
    "eval_curve",
    "loss_curve",
    "matched_width",
    "n_params",
    "predict_tokens",
    "seeded_batches",
    "train_on_task",
]

SEED_HIGH = 2**31 - 1


def seeded_batches(make: Callable[[int], Any], low: int = 0, high: int = SEED_HIGH) -> Callable[..., Any]:
    """``sample(generator) -> make(seed)`` with ``seed`` drawn uniformly from ``[low, high)`` by the generator.

    `make` is a task's batch function of a seed (e.g. ``lambda s: mqar(..., seed=s)``); choose ``[low, high)``
    disjoint from the seeds of the evaluation sets, so that no training batch is a test batch.
    """
    if not callable(make):
        raise TypeError(f"make must be callable as make(seed), got {type(make).__name__}")
    check_int("low", low, low=0)
    check_int("high", high, low=low + 1)

    def sample(gen: torch.Generator) -> Any:
        return make(int(torch.randint(low, high, (1,), generator=gen)))

    return sample


def train_on_task(
    model: nn.Module,
    sample: Callable[[torch.Generator], tuple[Tensor, Tensor]],
    *,
    steps: int,
    lr: float,
    seed: int,
    device: str | torch.device = "cpu",
    eval_fn: Callable[[nn.Module], dict[str, float]] | None = None,
    eval_every: int | None = None,
    description: str = "train",
    **loop_options: Any,
) -> LoopResult:
    """Train `model` in place on the next-token loss of ``(tokens, targets) = sample(generator)``.

    `sample` draws a (B, T) token batch and its (B, T) targets (``IGNORE_INDEX`` where nothing is scored) on the
    CPU from the loop's generator; both are moved to `device`. The rest is :func:`iclr26.lab.training.train_loop`
    (``loop_options``: ``weight_decay``, ``final_lr_frac``, ``warmup_frac``, ``grad_clip``, ...).
    """
    if not callable(sample):
        raise TypeError(f"sample must be callable as sample(generator), got {type(sample).__name__}")

    def loss_fn(m: nn.Module, gen: torch.Generator) -> Tensor:
        tokens, targets = sample(gen)
        return sequence_loss(m(tokens.to(device)), targets.to(device))

    return train_loop(
        model,
        loss_fn,
        steps=steps,
        lr=lr,
        seed=seed,
        eval_fn=eval_fn,
        eval_every=eval_every,
        description=description,
        **loop_options,
    )


def predict_tokens(model: nn.Module, tokens: Tensor, *, chunk: int) -> Tensor:
    """Greedy predictions ``argmax(model(tokens), -1)`` of a (N, T) token batch as a (N, T) CPU tensor.

    The batch runs `chunk` sequences at a time on the model's device, under ``no_grad`` and in eval mode (the
    model's mode is restored afterwards).
    """
    check_tensor("tokens", tokens, ndim=2, floating=False)
    check_int("chunk", chunk, low=1)
    was = model.training
    model.eval()
    dev = next(model.parameters()).device
    preds = []
    with torch.no_grad():
        for s in range(0, tokens.shape[0], chunk):
            preds.append(model(tokens[s : s + chunk].to(dev)).argmax(-1).cpu())
    model.train(was)
    return torch.cat(preds) if preds else tokens.new_zeros(tokens.shape)


def answer_accuracy(model: nn.Module, tokens: Tensor, targets: Tensor, *, chunk: int = 250) -> float:
    """Fraction of the scored positions (``targets != IGNORE_INDEX``) whose greedy prediction is the target.

    0.0 when no position is scored.
    """
    check_tensor("tokens", tokens, ndim=2, floating=False)
    check_tensor("targets", targets, floating=False, shape=tuple(tokens.shape))
    mask = targets != IGNORE_INDEX
    hits = int((predict_tokens(model, tokens, chunk=chunk)[mask] == targets[mask]).sum())
    return hits / max(int(mask.sum()), 1)


def loss_curve(res: LoopResult, ylabel: str = "loss") -> Curve:
    """The per-step training loss of a loop result (steps counted from 1)."""
    return Curve(list(range(1, len(res.losses) + 1)), res.losses, "step", ylabel)


def eval_curve(res: LoopResult, key: str, ylabel: str | None = None) -> Curve:
    """Evaluation ``key`` of a loop result against the step it was taken at (``ylabel`` defaults to `key`)."""
    return Curve(res.eval_steps, [e[key] for e in res.evals], "step", key if ylabel is None else ylabel)


def n_params(model: nn.Module) -> int:
    """Number of parameters of `model` (every parameter tensor, trainable or not)."""
    return sum(p.numel() for p in model.parameters())


def matched_width(
    build: Callable[[int], nn.Module],
    target: int,
    start: int,
    *,
    tolerance: float = 0.02,
    what: str = "model",
) -> tuple[int, int]:
    """The width ``w`` for which ``build(w)`` has about `target` parameters: ``(w, n_params(build(w)))``.

    One linear step from `start` (the parameter count must grow linearly in the width, as an FFN's does);
    ``ValueError`` if the result is off `target` by more than ``tolerance`` (relative).

    >>> matched_width(lambda w: nn.Linear(4, w), target=50, start=3)
    (10, 50)
    """
    if not callable(build):
        raise TypeError(f"build must be callable as build(width), got {type(build).__name__}")
    check_int("target", target, low=1)
    check_int("start", start, low=1)
    check_float("tolerance", tolerance, low=0.0)
    n0 = n_params(build(start))
    per_unit = n_params(build(start + 1)) - n0
    if per_unit <= 0:
        raise ValueError(f"the parameters of {what} do not grow with the width (from {start} to {start + 1})")
    width = max(1, start + round((target - n0) / per_unit))
    n = n_params(build(width))
    if abs(n - target) > tolerance * target:
        raise ValueError(
            f"cannot match {what}'s parameters to {target} within {100 * tolerance:g}%: {n} vs {target}"
        )
    return width, n
