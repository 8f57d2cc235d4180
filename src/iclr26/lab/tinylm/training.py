"""Training a tiny LM from scratch on the CPU: the corpus splits, the optimizer loop, the result."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import torch
from transformers import PreTrainedModel, PreTrainedTokenizerBase

from iclr26.harness.threads import limited_threads
from iclr26.lab.cache import BUILD_THREADS
from iclr26.lab.corpora import get_corpus, split_text, train_tokenizer
from iclr26.lab.tinylm.config import TinyLMConfig
from iclr26.lab.tinylm.evaluation import encode_text, evaluate_loss
from iclr26.lab.tinylm.model import build_model

__all__ = ["SPLIT_SEED", "VAL_WINDOWS", "Progress", "TrainedLM", "corpus_splits", "train_tiny_lm"]

VAL_WINDOWS = 64  # windows of seq_len tokens scored for TrainedLM.val_loss
SPLIT_SEED = 0  # the corpus split does not depend on cfg.seed: every seed sees the same held-out text
Progress = Callable[[int, int, float], None]


@dataclass
class TrainedLM:
    """A trained tiny LM with its tokenizer and training record.

    Attributes
    ----------
    model : transformers.PreTrainedModel
        In eval mode, on the CPU, float32.
    tokenizer : transformers.PreTrainedTokenizerBase
        Adds no special tokens when encoding; ``bos``/``eos``/``pad``/``unk`` are set.
    config : TinyLMConfig
    history : list of (int, float)
        ``(step, train_loss)`` for every optimizer step (steps count from 1).
    val_loss : float
        Mean token cross-entropy (nats) on :data:`VAL_WINDOWS` windows of the validation split.
    train_seconds : float
        Wall time of training (as recorded when the model was trained, also for a cached model).
    path : pathlib.Path or None
        The cache directory, when the model was saved to or loaded from one.

    Example
    -------
    >>> from iclr26.lab.tinylm import SMOKE_CONFIG
    >>> lm = train_tiny_lm(SMOKE_CONFIG)
    >>> len(lm.history) == lm.history[-1][0] == SMOKE_CONFIG.steps
    True
    """

    model: PreTrainedModel
    tokenizer: PreTrainedTokenizerBase
    config: TinyLMConfig
    history: list[tuple[int, float]]
    val_loss: float
    train_seconds: float = float("nan")
    path: Path | None = field(default=None)


def corpus_splits(cfg: TinyLMConfig) -> dict[str, str]:
    """The train/val/test texts a model with config ``cfg`` is (or was) trained and validated on.

    Use ``corpus_splits(cfg)["test"]`` for held-out evaluation in an experiment.

    Example
    -------
    >>> parts = corpus_splits(TinyLMConfig(corpus="arithmetic", corpus_chars=20_000))
    >>> sorted(parts)
    ['test', 'train', 'val']
    """
    try:
        return split_text(get_corpus(cfg.corpus, max_chars=cfg.corpus_chars), seed=SPLIT_SEED)
    except ValueError as exc:
        raise ValueError(
            f"corpus_chars={cfg.corpus_chars} is too small for corpus {cfg.corpus!r}: {exc}"
        ) from exc


def _lr_factor(step: int, cfg: TinyLMConfig) -> float:
    """Linear warmup to 1, then cosine decay to 0.1 at the last step."""
    if step < cfg.warmup_steps:
        return (step + 1) / cfg.warmup_steps
    progress = (step - cfg.warmup_steps) / max(1, cfg.steps - cfg.warmup_steps)
    return 0.1 + 0.9 * 0.5 * (1.0 + math.cos(math.pi * progress))


def train_tiny_lm(cfg: TinyLMConfig, progress: Progress | None = None) -> TrainedLM:
    """Train a tiny LM from scratch (no cache); deterministic given ``cfg.seed`` on the CPU: training runs on
    :data:`iclr26.lab.cache.BUILD_THREADS` threads whatever the caller's setting (float reductions depend on the
    thread count), so the cached pair is the same under any ``--jobs``.

    Parameters
    ----------
    cfg : TinyLMConfig
    progress : callable or None
        Called as ``progress(step, total, loss)`` after every optimizer step.

    Returns
    -------
    TrainedLM

    Example
    -------
    >>> from iclr26.lab.tinylm import SMOKE_CONFIG
    >>> lm = train_tiny_lm(SMOKE_CONFIG)
    >>> lm.val_loss > 0
    True
    """
    with limited_threads(BUILD_THREADS, blas=True):
        return _train_tiny_lm(cfg, progress)


def _train_tiny_lm(cfg: TinyLMConfig, progress: Progress | None) -> TrainedLM:
    started = time.perf_counter()
    splits = corpus_splits(cfg)
    tokenizer = train_tokenizer(splits["train"], vocab_size=cfg.vocab_size, kind=cfg.tokenizer)
    ids = encode_text(tokenizer, splits["train"])
    if len(ids) <= cfg.seq_len:
        raise ValueError(
            f"corpus_chars={cfg.corpus_chars} gives {len(ids)} training tokens, "
            f"fewer than seq_len={cfg.seq_len}; raise corpus_chars"
        )
    model = build_model(cfg, len(tokenizer))
    for target in (model.config, model.generation_config):
        target.bos_token_id = tokenizer.bos_token_id
        target.eos_token_id = tokenizer.eos_token_id
        target.pad_token_id = tokenizer.pad_token_id

    matrices = [p for p in model.parameters() if p.dim() >= 2]
    vectors = [p for p in model.parameters() if p.dim() < 2]
    groups = [
        {"params": matrices, "weight_decay": cfg.weight_decay},
        {"params": vectors, "weight_decay": 0.0},
    ]
    optimizer = torch.optim.AdamW(groups, lr=cfg.lr, betas=(0.9, 0.95), eps=1e-8)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: _lr_factor(step, cfg))
    generator = torch.Generator().manual_seed(cfg.seed)
    offsets = torch.arange(cfg.seq_len)

    history: list[tuple[int, float]] = []
    model.train()
    for step in range(cfg.steps):
        starts = torch.randint(0, len(ids) - cfg.seq_len + 1, (cfg.batch_size, 1), generator=generator)
        batch = ids[starts + offsets]  # (batch, seq_len); the model shifts labels by one internally
        loss = model(input_ids=batch, labels=batch, use_cache=False).loss
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        schedule.step()
        history.append((step + 1, loss.item()))
        if progress is not None:
            progress(step + 1, cfg.steps, history[-1][1])
    model.eval()
    val_loss = evaluate_loss(model, tokenizer, splits["val"], cfg.seq_len, VAL_WINDOWS)
    return TrainedLM(model, tokenizer, cfg, history, val_loss, train_seconds=time.perf_counter() - started)
