"""A generic, seeded training loop for the small models the reproductions train on synthetic tasks.

:func:`train_loop` runs AdamW with linear warm-up and cosine decay (:func:`iclr26.lab.tinygpt.cosine_warmup`),
global-norm gradient clipping, a progress bar, periodic evaluation, and stops cleanly on a non-finite loss. The
batch stream comes from ``loss_fn(model, generator)``: the caller draws its batch from the generator (seeded by
``seed``), so the same seed gives the same run.

Example
-------
>>> import torch
>>> from torch import nn
>>> torch.manual_seed(0)  # doctest: +ELLIPSIS
<torch._C.Generator object at ...>
>>> model = nn.Linear(3, 1)
>>> w = torch.tensor([[1.0, -2.0, 0.5]])
>>> def loss_fn(m, gen):
...     x = torch.randn(32, 3, generator=gen)
...     return ((m(x) - x @ w.T) ** 2).mean()
>>> res = train_loop(model, loss_fn, steps=200, lr=0.05, seed=0)
>>> res.losses[-1] < 1e-3
True
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from iclr26.checks import check_float, check_int
from iclr26.harness.progress import task
from iclr26.lab.cache import cached_torch
from iclr26.lab.tasks.base import IGNORE_INDEX
from iclr26.lab.tinygpt import cosine_warmup

__all__ = ["LoopResult", "sequence_loss", "train_cached", "train_loop"]


@dataclass
class LoopResult:
    """Per-step training losses and the evaluations made every ``eval_every`` steps."""

    losses: list[float] = field(default_factory=list)
    eval_steps: list[int] = field(default_factory=list)
    evals: list[dict[str, float]] = field(default_factory=list)
    diverged: bool = False


def sequence_loss(logits: Tensor, targets: Tensor) -> Tensor:
    """Cross-entropy of (B, T, V) logits against (B, T) targets, ignoring ``IGNORE_INDEX`` positions."""
    return F.cross_entropy(logits.flatten(0, 1), targets.flatten(), ignore_index=IGNORE_INDEX)


def train_loop(
    model: nn.Module,
    loss_fn: Callable[[nn.Module, torch.Generator], Tensor],
    *,
    steps: int,
    lr: float,
    seed: int,
    weight_decay: float = 0.0,
    betas: tuple[float, float] = (0.9, 0.999),
    warmup_frac: float = 0.1,
    final_lr_frac: float = 0.0,
    grad_clip: float | None = 1.0,
    eval_fn: Callable[[nn.Module], dict[str, float]] | None = None,
    eval_every: int | None = None,
    optimizer: torch.optim.Optimizer | None = None,
    description: str = "train",
) -> LoopResult:
    """Train ``model`` in place for ``steps`` steps of ``loss_fn`` and return its curves.

    ``optimizer`` overrides the default AdamW (its groups' ``lr`` are then the base rates of the schedule).
    ``eval_fn(model)`` runs under ``torch.no_grad()`` in eval mode at step 0, every ``eval_every`` steps, and at the
    end.
    """
    check_int("steps", steps, low=1)
    check_float("lr", lr, low=0.0, low_open=True)
    check_float("weight_decay", weight_decay, low=0.0)
    check_float("warmup_frac", warmup_frac, 0.0, 1.0)
    check_float("final_lr_frac", final_lr_frac, 0.0, 1.0)
    if grad_clip is not None:
        check_float("grad_clip", grad_clip, low=0.0, low_open=True)
    if eval_every is not None:
        check_int("eval_every", eval_every, low=1)
    if not callable(loss_fn):
        raise ValueError(f"loss_fn must be callable as loss_fn(model, generator), got {loss_fn!r}")
    params = [p for p in model.parameters() if p.requires_grad]
    opt = optimizer or torch.optim.AdamW(params, lr=lr, betas=betas, weight_decay=weight_decay)
    base = [g["lr"] for g in opt.param_groups]
    gen = torch.Generator().manual_seed(int(seed))
    result = LoopResult()

    def evaluate(step: int) -> None:
        if eval_fn is None:
            return
        was = model.training
        model.eval()
        with torch.no_grad():
            result.evals.append({k: float(v) for k, v in eval_fn(model).items()})
        model.train(was)
        result.eval_steps.append(step)

    evaluate(0)
    model.train()
    with task(description, total=steps) as bar:
        for step in range(steps):
            mult = cosine_warmup(step, steps, warmup_frac, final_lr_frac)
            for g, b in zip(opt.param_groups, base):
                g["lr"] = b * mult
            loss = loss_fn(model, gen)
            if not torch.isfinite(loss):
                result.diverged = True
                break
            opt.zero_grad(set_to_none=True)
            loss.backward()
            if grad_clip is not None:
                torch.nn.utils.clip_grad_norm_(params, grad_clip)
            opt.step()
            result.losses.append(float(loss.detach()))
            done = step + 1
            if eval_every is not None and done % eval_every == 0 and done != steps:
                evaluate(done)
            bar.advance()
    for g, b in zip(opt.param_groups, base):
        g["lr"] = b
    if not result.diverged:
        evaluate(len(result.losses))
    if result.losses and not math.isfinite(result.losses[-1]):
        result.diverged = True
    return result


def train_cached(
    name: str,
    cfg,
    seed: int,
    build_model: Callable[[object, int], nn.Module],
    loss_fn: Callable[[nn.Module, torch.Generator], Tensor],
    *,
    steps: int,
    lr: float,
    weight_decay: float = 0.0,
    description: str = "train",
    cache: bool = True,
    device: str = "cpu",
) -> nn.Module:
    """Train ``build_model(cfg, seed)`` with :func:`train_loop`, or load its weights from the lab cache.

    The cache key is ``name`` with the fields of the dataclass ``cfg`` and ``seed`` (and the device type when it is
    not the CPU: another device's floating-point result differs). The initial weights are drawn by `build_model`
    on the CPU and moved; the model comes back on ``device`` in eval mode.
    """
    check_int("seed", seed, low=0)

    def build() -> dict[str, Tensor]:
        model = build_model(cfg, seed).to(device)
        train_loop(
            model, loss_fn, steps=steps, lr=lr, seed=seed, weight_decay=weight_decay, description=description
        )
        return {k: v.cpu() for k, v in model.state_dict().items()}

    key = {**dataclasses.asdict(cfg), "seed": int(seed)}
    if torch.device(device).type != "cpu":
        key["device"] = torch.device(device).type
    model = build_model(cfg, seed)
    model.load_state_dict(cached_torch(name, key, build, cache=cache))
    return model.to(device).eval()
