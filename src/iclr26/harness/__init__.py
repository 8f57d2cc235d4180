"""Everything between an experiment and a verdict: budgets, claims, seeding, the runner, the store, the report.

Names are imported on first use (PEP 562), so that `import iclr26.harness.budget` and the CLI start fast.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS: dict[str, str] = {
    "BUDGETS": "iclr26.harness.budget",
    "Claim": "iclr26.harness.claims",
    "Comparison": "iclr26.harness.claims",
    "CorruptResultError": "iclr26.harness.store",
    "Curve": "iclr26.harness.experiment",
    "DEFAULT_BUDGET": "iclr26.harness.budget",
    "Decider": "iclr26.harness.claims",
    "Experiment": "iclr26.harness.experiment",
    "Metrics": "iclr26.harness.experiment",
    "Outcome": "iclr26.harness.claims",
    "Precondition": "iclr26.harness.claims",
    "ResultStore": "iclr26.harness.store",
    "SeedResult": "iclr26.harness.store",
    "Verdict": "iclr26.harness.claims",
    "all_of": "iclr26.harness.claims",
    "check_budget": "iclr26.harness.budget",
    "column": "iclr26.harness.claims",
    "decider": "iclr26.harness.claims",
    "difference_at_least": "iclr26.harness.claims",
    "effect_at_least": "iclr26.harness.claims",
    "equivalent": "iclr26.harness.claims",
    "fraction_of_seeds": "iclr26.harness.claims",
    "guarded": "iclr26.harness.claims",
    "is_judged": "iclr26.harness.budget",
    "limited_threads": "iclr26.harness.threads",
    "k_of_n": "iclr26.harness.claims",
    "mean_at_least": "iclr26.harness.claims",
    "mean_at_most": "iclr26.harness.claims",
    "never_exceeds": "iclr26.harness.claims",
    "never_refutes": "iclr26.harness.claims",
    "non_inferior": "iclr26.harness.claims",
    "ratio_at_least": "iclr26.harness.claims",
    "resolve_device": "iclr26.harness.seeding",
    "seed_everything": "iclr26.harness.seeding",
    "seed_spread": "iclr26.harness.claims",
    "task": "iclr26.harness.progress",
    "track": "iclr26.harness.progress",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
