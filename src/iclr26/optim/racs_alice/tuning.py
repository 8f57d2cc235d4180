"""Learning-rate tuning of the RACS/Alice reproduction: one 3-point grid per optimizer on a held-out tuning seed.

AdamW is tuned first; its winner becomes the AdamW ``fallback_lr`` of the non-matrix parameters under RACS and
Alice, whose own grids then tune only the matrix lr. When a winner sits on an edge of its grid, the grid is
shifted once by one point of the half-decade ladder and the new points are measured. Winners, every grid and
every grid point's final eval loss, the tuning seed and the config are frozen in ``tuned_lrs.json`` next to this
file, keyed by budget. The claim seeds (0, 1, 2, ...) never see tuning. The loop is
:func:`iclr26.lab.optim_baselines.tune_lrs`; this file holds the paper's grids, seed and fallback rule.
Regenerate with ``python -m iclr26.optim.racs_alice.tuning quick``.
"""

from __future__ import annotations

import sys
from typing import Any

from iclr26.harness.budget import check_budget
from iclr26.lab.optim_baselines import tune_lrs, write_tuned_lrs
from iclr26.optim.racs_alice.baselines import OPTIMIZER_NAMES, make_optimizer
from iclr26.optim.racs_alice.config import CONFIGS
from iclr26.optim.racs_alice.tuned_lrs import TUNED_LRS_PATH, load_tuned_lrs

__all__ = ["GRIDS", "LADDER", "TUNED_LRS_PATH", "TUNING_SEED", "load_tuned_lrs", "tune_budget"]

TUNING_SEED = 20_011
MAX_WINDOWS = 2  # the grid plus one shift
LADDER = (1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1e-1, 3e-1, 1.0, 3.0)
GRIDS: dict[str, tuple[float, float, float]] = {
    "adamw": (1e-3, 3e-3, 1e-2),
    "muon": (3e-3, 1e-2, 3e-2),
    # RACS moves each entry by about lr * alpha (alpha = 0.05) per step, Alice by lr * alpha (alpha = 0.3)
    "racs": (1e-1, 3e-1, 1.0),
    "racs_mean": (1e-1, 3e-1, 1.0),
    "alice": (1e-2, 3e-2, 1e-1),
    "galore": (3e-3, 1e-2, 3e-2),
    "soap": (3e-3, 1e-2, 3e-2),
}


def tune_budget(
    budget: str, optimizers: tuple[str, ...] | None = None, previous: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Tune every optimizer of ``budget``'s config on :data:`TUNING_SEED`; return the JSON-ready record.

    ``previous`` (an earlier record of the same budget) lends its finished optimizers when its tuning seed and
    training setting are the same, so adding an optimizer does not rerun the others.
    """
    cfg = CONFIGS[check_budget(budget)]
    names = tuple(optimizers or cfg.optimizers)
    unknown = [n for n in names if n not in OPTIMIZER_NAMES]
    if unknown:
        raise ValueError(f"optimizers must be among {OPTIMIZER_NAMES}, got {unknown}")
    if "adamw" in names:
        names = ("adamw", *[n for n in names if n != "adamw"])

    def build(name: str, lrs: dict[str, float]):  # noqa: ANN202
        fallback = lrs.get("adamw", GRIDS["adamw"][1])
        return lambda m, lr: make_optimizer(name, m, lr, fallback, cfg.rank, cfg.leading_basis, cfg.interval)

    record = tune_lrs(
        budget,
        cfg,
        names,
        build,
        GRIDS,
        LADDER,
        MAX_WINDOWS,
        TUNING_SEED,
        pick="best_overall",
        previous=previous,
        reuse="optimizers",
        ignore=("optimizers",),
    )
    record["lrs"]["fallback"] = record["lrs"].get("adamw", GRIDS["adamw"][1])
    return record


def main(argv: list[str]) -> None:
    """Regenerate the entries of the budgets named in ``argv`` (default: quick) in ``tuned_lrs.json``."""
    write_tuned_lrs(TUNED_LRS_PATH, argv, lambda budget, previous: tune_budget(budget, previous=previous))


if __name__ == "__main__":
    main(sys.argv[1:])
