"""Run an experiment over seeds: seed, time, measure memory, store each seed as it finishes, judge.

A rerun skips every seed whose stored result has the same config, so a run interrupted after k seeds resumes
from there. Verdicts are computed from whatever seeds the store holds; smoke runs are never judged.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from iclr26.harness.budget import check_budget, is_judged
from iclr26.harness.claims import Claim, Outcome, Verdict
from iclr26.harness.executors import Executor, LocalExecutor, SeedTask
from iclr26.harness.experiment import Experiment
from iclr26.harness.registry import get_experiment
from iclr26.harness.seeding import resolve_device
from iclr26.harness.store import ResultStore, SeedResult

__all__ = ["ClaimVerdict", "PlannedRun", "Summary", "judge", "plan", "reproduce", "usable"]


@dataclass(frozen=True)
class ClaimVerdict:
    claim: Claim
    verdict: Verdict


@dataclass
class PlannedRun:
    """Which seeds of (slug, budget) are already stored and which must run."""

    slug: str
    budget: str
    seeds: list[int]
    done: list[int]
    todo: list[int]
    corrupt: list[str] = field(default_factory=list)


@dataclass
class Summary:
    slug: str
    budget: str
    results: list[SeedResult]
    ran: list[int] = field(default_factory=list)
    skipped: list[int] = field(default_factory=list)
    verdicts: list[ClaimVerdict] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def judge(experiment: Experiment, budget: str, results: Sequence[SeedResult]) -> list[ClaimVerdict]:
    """Verdict per claim from the stored seeds; smoke budgets are reported as not judged."""
    rows = [r.metrics for r in results]
    out = []
    for claim in experiment.claims:
        needs, without = experiment.requirement_gaps(claim, budget)
        if not is_judged(budget):
            verdict = Verdict(Outcome.NOT_JUDGED, f"{budget} runs only check that the code path works")
        elif needs or without:
            why = []
            if needs:
                flags = " ".join(f"--{f.replace('_', '-')} ..." for f in needs)
                why.append(f"it needs {', '.join(needs)} set (iclr26 reproduce ... {flags})")
            if without:
                why.append(f"it is measured only without {', '.join(without)} (the offline run)")
            verdict = Verdict(Outcome.NOT_JUDGED, "not measured by this run: " + "; ".join(why))
        else:
            verdict = claim.judge(rows)
        out.append(ClaimVerdict(claim, verdict))
    return out


def usable(
    experiment: Experiment, budget: str, results: Sequence[SeedResult]
) -> tuple[list[SeedResult], list[str]]:
    """The stored seeds a verdict may use: of the current config, with every claim metric present and finite.

    Two kinds of absence are by design, not a defect of one seed, and exclude nothing: a metric some claim's rule
    declares it handles when non-finite (``allow_nonfinite``, e.g. an optional baseline that is not installed),
    and a metric that no seed of the current config has (not measured at this budget; the claim says so).
    Returns the seeds kept and one sentence per excluded seed (the reason), so nothing is dropped silently.
    """
    config = experiment.config_dict(budget)
    current = [r for r in results if r.config == config]
    why = [
        f"{r.slug} {budget} seed {r.seed} was run with another config; it is not judged"
        for r in results
        if r.config != config
    ]
    if not is_judged(budget):
        return current, why
    allowed = set().union(*(c.allow_nonfinite for c in experiment.claims))
    measured = {m for r in current for m in r.metrics}
    needed = [m for m in experiment.claim_metrics_for(budget) if m not in allowed and m in measured]
    keep = []
    for r in current:
        bad = [
            m
            for m in needed
            if not isinstance(r.metrics.get(m), (int, float)) or not math.isfinite(r.metrics[m])
        ]
        if bad:
            why.append(f"{r.slug} {budget} seed {r.seed} lacks finite claim metric(s) {', '.join(bad)}")
            continue
        keep.append(r)
    return keep, why


def plan(experiment: Experiment, budget: str, store: ResultStore, n_seeds: int | None = None) -> PlannedRun:
    """Split seeds ``0..n-1`` into those stored usably (see :func:`usable`) and those to run (again)."""
    check_budget(budget)
    n = experiment.seeds[budget] if n_seeds is None else n_seeds
    if n < 1:
        raise ValueError(f"seeds must be >= 1, got {n}")
    store.clean_stale_temp(experiment.slug, budget)
    loaded = store.load(experiment.slug, budget)
    good, _ = usable(experiment, budget, loaded.results)
    stored = {r.seed for r in good}
    seeds = list(range(n))
    return PlannedRun(
        experiment.slug,
        budget,
        seeds,
        [s for s in seeds if s in stored],
        [s for s in seeds if s not in stored],
        [f"{e}; the seed is run again" for e in loaded.errors],
    )


def reproduce(
    slugs: Sequence[str],
    budget: str = "quick",
    n_seeds: int | None = None,
    device: str = "auto",
    store: ResultStore | None = None,
    executor: Executor | None = None,
    on_result: Callable[[dict[str, Any]], None] | None = None,
    rerun: bool = False,
    overrides: Mapping[str, Any] | None = None,
) -> list[Summary]:
    """Run every missing seed of every slug, store each as it finishes, and judge.

    Results are written by this process the moment each seed finishes, whichever executor ran it, so an
    interruption loses at most the seeds in flight. ``rerun=True`` runs every seed again, stored or not.
    ``overrides`` change the budget's config for this run (``Experiment.with_config``; e.g. an LLM endpoint):
    stored seeds of another config are not reused, and the verdict reads only seeds of the changed config.
    """
    store = store or ResultStore()
    executor = executor or LocalExecutor()
    changes = tuple(sorted((overrides or {}).items()))
    experiments = {slug: get_experiment(slug) for slug in slugs}
    if changes:
        experiments = {s: e.with_config(budget, **dict(changes)) for s, e in experiments.items()}
    devices = {slug: resolve_device(device, exp.devices, slug) for slug, exp in experiments.items()}
    plans = {slug: plan(exp, budget, store, n_seeds) for slug, exp in experiments.items()}
    if rerun:  # every seed again, whatever is stored (the code changed, the config did not)
        plans = {
            s: PlannedRun(p.slug, p.budget, p.seeds, [], list(p.seeds), p.corrupt) for s, p in plans.items()
        }
    tasks = [
        SeedTask(slug, budget, seed, devices[slug], changes) for slug, p in plans.items() for seed in p.todo
    ]
    for record in executor.run(tasks):
        store.write(record)
        if on_result is not None:
            on_result(record)
    summaries = []
    for slug, exp in experiments.items():
        loaded = store.load(slug, budget)
        wanted = set(plans[slug].seeds)
        results, excluded = usable(exp, budget, [r for r in loaded.results if r.seed in wanted])
        summaries.append(
            Summary(
                slug,
                budget,
                results,
                ran=plans[slug].todo,
                skipped=plans[slug].done,
                verdicts=judge(exp, budget, results),
                errors=plans[slug].corrupt + [str(e) for e in loaded.errors] + excluded,
            )
        )
    return summaries
