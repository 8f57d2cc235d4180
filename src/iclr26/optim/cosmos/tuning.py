"""Learning-rate tuning of the COSMOS reproduction: one 3-point grid per optimizer on a held-out tuning seed.

When the winner sits on an edge of its grid, the grid is shifted by one point of the half-decade ladder and
tuned again (at most twice), so that no baseline is left at a learning rate the grid merely cut off. The winners
are frozen in ``tuned_lrs.json`` next to this file, keyed by budget, together with the grids, every
grid point's final eval loss, the tuning seed and the model/training config they were measured on. The claim
seeds (0, 1, 2, ...) never see tuning. The loop is :func:`iclr26.lab.optim_baselines.tune_lrs`; this file holds
the paper's grids and seed. Regenerate with ``python -m iclr26.optim.cosmos.tuning quick``.
"""

from __future__ import annotations

import sys
from typing import Any

from iclr26.harness.budget import check_budget
from iclr26.lab.optim_baselines import tune_lrs, write_tuned_lrs
from iclr26.optim.cosmos.baselines import OPTIMIZER_NAMES, make_optimizer
from iclr26.optim.cosmos.config import CONFIGS
from iclr26.optim.cosmos.tuned_lrs import TUNED_LRS_PATH, load_tuned_lrs

__all__ = ["GRIDS", "LADDER", "TUNED_LRS_PATH", "TUNING_SEED", "load_tuned_lrs", "tune_budget"]

TUNING_SEED = 10_007
MAX_WINDOWS = 3  # the first grid plus at most two shifts
LADDER = (1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1e-1, 3e-1)  # half-decade steps; every grid is a window of it
GRIDS: dict[str, tuple[float, float, float]] = {
    "adamw": (1e-3, 3e-3, 1e-2),
    "muon": (1e-3, 3e-3, 1e-2),
    "soap": (1e-3, 3e-3, 1e-2),
    "galore": (1e-3, 3e-3, 1e-2),
    "adam_mini": (1e-3, 3e-3, 1e-2),
    # hidden matrices move by RMS lr * 0.1 per step, so COSMOS's base lr sits higher
    "cosmos": (3e-3, 1e-2, 3e-2),
}


def tune_budget(
    budget: str, optimizers: tuple[str, ...] | None = None, previous: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Tune every optimizer of ``budget``'s config on :data:`TUNING_SEED`; return the JSON-ready record.

    ``previous`` (an earlier record of the same budget) lends its measured grid points when its config and
    tuning seed are the same, so that extending a grid does not rerun the points already measured.
    """
    cfg = CONFIGS[check_budget(budget)]
    names = tuple(optimizers or cfg.optimizers)
    unknown = [n for n in names if n not in OPTIMIZER_NAMES]
    if unknown:
        raise ValueError(f"optimizers must be among {OPTIMIZER_NAMES}, got {unknown}")
    return tune_lrs(
        budget,
        cfg,
        names,
        lambda name, _lrs: lambda m, lr: make_optimizer(name, m, lr, rank=cfg.rank),
        GRIDS,
        LADDER,
        MAX_WINDOWS,
        TUNING_SEED,
        pick="best_in_window",
        previous=previous,
        reuse="points",
    )


def main(argv: list[str]) -> None:
    """Regenerate the entries of the budgets named in ``argv`` (default: quick) in ``tuned_lrs.json``."""
    write_tuned_lrs(TUNED_LRS_PATH, argv, lambda budget, previous: tune_budget(budget, previous=previous))


if __name__ == "__main__":
    main(sys.argv[1:])
