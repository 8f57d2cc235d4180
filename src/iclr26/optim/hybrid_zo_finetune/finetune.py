"""Pretraining on task A and the four fine-tuning methods on task B, with a shared minibatch stream.

Methods (all on the same pretrained weights, the same reshuffled minibatches and a constant learning rate):

* ``full_fo``: AdamW on every weight (the ceiling);
* ``lora_fo``: LoRA (rank r on attention q and v) + the classifier head by Adam, base frozen;
* ``mezo``: SPSA on every weight (:class:`MeZO`, the floor);
* ``zo_lora``: SPSA on the LoRA + head weights only (same code path);
* ``hybrid``: :class:`HybridZOFO`, SPSA on the base weights and Adam on LoRA + head.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from iclr26.checks import check_bool, check_choice, check_float, check_int, check_tensor, check_token_ids
from iclr26.lab.training import train_loop
from iclr26.optim.hybrid_zo_finetune.data import ReshuffleLoader, task_a
from iclr26.optim.hybrid_zo_finetune.lora import add_lora
from iclr26.optim.hybrid_zo_finetune.model import TinyClassifier
from iclr26.optim.hybrid_zo_finetune.zo import HybridZOFO, MeZO

__all__ = ["METHODS", "PASS_COST", "FinetuneSpec", "accuracy", "finetune", "pretrain"]

METHODS = ("full_fo", "lora_fo", "mezo", "zo_lora", "hybrid")
# forward-pass equivalents per step (a backward pass counted as two forwards)
PASS_COST = {"full_fo": 3.0, "lora_fo": 3.0, "mezo": 2.0, "zo_lora": 2.0, "hybrid": 5.0}


@dataclass(frozen=True)
class FinetuneSpec:
    """What one fine-tuning run needs besides data and seeds."""

    steps: int
    batch: int
    eval_every: int
    lora_r: int = 2
    lora_alpha: float = 4.0
    mu: float = 1e-3
    n_perturb: int = 1
    head_in_fo: bool = True

    def __post_init__(self) -> None:
        for name in ("steps", "batch", "eval_every", "lora_r", "n_perturb"):
            check_int(name, getattr(self, name), low=1)
        check_float("lora_alpha", self.lora_alpha, low=0.0, low_open=True)
        check_float("mu", self.mu, low=0.0, low_open=True)
        check_bool("head_in_fo", self.head_in_fo)


def accuracy(model: nn.Module, x: Tensor, y: Tensor) -> float:
    """Classification accuracy of `model` on (x, y), in eval mode without gradients."""
    check_tensor("x", x, ndim=2, floating=False)
    if x.shape[0] < 1:
        raise ValueError(f"x must hold at least one example, got shape {tuple(x.shape)}")
    vocab = getattr(getattr(model, "backbone", None), "vocab_size", None)
    if vocab is not None:
        check_token_ids("x", x, vocab)
    check_tensor("y", y, floating=False, shape=(x.shape[0],))
    was = model.training
    model.eval()
    with torch.no_grad():
        logits = model(x, validate=False)
    model.train(was)
    check_token_ids("y", y, logits.shape[-1])
    return float((logits.argmax(-1) == y).double().mean())


def pretrain(
    model_kw: dict, n_train: int, steps: int, lr: float, batch: int, seed: int, device: str = "cpu"
) -> tuple[dict[str, Tensor], float]:
    """Train a :class:`TinyClassifier` on task A with the lab's AdamW loop; returns (state_dict, test acc).

    The model and data live on `device` (initial weights and minibatch indices come from CPU generators).
    """
    _check_model_kw(model_kw)
    check_int("n_train", n_train, low=1)
    check_int("steps", steps, low=1)
    check_float("lr", lr, low=0.0, low_open=True)
    check_int("batch", batch, low=1)
    check_int("seed", seed, low=0)
    model = TinyClassifier(**model_kw, init_seed=seed).to(device)
    x, y = (t.to(device) for t in task_a(n_train, seed + 11, model_kw["vocab_size"], model_kw["seq_len"]))
    xt, yt = (t.to(device) for t in task_a(1000, seed + 12, model_kw["vocab_size"], model_kw["seq_len"]))

    def loss_fn(m: nn.Module, gen: torch.Generator) -> Tensor:
        idx = torch.randint(0, n_train, (batch,), generator=gen)
        return nn.functional.cross_entropy(m(x[idx], validate=False), y[idx])

    train_loop(model, loss_fn, steps=steps, lr=lr, seed=seed + 13, description="pretrain task A")
    return copy.deepcopy(model.state_dict()), accuracy(model, xt, yt)


def _check_model_kw(model_kw: object) -> None:
    if not isinstance(model_kw, dict) or not {"vocab_size", "seq_len"} <= set(model_kw):
        raise ValueError(
            f"model_kw must be a dict of TinyClassifier arguments with vocab_size and seq_len, got {model_kw!r}"
        )


def _setup(method: str, model: TinyClassifier, spec: FinetuneSpec, lrs: tuple[float, ...], seed: int):
    """Build the optimizer of `method` on `model` (LoRA attached in place where needed)."""
    if method == "full_fo":
        return torch.optim.AdamW(model.parameters(), lr=lrs[0])
    if method == "mezo":
        return MeZO(list(model.parameters()), lr=lrs[0], mu=spec.mu, n_perturb=spec.n_perturb, seed=seed)
    lora = add_lora(model.backbone, spec.lora_r, spec.lora_alpha, ("W_Q", "W_V"), seed=seed)
    head = list(model.head.parameters())
    fo = lora + head if spec.head_in_fo else lora
    fo_ids = {id(p) for p in fo}
    base = [p for p in model.parameters() if id(p) not in fo_ids]
    for p in base:
        p.requires_grad_(False)
    if method == "lora_fo":
        return torch.optim.Adam(fo, lr=lrs[0])
    if method == "zo_lora":
        return MeZO(fo, lr=lrs[0], mu=spec.mu, n_perturb=spec.n_perturb, seed=seed)
    if method == "hybrid":
        return HybridZOFO(
            base,
            fo,
            lr_zo=lrs[0],
            lr_fo=lrs[1],
            mu=spec.mu,
            n_perturb=spec.n_perturb,
            fo_optimizer="adam",
            seed=seed,
        )
    raise ValueError(f"method must be one of {METHODS}, got {method!r}")


def finetune(
    method: str,
    lrs: tuple[float, ...],
    state: dict[str, Tensor],
    model_kw: dict,
    data: tuple[Tensor, Tensor, Tensor, Tensor],
    spec: FinetuneSpec,
    seed: int,
    device: str = "cpu",
) -> tuple[list[int], list[float]]:
    """Fine-tune a copy of the pretrained model on task B; returns (eval steps, test accuracies).

    ``lrs`` is ``(lr,)``, or ``(lr_zo, lr_fo)`` for ``hybrid``. Minibatches come from a
    :class:`ReshuffleLoader` seeded with `seed`, the same for every method; evaluation at step 0, every
    ``spec.eval_every`` steps and at the end. A ZO run whose loss turns non-finite stops there and keeps the
    accuracy it reached for the remaining logged steps. The model (with its LoRA adapters) and the data live on
    `device`; the adapters are drawn on the CPU first, so every device starts from the same weights.
    """
    check_choice("method", method, METHODS)
    n_lrs = 2 if method == "hybrid" else 1
    if not isinstance(lrs, (tuple, list)) or len(lrs) != n_lrs:
        raise ValueError(f"lrs must be a tuple of {n_lrs} learning rate(s) for {method!r}, got {lrs!r}")
    for i, lr in enumerate(lrs):
        check_float(f"lrs[{i}]", lr, low=0.0)
    if not isinstance(spec, FinetuneSpec):
        raise TypeError(f"spec must be a FinetuneSpec, got {type(spec).__name__}")
    _check_model_kw(model_kw)
    check_int("seed", seed, low=0)
    if not isinstance(data, (tuple, list)) or len(data) != 4:
        raise ValueError("data must be (x_train, y_train, x_test, y_test)")
    x, y, xt, yt = (t.to(device) for t in data)
    model = TinyClassifier(**model_kw, init_seed=0)
    model.load_state_dict(state)
    opt = _setup(method, model, spec, lrs, seed + 1)
    model.to(device)  # in place: the optimizer's parameter objects stay the same (no state exists yet)
    loader = iter(ReshuffleLoader(x.shape[0], spec.batch, seed=seed, drop_last=True))
    steps, accs = [0], [accuracy(model, xt, yt)]
    ce = nn.functional.cross_entropy
    for step in range(1, spec.steps + 1):
        idx = next(loader)
        xb, yb = x[idx], y[idx]
        if isinstance(opt, (MeZO, HybridZOFO)):

            def closure(need_grad: bool, xb: Tensor = xb, yb: Tensor = yb) -> Tensor:
                return ce(model(xb, validate=False), yb)

            try:
                opt.step(closure)
            except ValueError as err:  # the ZO estimate diverged: stop, keep the accuracy reached
                if "non-finite" not in str(err):
                    raise
                break
        else:
            opt.zero_grad(set_to_none=True)
            ce(model(xb, validate=False), yb).backward()
            opt.step()
        if step % spec.eval_every == 0 or step == spec.steps:
            steps.append(step)
            accs.append(accuracy(model, xt, yt))
    final = accuracy(model, xt, yt) if steps[-1] != spec.steps else accs[-1]
    for step in range(steps[-1] + 1, spec.steps + 1):  # after a divergence
        if step % spec.eval_every == 0 or step == spec.steps:
            steps.append(step)
            accs.append(final)
    return steps, accs
