"""The tiny GPT trained from scratch on binding lists (loss on the answer token only), cached on disk."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor, nn

from iclr26.checks import check_float, check_int
from iclr26.lab.training import train_cached
from iclr26.lab.transformer import Transformer
from iclr26.mechanisms.entity_binding.binding import VOCAB_SIZE, prompt_length, sample_training_batch

__all__ = ["GPTConfig", "build_gpt", "train_binding_gpt"]


@dataclass(frozen=True)
class GPTConfig:
    """Size and training of the binding GPT; prompts have ``n`` uniform in ``n_min..n_max``."""

    d_model: int = 128
    n_layers: int = 4
    n_heads: int = 4
    n_min: int = 2
    n_max: int = 12
    filler_max: int = 3
    steps: int = 1400
    batch: int = 64
    lr: float = 2e-3
    weight_decay: float = 0.01

    def __post_init__(self) -> None:
        for name in ("d_model", "n_layers", "n_heads", "steps", "batch"):
            check_int(name, getattr(self, name), low=1)
        check_int("n_min", self.n_min, low=2)
        check_int("n_max", self.n_max, low=self.n_min)
        check_int("filler_max", self.filler_max, low=0)
        check_float("lr", self.lr, low=0.0, low_open=True)
        check_float("weight_decay", self.weight_decay, low=0.0)


def build_gpt(cfg: GPTConfig, seed: int = 0) -> Transformer:
    """An untrained model of ``cfg``'s size (learned absolute positions, GELU MLPs, tied embeddings)."""
    if not isinstance(cfg, GPTConfig):
        raise TypeError(f"cfg must be a GPTConfig, got {type(cfg).__name__}")
    check_int("seed", seed, low=0)
    return Transformer(
        vocab_size=VOCAB_SIZE,
        seq_len=prompt_length(cfg.n_max, cfg.filler_max),
        d_model=cfg.d_model,
        n_layers=cfg.n_layers,
        n_heads=cfg.n_heads,
        init_seed=seed,
    )


def _loss_fn(cfg: GPTConfig, device: torch.device | str = "cpu"):
    def loss(model: nn.Module, gen: torch.Generator) -> Tensor:
        rng = np.random.default_rng(int(torch.randint(0, 2**31 - 1, (1,), generator=gen)))
        n = int(rng.integers(cfg.n_min, cfg.n_max + 1))
        filler = int(rng.integers(0, cfg.filler_max + 1))
        tokens, answers = sample_training_batch(cfg.batch, n, rng, filler)  # drawn on the CPU, then moved
        return nn.functional.cross_entropy(model(tokens.to(device))[:, -1], answers.to(device))

    return loss


def train_binding_gpt(cfg: GPTConfig, seed: int, cache: bool = True, device: str = "cpu") -> Transformer:
    """Train (or load from the cache) the binding GPT for ``seed`` on ``device``; returned there, in eval mode.

    The initial weights and the training batches are drawn on the CPU and moved, so the CPU run is the reference;
    a run on another device is cached under its own key (its floating-point result differs).
    """
    if not isinstance(cfg, GPTConfig):
        raise TypeError(f"cfg must be a GPTConfig, got {type(cfg).__name__}")
    check_int("seed", seed, low=0)

    return train_cached(
        "entity_binding_gpt",
        cfg,
        seed,
        build_gpt,
        _loss_fn(cfg, device),
        steps=cfg.steps,
        lr=cfg.lr,
        weight_decay=cfg.weight_decay,
        description="entity-binding GPT",
        cache=cache,
        device=device,
    )
