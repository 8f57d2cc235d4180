"""A character-level tiny GPT and its training loop: the shared bench of the optimizer papers.

The optimizer reproductions (RACS/Alice, COSMOS, ...) compare optimizers on the same small language-modelling
problem: the Python standard library's own sources as text (they ship with every interpreter, so nothing is
downloaded), a character vocabulary of about a hundred symbols, a 2-layer GPT with ``d_model = 128`` and
context 64 (~0.43M parameters), batch 16, and a cosine learning-rate schedule with linear warm-up.

Every hidden weight is a plain 2-D :class:`~torch.nn.Linear` matrix (separate q, k, v, o projections and a
GELU MLP), so matrix optimizers see the shapes they are designed for; embeddings, the positional table, the
untied output head, biases and norm gains are the "other" parameters of
:func:`iclr26.lab.param_groups.split_param_groups`.

``train`` is deterministic given ``seed`` and the model's initial weights: the training windows come from a
generator seeded by ``seed`` and the evaluation windows are one fixed set shared by every run, so curves of
different optimizers are compared on the same held-out text.

Example
-------
>>> import torch
>>> data = char_data(max_chars=200_000)
>>> model = TinyGPT(TinyGPTConfig(n_layers=1, d_model=32, n_heads=2, seq_len=32), data.vocab_size, init_seed=0)
>>> result = train(model, lambda m: torch.optim.AdamW(m.parameters(), lr=3e-3),
...                TrainConfig(steps=20, batch_size=8, eval_every=10, eval_batches=2), seed=0, data=data)
>>> result.eval_steps
[0, 10, 20]
>>> result.final_eval_loss < result.eval_losses[0]
True
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import torch
import torch.nn.functional as F
from torch import nn

from iclr26.checks import check_float, check_int, check_tensor, check_token_ids
from iclr26.harness.progress import task
from iclr26.lab.corpora import get_corpus, split_text

__all__ = [
    "CharData",
    "TinyGPT",
    "TinyGPTConfig",
    "TrainConfig",
    "TrainResult",
    "char_data",
    "cosine_warmup",
    "text_corpus",
    "train",
    "tune_lr",
]

EVAL_SEED = 1_000_003  # the one set of evaluation windows every run is scored on
UNK = "\x00"

OptimizerLike = torch.optim.Optimizer | Sequence[torch.optim.Optimizer]


@dataclass(frozen=True)
class CharData:
    """Encoded train/validation text and its character vocabulary (``vocab[0]`` is the unknown symbol)."""

    train: torch.Tensor
    val: torch.Tensor
    vocab: tuple[str, ...]

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    def decode(self, ids: Sequence[int] | torch.Tensor) -> str:
        return "".join(self.vocab[int(i)] for i in ids)


def text_corpus(max_chars: int = 1_500_000) -> str:
    """The raw training text of the bench: the installed Python standard library's ``.py`` sources."""
    check_int("max_chars", max_chars, low=1)
    return get_corpus("stdlib", max_chars=max_chars)


@lru_cache(maxsize=4)
def char_data(max_chars: int = 1_500_000, min_count: int = 50) -> CharData:
    """The standard-library source text, split 90/5/5 at chunk level (fixed), as character ids.

    Characters seen fewer than ``min_count`` times in the training split map to the unknown symbol, which keeps
    the vocabulary near a hundred symbols. The result is cached per argument pair within the process.
    """
    check_int("max_chars", max_chars, low=20_000)
    check_int("min_count", min_count, low=1)
    parts = split_text(text_corpus(max_chars), seed=0)
    counts = Counter(parts["train"])
    vocab = (UNK, *sorted(c for c, n in counts.items() if n >= min_count and c != UNK))
    index = {c: i for i, c in enumerate(vocab)}

    def encode(text: str) -> torch.Tensor:
        return torch.tensor([index.get(c, 0) for c in text], dtype=torch.long)

    return CharData(train=encode(parts["train"]), val=encode(parts["val"]), vocab=vocab)


@dataclass(frozen=True)
class TinyGPTConfig:
    """Shape of the tiny GPT (defaults: 2 layers, d_model 128, 4 heads, context 64, MLP 4x)."""

    n_layers: int = 2
    d_model: int = 128
    n_heads: int = 4
    seq_len: int = 64
    mlp_ratio: int = 4

    def __post_init__(self) -> None:
        for name in ("n_layers", "d_model", "n_heads", "seq_len", "mlp_ratio"):
            check_int(name, getattr(self, name), low=1)
        if self.d_model % self.n_heads:
            raise ValueError(f"d_model ({self.d_model}) must be divisible by n_heads ({self.n_heads})")


class _Block(nn.Module):
    def __init__(self, cfg: TinyGPTConfig) -> None:
        super().__init__()
        d = cfg.d_model
        self.n_heads = cfg.n_heads
        self.ln1 = nn.LayerNorm(d)
        self.q = nn.Linear(d, d, bias=False)
        self.k = nn.Linear(d, d, bias=False)
        self.v = nn.Linear(d, d, bias=False)
        self.o = nn.Linear(d, d, bias=False)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, cfg.mlp_ratio * d, bias=False)
        self.proj = nn.Linear(cfg.mlp_ratio * d, d, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        h = self.ln1(x)

        def heads(z: torch.Tensor) -> torch.Tensor:
            return z.view(b, t, self.n_heads, d // self.n_heads).transpose(1, 2)

        att = F.scaled_dot_product_attention(
            heads(self.q(h)), heads(self.k(h)), heads(self.v(h)), is_causal=True
        )
        x = x + self.o(att.transpose(1, 2).reshape(b, t, d))
        return x + self.proj(F.gelu(self.fc(self.ln2(x))))


class TinyGPT(nn.Module):
    """Pre-LN causal transformer over characters with learned positions and an untied output head."""

    def __init__(self, cfg: TinyGPTConfig, vocab_size: int, init_seed: int = 0) -> None:
        super().__init__()
        if not isinstance(cfg, TinyGPTConfig):
            raise TypeError(f"cfg must be a TinyGPTConfig, got {type(cfg).__name__}")
        check_int("vocab_size", vocab_size, low=2)
        self.cfg = cfg
        self.tok = nn.Embedding(vocab_size, cfg.d_model)
        self.pos = nn.Embedding(cfg.seq_len, cfg.d_model)
        self.blocks = nn.ModuleList(_Block(cfg) for _ in range(cfg.n_layers))
        self.ln_f = nn.LayerNorm(cfg.d_model)
        self.lm_head = nn.Linear(cfg.d_model, vocab_size, bias=False)
        gen = torch.Generator().manual_seed(check_int("init_seed", init_seed))
        with torch.no_grad():
            for name, p in self.named_parameters():
                if p.ndim == 2:
                    std = (
                        0.02 / math.sqrt(2 * cfg.n_layers)
                        if name.endswith(("o.weight", "proj.weight"))
                        else 0.02
                    )
                    p.copy_(torch.randn(p.shape, generator=gen) * std)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        """Logits of shape (B, T, vocab) for token ids of shape (B, T) with T <= seq_len."""
        check_tensor("idx", idx, floating=False)
        if idx.ndim != 2 or idx.shape[1] > self.cfg.seq_len:
            raise ValueError(f"idx must have shape (B, T<={self.cfg.seq_len}), got {tuple(idx.shape)}")
        check_token_ids("idx", idx, self.tok.num_embeddings)
        x = self.tok(idx) + self.pos(torch.arange(idx.shape[1], device=idx.device))
        for block in self.blocks:
            x = block(x)
        return self.lm_head(self.ln_f(x))


@dataclass(frozen=True)
class TrainConfig:
    """Training schedule: steps, batch, warm-up fraction of the cosine schedule, evaluation cadence, clipping."""

    steps: int = 350
    batch_size: int = 16
    warmup_frac: float = 0.1
    final_lr_frac: float = 0.0
    eval_every: int = 25
    eval_batches: int = 8
    grad_clip: float | None = 1.0

    def __post_init__(self) -> None:
        for name in ("steps", "batch_size", "eval_every", "eval_batches"):
            check_int(name, getattr(self, name), low=1)
        check_float("warmup_frac", self.warmup_frac, 0.0, 1.0, high_open=True)
        check_float("final_lr_frac", self.final_lr_frac, 0.0, 1.0)
        if self.grad_clip is not None:
            check_float("grad_clip", self.grad_clip, 0.0, low_open=True)


@dataclass
class TrainResult:
    """Curves and costs of one training run (``eval_losses[i]`` is measured after ``eval_steps[i]`` steps)."""

    eval_steps: list[int] = field(default_factory=list)
    eval_losses: list[float] = field(default_factory=list)
    train_losses: list[float] = field(default_factory=list)
    state_numel: int = 0
    seconds: float = 0.0
    diverged: bool = False

    @property
    def final_eval_loss(self) -> float:
        return self.eval_losses[-1] if self.eval_losses and not self.diverged else math.nan


def cosine_warmup(step: int, steps: int, warmup_frac: float = 0.1, final_frac: float = 0.0) -> float:
    """Learning-rate multiplier: linear warm-up over ``warmup_frac * steps``, then cosine to ``final_frac``.

    >>> [round(cosine_warmup(s, 10, 0.2), 3) for s in (0, 1, 2, 6, 10)]
    [0.5, 1.0, 1.0, 0.5, 0.0]
    """
    warm = max(1, int(round(warmup_frac * steps))) if warmup_frac > 0 else 0
    if step < warm:
        return (step + 1) / warm
    progress = (step - warm) / max(1, steps - warm)
    return final_frac + (1.0 - final_frac) * 0.5 * (1.0 + math.cos(math.pi * min(progress, 1.0)))


def _windows(
    data: torch.Tensor, n: int, seq_len: int, gen: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    starts = torch.randint(0, data.numel() - seq_len - 1, (n,), generator=gen)
    offsets = torch.arange(seq_len + 1)
    chunk = data[starts[:, None] + offsets]
    return chunk[:, :-1], chunk[:, 1:]


def _as_list(opt: OptimizerLike) -> list[torch.optim.Optimizer]:
    optimizers = [opt] if isinstance(opt, torch.optim.Optimizer) else list(opt)
    if not optimizers or not all(isinstance(o, torch.optim.Optimizer) for o in optimizers):
        raise TypeError("make_optimizer must return a torch.optim.Optimizer or a non-empty list of them")
    return optimizers


@torch.no_grad()
def evaluate(model: TinyGPT, data: CharData, batch_size: int, n_batches: int) -> float:
    """Mean next-character cross-entropy (nats) on the fixed evaluation windows."""
    gen = torch.Generator().manual_seed(EVAL_SEED)
    was_training = model.training
    model.eval()
    total = 0.0
    for _ in range(n_batches):
        x, y = _windows(data.val, batch_size, model.cfg.seq_len, gen)
        total += float(F.cross_entropy(model(x).flatten(0, 1), y.flatten()))
    model.train(was_training)
    return total / n_batches


def train(
    model: TinyGPT,
    make_optimizer: Callable[[nn.Module], OptimizerLike],
    train_cfg: TrainConfig,
    seed: int,
    data: CharData | None = None,
) -> TrainResult:
    """Train ``model`` in place with the optimizer(s) ``make_optimizer(model)`` returns; return its curves.

    The schedule multiplies each group's initial ``lr`` by :func:`cosine_warmup`; gradients are clipped to
    ``train_cfg.grad_clip`` in global norm. A non-finite training loss stops the run and marks it diverged
    (``final_eval_loss`` is then NaN). ``state_numel`` is measured after the last step.
    """
    from iclr26.lab.param_groups import state_numel

    if not isinstance(model, TinyGPT):
        raise TypeError(f"model must be a TinyGPT, got {type(model).__name__}")
    data = data if data is not None else char_data()
    optimizers = _as_list(make_optimizer(model))
    base = [[g["lr"] for g in o.param_groups] for o in optimizers]
    gen = torch.Generator().manual_seed(int(seed))
    result = TrainResult()
    params = [p for p in model.parameters() if p.requires_grad]
    t0 = time.perf_counter()
    result.eval_steps.append(0)
    result.eval_losses.append(evaluate(model, data, train_cfg.batch_size, train_cfg.eval_batches))
    model.train()
    with task("train tiny GPT", total=train_cfg.steps) as bar:
        for step in range(train_cfg.steps):
            mult = cosine_warmup(step, train_cfg.steps, train_cfg.warmup_frac, train_cfg.final_lr_frac)
            for o, lrs in zip(optimizers, base):
                for g, lr in zip(o.param_groups, lrs):
                    g["lr"] = lr * mult
            x, y = _windows(data.train, train_cfg.batch_size, model.cfg.seq_len, gen)
            loss = F.cross_entropy(model(x).flatten(0, 1), y.flatten())
            if not torch.isfinite(loss):
                result.diverged = True
                break
            for o in optimizers:
                o.zero_grad(set_to_none=True)
            loss.backward()
            if train_cfg.grad_clip is not None:
                torch.nn.utils.clip_grad_norm_(params, train_cfg.grad_clip)
            for o in optimizers:
                o.step()
            result.train_losses.append(float(loss.detach()))
            done = step + 1
            if done % train_cfg.eval_every == 0 or done == train_cfg.steps:
                ev = evaluate(model, data, train_cfg.batch_size, train_cfg.eval_batches)
                result.eval_steps.append(done)
                result.eval_losses.append(ev)
                if not math.isfinite(ev):
                    result.diverged = True
                    break
            bar.advance()
    for o, lrs in zip(optimizers, base):
        for g, lr in zip(o.param_groups, lrs):
            g["lr"] = lr
    result.state_numel = state_numel(optimizers)
    result.seconds = time.perf_counter() - t0
    return result


def tune_lr(
    make_optimizer_with_lr: Callable[[nn.Module, float], OptimizerLike],
    grid: Sequence[float],
    model_cfg: TinyGPTConfig,
    train_cfg: TrainConfig,
    seed: int,
    data: CharData | None = None,
) -> tuple[float, dict[float, float]]:
    """Pick the learning rate of ``grid`` with the lowest final eval loss on a tuning seed.

    Each candidate trains a fresh model initialised from ``seed``; diverged runs score NaN and are never picked.
    Returns ``(best_lr, {lr: final_eval_loss})``. Use a seed that the claim seeds never use.
    """
    grid = [float(lr) for lr in grid]
    if not grid or any(not lr > 0 for lr in grid):
        raise ValueError(f"grid must be a non-empty list of positive learning rates, got {grid!r}")
    data = data if data is not None else char_data()
    losses: dict[float, float] = {}
    for lr in grid:
        model = TinyGPT(model_cfg, data.vocab_size, init_seed=seed)
        losses[lr] = train(
            model, lambda m, lr=lr: make_optimizer_with_lr(m, lr), train_cfg, seed, data
        ).final_eval_loss
    finite = {lr: v for lr, v in losses.items() if math.isfinite(v)}
    if not finite:
        raise RuntimeError(f"every learning rate in the grid diverged: {grid}")
    return min(finite, key=finite.__getitem__), losses
