"""The budgets of the COSMOS reproduction (read by its experiment and by its learning-rate tuning)."""

from __future__ import annotations

from dataclasses import dataclass

from iclr26.lab.optim_bench import TinyGPTBenchConfig

__all__ = ["BASE_OPTIMIZERS", "CONFIGS", "CosmosConfig"]

BASE_OPTIMIZERS = ("adamw", "muon", "soap", "galore", "adam_mini", "cosmos")


@dataclass(frozen=True)
class CosmosConfig(TinyGPTBenchConfig):
    """One budget of the COSMOS reproduction (model, schedule, optimizers, rank, which tuned lrs to use)."""

    rank: int = 8
    optimizers: tuple[str, ...] = BASE_OPTIMIZERS
    rank_sweep: tuple[int, ...] = ()


CONFIGS: dict[str, CosmosConfig] = {
    "smoke": CosmosConfig(
        n_layers=1,
        d_model=32,
        n_heads=2,
        seq_len=32,
        steps=12,
        batch_size=8,
        eval_every=6,
        eval_batches=2,
        rank=4,
        optimizers=("adamw", "muon", "soap", "galore", "cosmos"),
        max_chars=200_000,
    ),
    "quick": CosmosConfig(),
    "full": CosmosConfig(d_model=128, steps=350, rank=16, rank_sweep=(4, 8, 32), lr_key="full"),
}
