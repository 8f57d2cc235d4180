"""The budgets of the RACS/Alice reproduction (read by its experiment and by its learning-rate tuning)."""

from __future__ import annotations

from dataclasses import dataclass

from iclr26.lab.optim_bench import TinyGPTBenchConfig
from iclr26.optim.racs_alice.baselines import OPTIMIZER_NAMES

__all__ = ["CONFIGS", "RacsAliceConfig"]


@dataclass(frozen=True)
class RacsAliceConfig(TinyGPTBenchConfig):
    """One budget: model shape, schedule, Alice's rank/leading basis/switch interval, optimizers, lr table key."""

    rank: int = 16
    leading_basis: int = 4
    interval: int = 25
    optimizers: tuple[str, ...] = OPTIMIZER_NAMES


CONFIGS: dict[str, RacsAliceConfig] = {
    "smoke": RacsAliceConfig(
        n_layers=1,
        d_model=32,
        n_heads=2,
        seq_len=32,
        steps=15,
        batch_size=8,
        eval_every=5,
        eval_batches=2,
        rank=4,
        leading_basis=2,
        interval=5,
        max_chars=200_000,
    ),
    "quick": RacsAliceConfig(),
    "full": RacsAliceConfig(d_model=128, steps=350, rank=32, leading_basis=8, interval=50, lr_key="full"),
}
