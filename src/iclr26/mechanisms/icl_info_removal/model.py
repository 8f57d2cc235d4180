"""The tiny GPT analogue of the denoising-heads reproduction: trained on the multi-task ICL family, cached.

The model is the shared :class:`iclr26.lab.transformer.Transformer` (pre-LN, GELU MLP, learned positions, tied
unembedding), trained with :func:`iclr26.lab.training.train_loop` on fresh sequences of
:func:`~iclr26.mechanisms.icl_info_removal.task.training_sequences`. Trained weights are cached per config hash
by :func:`iclr26.lab.cache.cached_torch` (``$ICLR26_CACHE`` else the user cache directory; atomic writes).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import torch

from iclr26.checks import check_float, check_int
from iclr26.lab.cache import cached_torch
from iclr26.lab.training import sequence_loss, train_loop
from iclr26.lab.transformer import Transformer
from iclr26.mechanisms.icl_info_removal.task import TaskFamily, training_sequences

__all__ = ["GPTConfig", "build_model", "train_icl_model"]


@dataclass(frozen=True)
class GPTConfig:
    """Model and training sizes of the analogue."""

    d_model: int = 128
    n_layers: int = 4
    n_heads: int = 4
    max_shots: int = 8
    steps: int = 1250
    batch: int = 64
    lr: float = 3e-3
    weight_decay: float = 0.01

    def __post_init__(self) -> None:
        for name in ("d_model", "n_layers", "n_heads", "steps", "batch"):
            check_int(name, getattr(self, name), low=1)
        check_int("max_shots", self.max_shots, low=0)
        check_float("lr", self.lr, low=0.0, low_open=True)
        check_float("weight_decay", self.weight_decay, low=0.0)


def _check_args(cfg: object, family: object) -> None:
    if not isinstance(cfg, GPTConfig):
        raise TypeError(f"cfg must be a GPTConfig, got {type(cfg).__name__}")
    if not isinstance(family, TaskFamily):
        raise TypeError(f"family must be a TaskFamily, got {type(family).__name__}")


def build_model(cfg: GPTConfig, family: TaskFamily, init_seed: int) -> Transformer:
    """An untrained GPT for `family` (sequence length 2 * max_shots + 1)."""
    _check_args(cfg, family)
    check_int("init_seed", init_seed, low=0)
    return Transformer(
        vocab_size=family.vocab_size,
        seq_len=2 * cfg.max_shots + 1,
        d_model=cfg.d_model,
        n_layers=cfg.n_layers,
        n_heads=cfg.n_heads,
        init_seed=init_seed,
    )


def train_icl_model(
    cfg: GPTConfig, family: TaskFamily, seed: int, use_cache: bool = True, device: str = "cpu"
) -> tuple[Transformer, list[float]]:
    """Train (or load from cache) the analogue for `seed` on `device`; returns the model in eval mode (on
    `device`) and its loss curve. Weights are initialised and batches drawn on the CPU, then moved, so the CPU
    run does not depend on the device code path."""
    _check_args(cfg, family)
    check_int("seed", seed, low=0)
    model = build_model(cfg, family, init_seed=7919 * seed + 1).to(device)

    def train() -> dict:
        def loss_fn(m: torch.nn.Module, gen: torch.Generator) -> torch.Tensor:
            x, y = training_sequences(family, cfg.batch, cfg.max_shots, gen)
            return sequence_loss(m(x.to(device)), y.to(device))

        res = train_loop(
            model,
            loss_fn,
            steps=cfg.steps,
            lr=cfg.lr,
            seed=seed,
            weight_decay=cfg.weight_decay,
            description="train ICL GPT",
        )
        state = {k: v.detach().cpu() for k, v in model.state_dict().items()}
        return {"state": state, "losses": torch.tensor(res.losses)}

    key = {"cfg": asdict(cfg), "table": family.label_table.tolist(), "seed": seed}
    if device != "cpu":  # a model trained on another device is a different model; CPU keys are unchanged
        key["device"] = str(device)
    blob = cached_torch("icl_info_removal", key, train, cache=use_cache)
    model.load_state_dict(blob["state"])
    return model.eval(), [float(v) for v in blob["losses"]]
