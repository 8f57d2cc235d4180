"""Training data and loops of the FARTrack reproduction (ICLR 2026, arXiv 2602.03214).

* :func:`make_training_data`: frame-level pairs (template crop at the GT box of frame i, factor 2; search crop at
  a jittered GT box of a frame j within ``max_gap``, factor 4; the target box in the search crop) and sequence-level
  clips (L templates from increasing frames, then K consecutive search frames), rendered once and cached.
* :func:`train_frame_level`: the self-distillation loss over the exits (one exit: plain CE + SIoU, the from-scratch
  baseline), or the manual-pair feature-distillation baseline against a frozen teacher.
* :func:`train_sequence_level`: FARTrack's sparsification stage: in each clip the first search frame runs unmasked,
  its attention decides the mask (:class:`InterFrameSparsifier`), and the later frames run with that mask.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from iclr26.lab.cache import cached_torch
from iclr26.science.fartrack.boxes import box_to_crop, crop, crop_window, quantize
from iclr26.science.fartrack.losses import feature_distill_loss, self_distill_loss
from iclr26.science.fartrack.model import ARTracker
from iclr26.science.fartrack.sparsify import InterFrameSparsifier
from iclr26.science.fartrack.tracker import frames_to_tensor, normalize
from iclr26.science.fartrack.video import VideoConfig, make_sequences

__all__ = ["DataConfig", "TrainConfig", "make_training_data", "train_frame_level", "train_sequence_level"]


@dataclass(frozen=True)
class DataConfig:
    """What the cached training samples depend on."""

    n_sequences: int = 400
    length: int = 40
    pairs_per_sequence: int = 24
    clips_per_sequence: int = 0
    n_templates: int = 3
    clip_frames: int = 3
    max_gap: int = 10
    center_jitter: float = 2.0
    scale_jitter: float = 0.25
    template_factor: float = 2.0
    search_factor: float = 4.0
    template_size: int = 24
    search_size: int = 48
    seed: int = 2602_03214
    video: VideoConfig = field(default_factory=VideoConfig)


@dataclass(frozen=True)
class TrainConfig:
    steps: int = 1200
    batch: int = 16
    lr: float = 2e-3
    weight_decay: float = 1e-4
    warmup: int = 30
    clip_norm: float = 1.0


def _jittered(box: torch.Tensor, cfg: DataConfig, gen: torch.Generator) -> torch.Tensor:
    """OSTrack-style jitter: size * exp(N(0, s)), centre + sqrt(w h) * c * (U - 1/2)."""
    wh = box[:, 2:] * torch.exp(torch.randn(box.shape[0], 2, generator=gen) * cfg.scale_jitter)
    c = box[:, :2] + box[:, 2:] / 2
    off = (
        wh.prod(1, keepdim=True).sqrt()
        * cfg.center_jitter
        * (torch.rand(box.shape[0], 2, generator=gen) - 0.5)
    )
    c = c + off
    return torch.cat([c - wh / 2, wh], 1)


def _to_u8(x: torch.Tensor) -> torch.Tensor:
    return (x.clamp(0, 1) * 255).round().to(torch.uint8)


def _build(cfg: DataConfig) -> dict[str, torch.Tensor]:
    """Render every training sequence once; draw the frame-level pairs and (if asked) the clips from it."""
    gen = torch.Generator().manual_seed(cfg.seed)
    L, K = cfg.n_templates, cfg.clip_frames
    out: dict[str, list[torch.Tensor]] = {k: [] for k in ("z", "x", "b", "cz", "cx", "cb")}
    for seq in make_sequences(cfg.n_sequences, cfg.length, cfg.seed, cfg.video):
        frames, _ = frames_to_tensor(seq.frames())
        boxes = torch.as_tensor(seq.boxes)
        n = cfg.pairs_per_sequence
        i = torch.randint(0, cfg.length, (n,), generator=gen)
        j = (i + torch.randint(-cfg.max_gap, cfg.max_gap + 1, (n,), generator=gen)).clamp(0, cfg.length - 1)
        out["z"].append(
            _to_u8(crop(frames[i], crop_window(boxes[i], cfg.template_factor), cfg.template_size))
        )
        xw = crop_window(_jittered(boxes[j], cfg, gen), cfg.search_factor)
        out["x"].append(_to_u8(crop(frames[j], xw, cfg.search_size)))
        out["b"].append(box_to_crop(boxes[j], xw))
        for _ in range(cfg.clips_per_sequence):
            last = int(torch.randint(L - 1, cfg.length - K, (1,), generator=gen))
            older = torch.randperm(last, generator=gen)[: L - 1].sort().values
            t_idx = torch.cat([older, torch.tensor([last])])
            zw = crop_window(boxes[t_idx], cfg.template_factor)
            out["cz"].append(_to_u8(crop(frames[t_idx], zw, cfg.template_size)))
            s_idx = torch.arange(last + 1, last + 1 + K)
            xw = crop_window(_jittered(boxes[s_idx], cfg, gen), cfg.search_factor)
            out["cx"].append(_to_u8(crop(frames[s_idx], xw, cfg.search_size)))
            out["cb"].append(box_to_crop(boxes[s_idx], xw))
    data = {"templates": torch.cat(out["z"]), "search": torch.cat(out["x"]), "boxes": torch.cat(out["b"])}
    if cfg.clips_per_sequence:
        data.update(
            clip_templates=torch.stack(out["cz"]),
            clip_search=torch.stack(out["cx"]),
            clip_boxes=torch.stack(out["cb"]),
        )
    return data


def make_training_data(cfg: DataConfig, cache: bool = True) -> dict[str, torch.Tensor]:
    """Frame-level pairs: ``templates`` (N, 3, t, t) uint8, ``search`` (N, 3, s, s) uint8, ``boxes`` (N, 4) crop
    xyxy; with ``clips_per_sequence`` also clips: ``clip_templates`` (M, L, 3, t, t), ``clip_search``
    (M, K, 3, s, s), ``clip_boxes`` (M, K, 4). Built once per config and cached (``iclr26.lab.cache``)."""
    return cached_torch("fartrack-train", cfg, lambda: _build(cfg), cache=cache)


def _float(x: torch.Tensor) -> torch.Tensor:
    return normalize(x.float().flatten(0, x.ndim - 4) / 255.0).reshape(*x.shape[:-3], *x.shape[-3:])


def _optimizer(
    model: torch.nn.Module, cfg: TrainConfig
) -> tuple[torch.optim.Optimizer, torch.optim.lr_scheduler.LRScheduler]:
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    total = max(cfg.steps, 1)

    def factor(step: int) -> float:  # linear warm-up, cosine decay
        if step < cfg.warmup:
            return (step + 1) / cfg.warmup
        return 0.5 * (1 + np.cos(np.pi * (step - cfg.warmup) / max(total - cfg.warmup, 1)))

    return opt, torch.optim.lr_scheduler.LambdaLR(opt, factor)


def train_frame_level(
    model: ARTracker,
    data: dict[str, torch.Tensor],
    cfg: TrainConfig,
    seed: int,
    teacher: ARTracker | None = None,
    w_feat: float = 1.0,
) -> list[float]:
    """Train on frame-level pairs (1 template); returns the loss per step.

    All exits of ``model`` get CE + SIoU and adjacent exits the KL term (self-distillation; a model with one exit
    is the from-scratch baseline). With ``teacher`` the loss adds ``w_feat`` x the manual-pair feature MSE
    (student block i vs teacher block 2i) and only the last exit is supervised.
    """
    gen = torch.Generator().manual_seed(seed)
    opt, sched = _optimizer(model, cfg)
    model.train()
    bins, rng = model.bins, model.coord_range
    losses = []
    n = data["boxes"].shape[0]
    for _ in range(cfg.steps):
        idx = torch.randint(0, n, (cfg.batch,), generator=gen)
        z, x = _float(data["templates"][idx])[:, None], _float(data["search"][idx])
        tokens = quantize(data["boxes"][idx], bins, rng)
        if teacher is None:
            loss, _ = self_distill_loss(model(z, x), tokens, coord_range=rng)
        else:
            hidden = model(z, x, return_hidden=True)
            logits = [model.head(hidden[-1])]
            with torch.no_grad():
                t_hidden = teacher(z, x, return_hidden=True)
            loss, _ = self_distill_loss(logits, tokens, coord_range=rng)
            loss = loss + w_feat * feature_distill_loss(hidden, t_hidden)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.clip_norm)
        opt.step()
        sched.step()
        losses.append(float(loss.detach()))
    return losses


def train_sequence_level(
    model: ARTracker, data: dict[str, torch.Tensor], cfg: TrainConfig, seed: int, ratio: float = 0.25
) -> list[float]:
    """FARTrack's sparsification stage on clips: frame 1 unmasked, its attention picks the mask (``ratio`` of every
    older template), frames 2..K run masked; CE + SIoU (+ KL across exits) summed over the clip's frames."""
    gen = torch.Generator().manual_seed(seed)
    opt, sched = _optimizer(model, cfg)
    model.train()
    sp = InterFrameSparsifier(ratio, search_grid=model.search_size // model.patch)
    L = data["clip_templates"].shape[1]
    n = data["clip_boxes"].shape[0]
    losses = []
    for _ in range(cfg.steps):
        idx = torch.randint(0, n, (cfg.batch,), generator=gen)
        z = _float(data["clip_templates"][idx])
        xs, boxes = _float(data["clip_search"][idx]), data["clip_boxes"][idx]
        total, mask = 0.0, None
        for k in range(xs.shape[1]):
            out = model(z, xs[:, k], key_padding_mask=mask)
            loss, _ = self_distill_loss(
                out, quantize(boxes[:, k], model.bins, model.coord_range), coord_range=model.coord_range
            )
            total = total + loss / xs.shape[1]
            if mask is None:
                mask = sp.update(model.attention_maps(), L)
        opt.zero_grad(set_to_none=True)
        total.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.clip_norm)
        opt.step()
        sched.step()
        losses.append(float(total.detach()))
    return losses
