"""The three budgets every experiment defines: ``smoke`` (seconds, in the test suite), ``quick`` (the default,
minutes on 2 CPU cores, where verdicts come from) and ``full`` (the paper-like setting, meant for a GPU)."""

from __future__ import annotations

BUDGETS: tuple[str, ...] = ("smoke", "quick", "full")
DEFAULT_BUDGET = "quick"
JUDGED_BUDGETS: tuple[str, ...] = ("quick", "full")


def check_budget(budget: str) -> str:
    """Return `budget` if it is known, else raise ValueError naming the valid choices."""
    if budget not in BUDGETS:
        raise ValueError(f"unknown budget {budget!r}; choose one of {', '.join(BUDGETS)}")
    return budget


def is_judged(budget: str) -> bool:
    """Smoke runs only prove that the code path works; they are never judged."""
    return check_budget(budget) in JUDGED_BUDGETS
