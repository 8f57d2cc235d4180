"""Learning-rate tuning of the RACS/Alice reproduction: one 3-point grid per optimizer on a held-out tuning seed.

AdamW is tuned first; its winner becomes the AdamW ``fallback_lr`` of the non-matrix parameters under RACS and
Alice, whose own grids then tune only the matrix lr. When a winner sits on an edge of its grid, the grid is
shifted once by one point of the half-decade ladder and the new points are measured. Winners, every grid and
every grid point's final eval loss, the tuning seed and the config are frozen in ``tuned_lrs.json`` next to this
file, keyed by budget. The claim seeds (0, 1, 2, ...) never see tuning. Regenerate with
``python -m iclr26.optim.racs_alice.tuning quick``.
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
from iclr26.optim.racs_alice.baselines import OPTIMIZER_NAMES, make_optimizer
from iclr26.optim.racs_alice.tuned_lrs import TUNED_LRS_PATH, load_tuned_lrs

__all__ = ["GRIDS", "LADDER", "TUNED_LRS_PATH", "TUNING_SEED", "load_tuned_lrs", "tune_budget"]

TUNING_SEED = 20_011
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


def _same_setting(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Two configs train identically (they may differ in the list of optimizers compared)."""
    return {k: v for k, v in a.items() if k != "optimizers"} == {
        k: v for k, v in b.items() if k != "optimizers"
    }


def tune_budget(
    budget: str, optimizers: tuple[str, ...] | None = None, previous: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Tune every optimizer of ``budget``'s config on :data:`TUNING_SEED`; return the JSON-ready record.

    ``previous`` (an earlier record of the same budget) lends its finished optimizers when its tuning seed and
    training setting are the same, so adding an optimizer does not rerun the others.
    """
    from iclr26.optim.racs_alice.experiment import EXPERIMENT, model_config, train_config

    cfg = EXPERIMENT.config(budget)
    names = tuple(optimizers or cfg.optimizers)
    unknown = [n for n in names if n not in OPTIMIZER_NAMES]
    if unknown:
        raise ValueError(f"optimizers must be among {OPTIMIZER_NAMES}, got {unknown}")
    if "adamw" in names:
        names = ("adamw", *[n for n in names if n != "adamw"])
    data = char_data(max_chars=cfg.max_chars)
    lrs: dict[str, float] = {}
    losses: dict[str, dict[str, float]] = {}
    grids: dict[str, list[list[float]]] = {}
    reuse = (
        previous is not None
        and previous.get("tuning_seed") == TUNING_SEED
        and _same_setting(previous.get("config", {}), to_jsonable(cfg))
    )
    with limited_threads(1):
        for name in track(names, description=f"tune lrs ({budget})"):
            if reuse and previous and name in previous.get("lrs", {}):
                lrs[name] = float(previous["lrs"][name])
                losses[name] = previous["final_eval_loss"][name]
                grids[name] = previous["grids"][name]
                continue
            fallback = lrs.get("adamw", GRIDS["adamw"][1])
            search = ladder_search(  # the grid, plus one shift when the winner sits on an edge
                lambda new, name=name, fb=fallback: tune_lr(
                    lambda m, lr: make_optimizer(name, m, lr, fb, cfg.rank, cfg.leading_basis, cfg.interval),
                    new,
                    model_config(cfg),
                    train_config(cfg),
                    TUNING_SEED,
                    data,
                )[1],
                GRIDS[name],
                LADDER,
                2,
            )
            grids[name], losses[name], lrs[name] = search.grids, search.losses, search.best_overall
    lrs["fallback"] = lrs.get("adamw", GRIDS["adamw"][1])
    return {
        "tuning_seed": TUNING_SEED,
        "config": to_jsonable(cfg),
        "grids": grids,
        "final_eval_loss": losses,
        "lrs": lrs,
    }


def main(argv: list[str]) -> None:
    """Regenerate the entries of the budgets named in ``argv`` (default: quick) in ``tuned_lrs.json``."""
    table = json.loads(TUNED_LRS_PATH.read_text()) if TUNED_LRS_PATH.exists() else {}
    for budget in argv or ["quick"]:
        table[budget] = tune_budget(budget, previous=table.get(budget))
        TUNED_LRS_PATH.write_text(json.dumps(table, indent=2) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
