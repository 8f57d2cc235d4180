"""Training a compressed model against its dense teacher: LM loss + hidden-state distillation.

``loss = lambda_lm(t) * CE(next token) + lambda_d * MSE(student_tap, teacher_tap)`` where the taps are the
output of the replaced group in the student and ``h_{s+G}`` in the dense model. The official schedule:
``lambda_lm = 0`` for the first half of training (distillation only), then ``sin(pi/2 * (t - 1/2) / (1/2))``
up to 1. Only ``trainable`` parameters move (AdamW, betas (0.9, 0.95), no decay on norms/biases, linear
warmup then cosine to ``min_lr_ratio * lr``, gradient clipping).

:class:`ELMTrainer` adds stochastic Jacobian-free backprop: per step it draws ``a ~ U{0..max_nograd}``
iterations without gradient and ``b ~ U{1..max_grad}`` with gradient.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import nn
from transformers import PreTrainedModel

from iclr26.checks import check_choice, check_float, check_int
from iclr26.inference.equilibrium_lm.fixed_point import (
    check_model_ids,
    check_module,
    decoder_layers,
    find_fixed_point_block,
)

__all__ = ["DistillTrainer", "ELMTrainer", "lm_weight"]

LM_SCHEDULES = ("official", "constant")


def lm_weight(progress: float, schedule: str = "official") -> float:
    """``lambda_lm`` at training progress ``progress`` in [0, 1].

    Example
    -------
    >>> lm_weight(0.25), lm_weight(1.0), lm_weight(0.25, "constant")
    (0.0, 1.0, 1.0)
    """
    check_choice("schedule", schedule, LM_SCHEDULES)
    check_float("progress", progress, 0.0, 1.0)
    if schedule == "constant":
        return 1.0
    if progress < 0.5:
        return 0.0
    return math.sin(math.pi / 2 * min(1.0, (progress - 0.5) / 0.5))


class Tap:
    """Captures a module's output tensor on each forward."""

    def __init__(self, module: nn.Module) -> None:
        self.value: torch.Tensor | None = None
        self.handle = module.register_forward_hook(self._hook)

    def _hook(self, module: nn.Module, args: tuple, output: object) -> None:
        self.value = output[0] if isinstance(output, tuple) else output


class DistillTrainer:
    """Train ``trainable`` inside ``student`` with LM loss + MSE to the dense ``teacher`` at two taps.

    Parameters
    ----------
    student, teacher : PreTrainedModel
        The compressed model and the frozen dense model (same tokenizer).
    trainable : nn.Module
        The only part of ``student`` that is updated (everything else is frozen).
    student_tap, teacher_tap : nn.Module
        Modules whose outputs are matched by the distillation loss.
    steps : int
        Planned optimizer steps (sets the learning-rate and ``lambda_lm`` schedules).
    lr, min_lr_ratio, warmup_frac, weight_decay, clip, lambda_d :
        Optimisation hyperparameters (official: 2e-4, 0.01, 0.1, 0.02, 0.1, 1.0).
    lm_schedule : {"official", "constant"}
        ``lambda_lm`` schedule, see :func:`lm_weight`.
    seed : int
        Seed of window sampling (and of the iteration draws of :class:`ELMTrainer`).
    """

    def __init__(
        self,
        student: PreTrainedModel,
        teacher: PreTrainedModel,
        trainable: nn.Module,
        student_tap: nn.Module,
        teacher_tap: nn.Module,
        *,
        steps: int,
        lr: float = 2e-4,
        min_lr_ratio: float = 0.01,
        warmup_frac: float = 0.1,
        weight_decay: float = 0.02,
        clip: float = 0.1,
        lambda_d: float = 1.0,
        lm_schedule: str = "official",
        seed: int = 0,
    ) -> None:
        for name, module in (
            ("student", student),
            ("teacher", teacher),
            ("trainable", trainable),
            ("student_tap", student_tap),
            ("teacher_tap", teacher_tap),
        ):
            check_module(name, module)
        check_int("steps", steps, low=1)
        check_float("lr", lr, low=0.0, low_open=True)
        check_float("clip", clip, low=0.0, low_open=True)
        check_float("min_lr_ratio", min_lr_ratio, 0.0, 1.0)
        check_float("weight_decay", weight_decay, low=0.0)
        check_float("lambda_d", lambda_d, low=0.0)
        check_choice("lm_schedule", lm_schedule, LM_SCHEDULES)
        check_float("warmup_frac", warmup_frac, 0.0, 1.0)
        check_int("seed", seed, low=0)
        self.student, self.teacher, self.trainable = student, teacher, trainable
        self.steps, self.clip, self.lambda_d, self.lm_schedule = steps, clip, lambda_d, lm_schedule
        for p in student.parameters():
            p.requires_grad_(False)
        for p in teacher.parameters():
            p.requires_grad_(False)
        params = list(trainable.parameters())
        for p in params:
            p.requires_grad_(True)
        groups = [
            {"params": [p for p in params if p.dim() >= 2], "weight_decay": weight_decay},
            {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0},
        ]
        self.optimizer = torch.optim.AdamW(groups, lr=lr, betas=(0.9, 0.95))
        warm = max(1, round(warmup_frac * steps))

        def factor(i: int) -> float:
            if i < warm:
                return (i + 1) / warm
            frac = (i - warm) / max(1, steps - warm)
            return min_lr_ratio + (1 - min_lr_ratio) * 0.5 * (1 + math.cos(math.pi * min(1.0, frac)))

        self.schedule = torch.optim.lr_scheduler.LambdaLR(self.optimizer, factor)
        self.generator = torch.Generator().manual_seed(seed)
        self.student_tap, self.teacher_tap = Tap(student_tap), Tap(teacher_tap)
        self.step_count = 0
        self.history: list[dict[str, float]] = []

    def _before_step(self) -> None:
        """Hook for subclasses (ELM draws its iteration counts here)."""

    def step(self, batch: torch.Tensor) -> dict[str, float]:
        """One optimizer step on ``batch`` (``(batch, seq)`` token ids); returns the loss parts."""
        if not isinstance(batch, torch.Tensor) or batch.dim() != 2 or batch.shape[1] < 2:
            raise ValueError(
                f"batch must be a (batch, seq >= 2) tensor of token ids, got {getattr(batch, 'shape', batch)}"
            )
        check_model_ids(self.student, batch, "batch")
        self._before_step()
        param = next(self.student.parameters(), None)
        if param is not None:
            batch = batch.to(param.device)  # windows are drawn on the CPU; the models may live elsewhere
        with torch.no_grad():
            self.teacher(input_ids=batch, use_cache=False)
        target = self.teacher_tap.value
        self.student.train()
        out = self.student(input_ids=batch, labels=batch, use_cache=False)
        w_lm = lm_weight(self.step_count / self.steps, self.lm_schedule)
        distill = F.mse_loss(self.student_tap.value, target)
        loss = w_lm * out.loss + self.lambda_d * distill
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(list(self.trainable.parameters()), self.clip)
        self.optimizer.step()
        self.schedule.step()
        self.student.eval()
        self.step_count += 1
        record = {"loss": loss.item(), "lm": out.loss.item(), "distill": distill.item(), "w_lm": w_lm}
        self.history.append(record)
        return record

    def train(
        self,
        ids: torch.Tensor,
        batch_size: int,
        seq_len: int,
        progress: Callable[[int, dict[str, float]], None] | None = None,
    ) -> list[dict[str, float]]:
        """Run the planned ``steps`` on random windows of the 1-D token stream ``ids``."""
        check_int("batch_size", batch_size, low=1)
        check_int("seq_len", seq_len, low=2)
        if not isinstance(ids, torch.Tensor) or ids.dim() != 1 or len(ids) <= seq_len:
            raise ValueError(f"ids must be a 1-D token tensor longer than seq_len={seq_len}")
        check_model_ids(self.student, ids, "ids", ndim=1)
        offsets = torch.arange(seq_len)
        while self.step_count < self.steps:
            starts = torch.randint(0, len(ids) - seq_len + 1, (batch_size, 1), generator=self.generator)
            record = self.step(ids[starts + offsets])
            if progress is not None:
                progress(self.step_count, record)
        return self.history

    def close(self) -> None:
        """Remove the forward hooks."""
        self.student_tap.handle.remove()
        self.teacher_tap.handle.remove()


class ELMTrainer(DistillTrainer):
    """Stochastic Jacobian-free training of an ELM's fixed-point module against the dense model.

    Parameters
    ----------
    elm : PreTrainedModel
        Output of :func:`~iclr26.inference.equilibrium_lm.make_elm` built from ``dense``.
    dense : PreTrainedModel
        The dense (task-tuned) model; its layer ``s + G - 1`` output is the distillation target.
    max_nograd, max_grad : int
        Per step ``a ~ U{0..max_nograd}`` gradient-free and ``b ~ U{1..max_grad}`` gradient iterations
        (official script: 4 and 4).
    adaptor_only : bool
        Train only the adaptor (GPPO's LoRA-free candidates), not the block.
    **kwargs
        Passed to :class:`DistillTrainer` (``steps`` is required).

    Example
    -------
    >>> from dataclasses import replace
    >>> from iclr26.lab.tinylm import SMOKE_CONFIG, build_model
    >>> from iclr26.inference.equilibrium_lm import make_elm
    >>> dense = build_model(replace(SMOKE_CONFIG, n_layers=3), vocab_size=300)
    >>> trainer = ELMTrainer(make_elm(dense, 0, 2), dense, steps=2, lr=1e-3)
    >>> parts = trainer.step(torch.randint(0, 300, (2, 8)))
    >>> sorted(parts)
    ['distill', 'lm', 'loss', 'w_lm']
    """

    def __init__(
        self,
        elm: PreTrainedModel,
        dense: PreTrainedModel,
        *,
        max_nograd: int = 4,
        max_grad: int = 4,
        adaptor_only: bool = False,
        **kwargs: object,
    ) -> None:
        fp = find_fixed_point_block(elm)
        check_module("dense", dense)
        check_int("max_nograd", max_nograd, low=0)
        check_int("max_grad", max_grad, low=1)
        start, group_len = elm.config.elm_group
        parent, attr = decoder_layers(dense)
        teacher_tap = getattr(parent, attr)[start + group_len - 1]
        trainable = fp.adaptor if adaptor_only else fp
        super().__init__(elm, dense, trainable, fp, teacher_tap, **kwargs)
        self.fp, self.max_nograd, self.max_grad = fp, max_nograd, max_grad

    def _before_step(self) -> None:
        draw = torch.randint(0, self.max_nograd + 1, (1,), generator=self.generator)
        self.fp.n_iter_nograd = int(draw)
        self.fp.n_iter_grad = int(torch.randint(1, self.max_grad + 1, (1,), generator=self.generator))

    def step(self, batch: torch.Tensor) -> dict[str, float]:
        """As :meth:`DistillTrainer.step`; afterwards the block iterates ``max_iter`` times again."""
        try:
            return super().step(batch)
        finally:
            self.fp.n_iter_nograd = self.fp.n_iter_grad = None
