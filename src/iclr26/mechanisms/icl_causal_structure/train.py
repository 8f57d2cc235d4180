"""Training on fresh contexts of one fixed task, and the evaluation against BMA and the baselines.

Loss: cross-entropy on the query row's positions h >= 1 (0-based; position 0 has no parent), optionally also
on every example row r >= 1 (each predicted from the rows before it). A fresh batch of contexts every step,
Adam. The parent-selection loss of the disentangled model is ``L_pa = mean_h -log A2_h(pa(h))`` on the query
row, compared with BMA's ``mean_h -log w_h(pa(h))``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from iclr26.checks import check_bool, check_float, check_int, check_tensor
from iclr26.harness.progress import track
from iclr26.mechanisms.icl_causal_structure.causal_mc import (
    bma_predict,
    kl_divergence,
    log_loss,
    map_parent_predict,
    oracle_predict,
    previous_parent_predict,
    sample_contexts,
    uniform_parent_predict,
    unigram_predict,
)
from iclr26.mechanisms.icl_causal_structure.model import DisentangledRPETransformer

__all__ = ["TrainConfig", "evaluate", "parent_selection_loss", "train"]

BASELINES = ("uniform_parent", "previous_parent", "unigram")


@dataclass(frozen=True)
class TrainConfig:
    """Optimisation settings: steps, batch, Adam learning rate and its schedule, loss rows, logging interval.

    ``schedule="cosine"``: linear warm-up over ``warmup`` steps, then cosine decay to zero at ``steps``;
    ``"constant"``: the learning rate stays at ``lr`` (after the warm-up, if any).
    """

    steps: int = 1500
    batch: int = 64
    lr: float = 1e-2
    all_examples: bool = False
    log_every: int = 25
    schedule: str = "constant"
    warmup: int = 0

    def __post_init__(self) -> None:
        check_int("steps", self.steps, low=1)
        check_int("batch", self.batch, low=1)
        check_float("lr", self.lr, low=0.0, low_open=True)
        check_int("log_every", self.log_every, low=1)
        check_bool("all_examples", self.all_examples)
        if self.schedule not in ("constant", "cosine"):
            raise ValueError(f"schedule must be 'constant' or 'cosine', got {self.schedule!r}")
        check_int("warmup", self.warmup, low=0)

    def lr_factor(self, step: int) -> float:
        """Multiplier of ``lr`` at 0-based `step`."""
        warm = min(1.0, (step + 1) / self.warmup) if self.warmup else 1.0
        if self.schedule == "constant":
            return warm
        return warm * 0.5 * (1.0 + math.cos(math.pi * min(step, self.steps) / self.steps))


def parent_selection_loss(attn: Tensor, parents: Tensor) -> Tensor:
    """Mean over contexts and positions h >= 1 of ``-log attn[b, h, parents[b, h]]`` (attn: (B, H, H))."""
    check_tensor("attn", attn, ndim=3, floating=True)
    check_tensor("parents", parents, floating=False, shape=tuple(attn.shape[:2]))
    if parents.numel() and (int(parents.min()) < -1 or int(parents.max()) >= attn.shape[-1]):
        raise ValueError(
            f"parents must hold positions < {attn.shape[-1]} (and >= -1, -1: no parent), "
            f"got values in [{int(parents.min())}, {int(parents.max())}]"
        )
    pa = parents[:, 1:].clamp_min(0)
    picked = attn[:, 1:].gather(-1, pa[..., None]).squeeze(-1)
    return -torch.log(picked.to(torch.float64).clamp_min(1e-300)).mean()


def _loss(model: nn.Module, tokens: Tensor, all_examples: bool) -> Tensor:
    if not all_examples and isinstance(model, DisentangledRPETransformer):
        lg = model.query_logits(tokens)[:, 1:]  # the query row alone (same numbers, ~1 / (L + 1) the cost)
        return nn.functional.cross_entropy(lg.reshape(-1, lg.shape[-1]), tokens[:, -1, 1:].reshape(-1))
    logits = model(tokens)
    rows = slice(1, None) if all_examples else slice(-1, None)
    lg = logits[:, rows, 1:]
    return nn.functional.cross_entropy(lg.reshape(-1, lg.shape[-1]), tokens[:, rows, 1:].reshape(-1))


def train(
    model: nn.Module, pi: Tensor, cfg: TrainConfig, seed: int, L: int, H: int
) -> dict[str, list[float]]:
    """Train `model` in place on fresh contexts; return logged curves (step, loss, and L_pa for TF vs BMA).

    Contexts are drawn on the CPU and moved to the model's device; BMA and L_pa are computed on the CPU.
    """
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be an nn.Module, got {type(model).__name__}")
    if not isinstance(cfg, TrainConfig):
        raise TypeError(f"cfg must be a TrainConfig, got {type(cfg).__name__}")
    check_int("seed", seed, low=0)
    torch.manual_seed(seed)
    device = next(model.parameters()).device
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, cfg.lr_factor)
    log: dict[str, list[float]] = {"step": [], "loss": [], "lpa_tf": [], "lpa_bma": []}
    disentangled = isinstance(model, DisentangledRPETransformer)
    probe, probe_pa = sample_contexts(pi, 256, L, H, seed=10_000_019 + seed)
    probe_w, _ = bma_predict(probe, pi)
    lpa_bma = float(parent_selection_loss(probe_w, probe_pa))
    for step in track(range(cfg.steps), description=f"train seed {seed}"):
        tokens, _ = sample_contexts(pi, cfg.batch, L, H, seed=1_000_003 * (seed + 1) + step)
        loss = _loss(model, tokens.to(device), cfg.all_examples)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if step % cfg.log_every == 0 or step == cfg.steps - 1:
            log["step"].append(float(step + 1))
            log["loss"].append(float(loss.detach()))
            if disentangled:
                with torch.no_grad():
                    attn = model.layer2_attention(probe.to(device)).cpu()
                    log["lpa_tf"].append(float(parent_selection_loss(attn, probe_pa)))
                log["lpa_bma"].append(lpa_bma)
    return log


@torch.no_grad()
def evaluate(model: nn.Module, pi: Tensor, n: int, seed: int, L: int, H: int) -> dict[str, object]:
    """Query-row metrics on `n` fresh contexts (positions h >= 1).

    Returns scalars (KL(BMA || ·) and log-loss of the model and every baseline, L_pa of model and BMA) and
    per-position KL curves, plus one example context for the figures.
    """
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be an nn.Module, got {type(model).__name__}")
    check_int("n", n, low=1)
    check_int("seed", seed, low=0)
    device = next(model.parameters()).device
    tokens, parents = sample_contexts(pi, n, L, H, seed=seed)
    w, p_bma = bma_predict(tokens, pi)
    if isinstance(model, DisentangledRPETransformer):
        logits = model.query_logits(tokens.to(device))
    else:
        logits = model(tokens.to(device))[:, -1]
    logits = logits.cpu().to(torch.float64)
    preds = {
        "tf": torch.softmax(logits, -1),
        "oracle": oracle_predict(tokens, parents, pi),
        "map_parent": map_parent_predict(tokens, pi),
        "uniform_parent": uniform_parent_predict(tokens, pi),
        "previous_parent": previous_parent_predict(tokens, pi),
        "unigram": unigram_predict(tokens, pi),
        "bma": p_bma,
    }
    target = tokens[:, -1]
    values: dict[str, float] = {}
    kl_pos: dict[str, list[float]] = {}
    for name, pred in preds.items():
        kl = kl_divergence(p_bma[:, 1:], pred[:, 1:])
        values[f"kl_{name}"] = float(kl.mean())
        values[f"logloss_{name}"] = float(log_loss(pred[:, 1:], target[:, 1:]).mean())
        kl_pos[name] = kl.mean(0).tolist()
    values["kl_best_baseline"] = min(values[f"kl_{b}"] for b in BASELINES)
    values["kl_ratio"] = values["kl_tf"] / max(values["kl_best_baseline"], 1e-300)
    values["lpa_bma"] = float(parent_selection_loss(w, parents))
    values["posterior_true_parent"] = float(w[:, 1:].gather(-1, parents[:, 1:, None]).mean())
    example: dict[str, object] = {}
    if isinstance(model, DisentangledRPETransformer):
        attn = model.layer2_attention(tokens.to(device)).cpu()
        values["lpa_tf"] = float(parent_selection_loss(attn, parents))
        values["lpa_gap"] = values["lpa_tf"] - values["lpa_bma"]
        values["attn_true_parent"] = float(attn[:, 1:].gather(-1, parents[:, 1:, None]).mean())
        values["attn_posterior_l1"] = float((attn[:, 1:].to(torch.float64) - w[:, 1:]).abs().sum(-1).mean())
        example = {"attention": attn[0].tolist(), "posterior": w[0].tolist(), "parents": parents[0].tolist()}
    return {"values": values, "kl_by_position": kl_pos, "example": example}
