"""Everything between an experiment and a verdict: budgets, claims, seeding, the runner, the store, the report."""

from iclr26.harness.budget import BUDGETS, DEFAULT_BUDGET, check_budget, is_judged
from iclr26.harness.claims import (
    Claim,
    Decider,
    Outcome,
    Verdict,
    all_of,
    decider,
    difference_at_least,
    fraction_of_seeds,
    guarded,
    mean_at_least,
    mean_at_most,
    never_exceeds,
    ratio_at_least,
)
from iclr26.harness.experiment import Curve, Experiment, Metrics
from iclr26.harness.progress import task, track
from iclr26.harness.seeding import resolve_device, seed_everything
from iclr26.harness.store import CorruptResultError, ResultStore, SeedResult

__all__ = [
    "BUDGETS",
    "DEFAULT_BUDGET",
    "Claim",
    "CorruptResultError",
    "Curve",
    "Decider",
    "Experiment",
    "Metrics",
    "Outcome",
    "ResultStore",
    "SeedResult",
    "Verdict",
    "all_of",
    "check_budget",
    "decider",
    "difference_at_least",
    "fraction_of_seeds",
    "guarded",
    "is_judged",
    "mean_at_least",
    "mean_at_most",
    "never_exceeds",
    "ratio_at_least",
    "resolve_device",
    "seed_everything",
    "task",
    "track",
]
