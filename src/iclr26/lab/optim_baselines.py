"""The library baselines every tiny-GPT optimizer comparison trains, and the shared learning-rate tuning loop.

Baselines (no weight decay anywhere: short runs, the comparison is about the update rule); each builder returns
what :func:`iclr26.lab.tinygpt.train` accepts, one optimizer or a list of them:

- ``adamw``: :class:`torch.optim.AdamW`, betas (0.9, 0.999), on every parameter;
- ``muon``: :class:`torch.optim.Muon` (momentum 0.95, Nesterov, 5 Newton-Schulz steps, ``match_rms_adamw`` lr
  scaling so that one lr serves both parts) on the hidden matrices plus AdamW on everything else;
- ``soap``: ``pytorch_optimizer.SOAP`` (betas (0.95, 0.95), preconditioner refreshed every 10 steps) on every
  parameter;
- ``galore``: ``pytorch_optimizer.GaLore`` with rank-r projections refreshed every ``update_proj_gap`` steps
  (scale 0.25, ``std`` projection) on the hidden matrices and plain Adam on the rest.

Tuning (:func:`tune_lrs`): one grid per optimizer on a held-out tuning seed, slid along a ladder by
:func:`~iclr26.lab.optim_bench.ladder_search` while its winner sits on an edge; :func:`write_tuned_lrs` freezes
the records in a paper's ``tuned_lrs.json``, keyed by budget.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import torch
from pytorch_optimizer import SOAP, GaLore
from torch import nn

from iclr26.checks import check_choice
from iclr26.harness.experiment import to_jsonable
from iclr26.harness.progress import track
from iclr26.harness.store import atomic_write_text
from iclr26.lab.optim_bench import ladder_search, model_config, train_config
from iclr26.lab.param_groups import split_param_groups
from iclr26.lab.threads import limited_threads
from iclr26.lab.tinygpt import char_data, tune_lr

__all__ = [
    "BASELINE_NAMES",
    "adamw",
    "baseline",
    "galore",
    "muon",
    "same_setting",
    "soap",
    "read_tuned_lrs",
    "tune_lrs",
    "write_tuned_lrs",
]

BASELINE_NAMES = ("adamw", "muon", "soap", "galore")

Built = torch.optim.Optimizer | list[torch.optim.Optimizer]


def adamw(model: nn.Module, lr: float) -> torch.optim.Optimizer:
    """AdamW (betas 0.9, 0.999, no weight decay) on every parameter of ``model``."""
    return torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0)


def soap(model: nn.Module, lr: float) -> torch.optim.Optimizer:
    """``pytorch_optimizer.SOAP`` (preconditioner refreshed every 10 steps, no weight decay) on every parameter."""
    return SOAP(model.parameters(), lr=lr, weight_decay=0.0, precondition_frequency=10)


def muon(model: nn.Module, lr: float) -> list[torch.optim.Optimizer]:
    """Muon (``match_rms_adamw`` lr scaling) on the hidden matrices, AdamW at the same lr on the rest."""
    matrices, others = split_param_groups(model)
    opts: list[torch.optim.Optimizer] = [
        torch.optim.Muon(matrices, lr=lr, weight_decay=0.0, adjust_lr_fn="match_rms_adamw")
    ]
    if others:
        opts.append(torch.optim.AdamW(others, lr=lr, weight_decay=0.0))
    return opts


def galore(model: nn.Module, lr: float, rank: int, update_proj_gap: int) -> torch.optim.Optimizer:
    """``pytorch_optimizer.GaLore``: rank-``rank`` projections of the hidden matrices, refreshed every
    ``update_proj_gap`` steps (scale 0.25), and plain Adam on the other parameters."""
    matrices, others = split_param_groups(model)
    groups = [
        {
            "params": matrices,
            "rank": rank,
            "update_proj_gap": update_proj_gap,
            "scale": 0.25,
            "projection_type": "std",
        },
        {"params": others},
    ]
    return GaLore([g for g in groups if g["params"]], lr=lr, weight_decay=0.0)


def baseline(name: str, model: nn.Module, lr: float, rank: int, galore_interval: int) -> Built:
    """Baseline ``name`` (one of :data:`BASELINE_NAMES`) over ``model``; ``rank`` and ``galore_interval`` are
    GaLore's projection rank and refresh interval (ignored by the others)."""
    if name == "adamw":
        return adamw(model, lr)
    if name == "soap":
        return soap(model, lr)
    if name == "muon":
        return muon(model, lr)
    if name == "galore":
        return galore(model, lr, rank, galore_interval)
    raise ValueError(f"name must be one of {BASELINE_NAMES}, got {name!r}")


def same_setting(a: Mapping[str, Any], b: Mapping[str, Any], ignore: Sequence[str] = ()) -> bool:
    """Two JSON configs train identically, up to the keys in ``ignore`` (e.g. the list of optimizers)."""
    return {k: v for k, v in a.items() if k not in ignore} == {k: v for k, v in b.items() if k not in ignore}


def tune_lrs(
    budget: str,
    cfg: Any,
    names: Sequence[str],
    build: Callable[[str, Mapping[str, float]], Callable[[nn.Module, float], Any]],
    grids: Mapping[str, Sequence[float]],
    ladder: Sequence[float],
    max_windows: int,
    tuning_seed: int,
    *,
    pick: str = "best_in_window",
    previous: Mapping[str, Any] | None = None,
    reuse: str = "points",
    ignore: Sequence[str] = (),
) -> dict[str, Any]:
    """Tune every optimizer of ``names`` (in that order) for budget config ``cfg`` on ``tuning_seed``; return the
    JSON-ready record ``{"tuning_seed", "config", "grids", "final_eval_loss", "lrs"}``.

    ``build(name, lrs_so_far)`` gives the ``(model, lr) -> optimizer`` factory of ``name`` (``lrs_so_far`` holds
    the winners of the optimizers tuned before it). ``pick`` is ``"best_in_window"`` (the last window's winner)
    or ``"best_overall"`` (the best point measured anywhere). ``previous`` (an earlier record of the same budget)
    is reused when its tuning seed is the same and its config trains the same (:func:`same_setting`, up to
    ``ignore``): ``reuse="points"`` lends its measured grid points, ``reuse="optimizers"`` its finished
    optimizers whole.
    """
    check_choice("pick", pick, ("best_in_window", "best_overall"))
    check_choice("reuse", reuse, ("points", "optimizers"))
    data = char_data(max_chars=cfg.max_chars)
    config = to_jsonable(cfg)
    usable = (
        previous is not None
        and previous.get("tuning_seed") == tuning_seed
        and same_setting(previous.get("config", {}), config, ignore)
    )
    prior: Mapping[str, Any] = previous if usable and previous else {}
    lrs: dict[str, float] = {}
    losses: dict[str, dict[str, float]] = {}
    tried: dict[str, list[list[float]]] = {}
    with limited_threads(1):
        for name in track(list(names), description=f"tune lrs ({budget})"):
            if reuse == "optimizers" and name in prior.get("lrs", {}):
                lrs[name] = float(prior["lrs"][name])
                losses[name] = prior["final_eval_loss"][name]
                tried[name] = prior["grids"][name]
                continue
            factory = build(name, dict(lrs))
            known = prior.get("final_eval_loss", {}).get(name, {}) if reuse == "points" else {}
            search = ladder_search(
                lambda new, factory=factory: tune_lr(
                    factory, new, model_config(cfg), train_config(cfg), tuning_seed, data
                )[1],
                grids[name],
                ladder,
                max_windows,
                known,
            )
            tried[name], losses[name], lrs[name] = search.grids, search.losses, getattr(search, pick)
    return {
        "tuning_seed": tuning_seed,
        "config": config,
        "grids": tried,
        "final_eval_loss": losses,
        "lrs": lrs,
    }


def read_tuned_lrs(path: Path, key: str) -> dict[str, float]:
    """The frozen learning rates of budget ``key`` in the table at ``path`` (``{optimizer: lr}``; a paper may keep
    extra entries, such as a ``fallback`` rate)."""
    table = json.loads(path.read_text()) if path.exists() else {}
    if key not in table:
        raise KeyError(f"no tuned learning rates for {key!r} in {path.name}; have {sorted(table)}")
    return {k: float(v) for k, v in table[key]["lrs"].items()}


def write_tuned_lrs(
    path: Path, budgets: Sequence[str], tune: Callable[[str, dict[str, Any] | None], dict[str, Any]]
) -> None:
    """Regenerate the entries of ``budgets`` (default: quick) in the table at ``path``, one
    ``tune(budget, previous_record)`` each, writing the table after every budget."""
    table = json.loads(path.read_text()) if path.exists() else {}
    for budget in budgets or ["quick"]:
        table[budget] = tune(budget, table.get(budget))
        atomic_write_text(path, json.dumps(table, indent=2) + "\n")
