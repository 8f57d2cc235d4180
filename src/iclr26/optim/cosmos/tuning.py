"""Learning-rate tuning of the COSMOS reproduction: one 3-point grid per optimizer on a held-out tuning seed.

When the winner sits on an edge of its grid, the grid is shifted by one point of the half-decade ladder and
tuned again (at most twice), so that no baseline is left at a learning rate the grid merely cut off. The winners
are frozen in ``tuned_lrs.json`` next to this file, keyed by budget, together with the grids, every
grid point's final eval loss, the tuning seed and the model/training config they were measured on. The claim
seeds (0, 1, 2, ...) never see tuning. Regenerate with ``python -m iclr26.optim.cosmos.tuning quick``.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from iclr26.harness.experiment import to_jsonable
from iclr26.harness.progress import track
from iclr26.lab.optim_bench import ladder_search
from iclr26.lab.threads import limited_threads
from iclr26.lab.tinygpt import char_data, tune_lr
from iclr26.optim.cosmos.baselines import OPTIMIZER_NAMES, make_optimizer
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
    from iclr26.optim.cosmos.experiment import EXPERIMENT, model_config, train_config

    cfg = EXPERIMENT.config(budget)
    names = tuple(optimizers or cfg.optimizers)
    unknown = [n for n in names if n not in OPTIMIZER_NAMES]
    if unknown:
        raise ValueError(f"optimizers must be among {OPTIMIZER_NAMES}, got {unknown}")
    data = char_data(max_chars=cfg.max_chars)
    reuse = (
        previous is not None
        and previous.get("config") == to_jsonable(cfg)
        and previous.get("tuning_seed") == TUNING_SEED
    )
    known: dict[str, dict[str, float]] = previous.get("final_eval_loss", {}) if reuse and previous else {}
    lrs: dict[str, float] = {}
    losses: dict[str, dict[str, float]] = {}
    grids: dict[str, list[list[float]]] = {}
    with limited_threads(1):
        for name in track(names, description=f"tune lrs ({budget})"):
            search = ladder_search(
                lambda new, name=name: tune_lr(
                    lambda m, lr, name=name: make_optimizer(name, m, lr, rank=cfg.rank),
                    new,
                    model_config(cfg),
                    train_config(cfg),
                    TUNING_SEED,
                    data,
                )[1],
                GRIDS[name],
                LADDER,
                MAX_WINDOWS,
                known.get(name, {}),
            )
            grids[name], losses[name], lrs[name] = search.grids, search.losses, search.best_in_window
    return {
        "tuning_seed": TUNING_SEED,
        "config": to_jsonable(cfg),
        "grids": grids,
        "final_eval_loss": losses,
        "lrs": lrs,
    }


def main(argv: list[str]) -> None:
    """Regenerate the entries of the budgets named in ``argv`` (default: quick) in ``tuned_lrs.json``."""
    budgets = argv or ["quick"]
    table = json.loads(TUNED_LRS_PATH.read_text()) if TUNED_LRS_PATH.exists() else {}
    for budget in budgets:
        table[budget] = tune_budget(budget, previous=table.get(budget))
        TUNED_LRS_PATH.write_text(json.dumps(table, indent=2) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
