"""The small-model analogue: a GPT trained on in-context function tasks (off-by-one never seen), cached on disk."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor, nn

from iclr26.checks import check_float, check_int, check_tensor, check_token_ids
from iclr26.lab.training import train_cached
from iclr26.lab.transformer import Transformer
from iclr26.mechanisms.function_induction.tasks import Vocab, prompt_length, sample_training_batch

__all__ = ["FIModelConfig", "accuracy", "build_model", "train_model"]


@dataclass(frozen=True)
class FIModelConfig:
    """Size and training of the function-induction GPT (``shots`` demos per training row)."""

    d_model: int = 128
    n_layers: int = 4
    n_heads: int = 8
    shots: int = 8
    steps: int = 600
    batch: int = 32
    lr: float = 3e-3
    weight_decay: float = 0.01
    max_operand: int = 48

    def __post_init__(self) -> None:
        for name in ("d_model", "n_layers", "n_heads", "shots", "steps", "batch"):
            check_int(name, getattr(self, name), low=1)
        check_int("max_operand", self.max_operand, low=9, high=48)
        check_float("lr", self.lr, low=0.0, low_open=True)
        check_float("weight_decay", self.weight_decay, low=0.0)


def build_model(cfg: FIModelConfig, seed: int = 0) -> Transformer:
    """An untrained model of ``cfg``'s size over :class:`Vocab` (learned positions, GELU MLPs, tied embeddings)."""
    if not isinstance(cfg, FIModelConfig):
        raise TypeError(f"cfg must be a FIModelConfig, got {type(cfg).__name__}")
    check_int("seed", seed, low=0)
    return Transformer(
        vocab_size=Vocab().size,
        seq_len=prompt_length(cfg.shots) + 1,
        d_model=cfg.d_model,
        n_layers=cfg.n_layers,
        n_heads=cfg.n_heads,
        init_seed=seed,
    )


def _loss_fn(cfg: FIModelConfig, device: torch.device | str = "cpu"):
    eq = Vocab().token("=")

    def loss(model: nn.Module, gen: torch.Generator) -> Tensor:
        rng = np.random.default_rng(int(torch.randint(0, 2**31 - 1, (1,), generator=gen)))
        total = 0.0
        for tokens in sample_training_batch(cfg.batch, cfg.shots, rng, max_operand=cfg.max_operand).values():
            tokens = tokens.to(device)
            logits = model(tokens[:, :-1])
            mask = tokens[:, :-1] == eq  # the next token is a demo's (or the query's) answer
            total = total + nn.functional.cross_entropy(logits[mask], tokens[:, 1:][mask])
        return total / 3

    return loss


def train_model(cfg: FIModelConfig, seed: int, cache: bool = True, device: str = "cpu") -> Transformer:
    """Train (or load from the cache) the model for ``seed``; returned on ``device`` in eval mode. Batches and
    initial weights are drawn on the CPU; a run on another device is cached under its own key."""
    if not isinstance(cfg, FIModelConfig):
        raise TypeError(f"cfg must be a FIModelConfig, got {type(cfg).__name__}")
    check_int("seed", seed, low=0)

    return train_cached(
        "function_induction_gpt",
        cfg,
        seed,
        build_model,
        _loss_fn(cfg, device),
        steps=cfg.steps,
        lr=cfg.lr,
        weight_decay=cfg.weight_decay,
        description="function-induction GPT",
        cache=cache,
        device=device,
    )


@torch.no_grad()
def accuracy(model: nn.Module, tokens: Tensor, answers: Tensor) -> float:
    """Fraction of prompts whose next-token argmax (full vocabulary) at the last position is the answer."""
    check_tensor("tokens", tokens, floating=False)
    check_tensor("answers", answers, floating=False)
    if tokens.dim() != 2 or answers.shape != (tokens.shape[0],):
        raise ValueError(
            f"tokens must be (n, seq) and answers (n,), got {tuple(tokens.shape)} and {tuple(answers.shape)}"
        )
    last = model(tokens)[:, -1]
    check_token_ids("answers", answers, last.shape[-1])
    return float((last.argmax(-1) == answers.to(tokens.device)).float().mean())
