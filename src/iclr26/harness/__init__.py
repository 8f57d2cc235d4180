"""Everything between an experiment and a verdict: budgets, claims, seeding, the runner, the store, the report."""

from iclr26.harness.budget import BUDGETS, DEFAULT_BUDGET, check_budget, is_judged
from iclr26.harness.claims import (
    Claim,
    Comparison,
    Decider,
    Outcome,
    Precondition,
    Verdict,
    all_of,
    decider,
    difference_at_least,
    effect_at_least,
    equivalent,
    fraction_of_seeds,
    guarded,
    k_of_n,
    mean_at_least,
    mean_at_most,
    never_exceeds,
    non_inferior,
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
    "Comparison",
    "CorruptResultError",
    "Curve",
    "Decider",
    "Experiment",
    "Metrics",
    "Outcome",
    "Precondition",
    "ResultStore",
    "SeedResult",
    "Verdict",
    "all_of",
    "check_budget",
    "decider",
    "difference_at_least",
    "effect_at_least",
    "equivalent",
    "fraction_of_seeds",
    "guarded",
    "is_judged",
    "k_of_n",
    "mean_at_least",
    "mean_at_most",
    "never_exceeds",
    "non_inferior",
    "ratio_at_least",
    "resolve_device",
    "seed_everything",
    "task",
    "track",
]
