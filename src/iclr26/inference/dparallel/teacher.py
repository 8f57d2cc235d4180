"""The dParallel reproduction's teacher: a tiny MDLM trained on the symbol task, cached by config hash.

The teacher is :class:`iclr26.lab.masked_diffusion.MaskedDiffusionTransformer` trained with
:func:`iclr26.lab.masked_diffusion.train_mdlm` (continuous-time NELBO, prompt never masked). Its weights and its
self-distillation data (its own one-token-per-call answers to training prompts) are saved together under
``<cache>/dparallel/<config key>.pt`` by :func:`iclr26.lab.cache.cached_torch` (atomic write; ``<cache>`` is
``$ICLR26_CACHE`` else the platform user cache dir, as for :mod:`iclr26.lab.tinylm`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import torch
from torch import Tensor

from iclr26.inference.dparallel.distill import self_distill_dataset
from iclr26.inference.dparallel.task import SymbolTask
from iclr26.lab.cache import cache_file, cached_torch
from iclr26.lab.masked_diffusion import MaskedDiffusionTransformer, train_mdlm

__all__ = ["TeacherConfig", "build_teacher", "load_or_train_teacher", "teacher_cache_file"]

FORMAT = 1


@dataclass(frozen=True)
class TeacherConfig:
    """Everything that determines the teacher and its distillation data (hashed for the cache)."""

    task: SymbolTask = SymbolTask()
    block_size: int = 8
    d_model: int = 64
    n_layers: int = 2
    n_heads: int = 4
    steps: int = 600
    lr: float = 2e-3
    batch_size: int = 64
    seed: int = 0
    n_distill: int = 1024


def teacher_cache_file(cfg: TeacherConfig, cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """``<cache>/dparallel/<config key>.pt`` (see :mod:`iclr26.lab.cache`)."""
    return cache_file("dparallel", cfg, cache_dir, version=FORMAT)


def build_teacher(cfg: TeacherConfig) -> MaskedDiffusionTransformer:
    """An untrained denoiser of the configured size (weights from ``cfg.seed``)."""
    t = cfg.task
    return MaskedDiffusionTransformer(
        t.n_tokens, t.seq_len, cfg.d_model, cfg.n_layers, cfg.n_heads, init_seed=cfg.seed
    )


def _train(cfg: TeacherConfig) -> tuple[MaskedDiffusionTransformer, Tensor, list[float]]:
    t = cfg.task
    model = build_teacher(cfg)
    maskable = torch.zeros(cfg.batch_size, t.seq_len, dtype=torch.bool)
    maskable[:, t.prompt_len :] = True

    def batch_fn(gen: torch.Generator) -> tuple[Tensor, Tensor]:
        prompts, answers = t.sample(cfg.batch_size, gen)
        return torch.cat([prompts, answers], dim=1), maskable

    res = train_mdlm(model, batch_fn, steps=cfg.steps, lr=cfg.lr, seed=cfg.seed, description="MDLM teacher")
    model.eval()
    prompts, _ = t.sample(cfg.n_distill, torch.Generator().manual_seed(10_000 + cfg.seed))
    data = self_distill_dataset(model, prompts, t.gen_len, cfg.block_size)
    return model, data.ids, res.losses


def load_or_train_teacher(
    cfg: TeacherConfig, cache: bool = True, cache_dir: str | os.PathLike[str] | None = None
) -> tuple[MaskedDiffusionTransformer, Tensor, list[float]]:
    """The trained teacher, its distillation ids (n_distill, seq_len) and its training losses (cached)."""

    def train() -> dict[str, Tensor]:
        model, ids, losses = _train(cfg)
        return {"state": model.state_dict(), "distill": ids, "losses": torch.tensor(losses)}

    blob = cached_torch("dparallel", cfg, train, cache=cache, cache_dir=cache_dir, version=FORMAT)
    model = build_teacher(cfg)
    model.load_state_dict(blob["state"])
    return model.eval(), blob["distill"], [float(v) for v in blob["losses"]]
