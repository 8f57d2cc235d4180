"""``iclr26 verify``: rerun the reference seeds into a temporary store and compare them with the shipped ones.

Per paper: each seed's metrics must equal the reference, exactly or within the experiment's declared
``tolerance`` (relative, for platform-dependent numerics: ``|new - ref| <= tol * max(1, |ref|)``, NaN equal to
NaN), and every verdict recomputed from the new seeds must equal the reference verdict. Curves are not compared
(the shipped ones are thinned); claims read metrics only.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field

from iclr26.harness.executors import Executor, LocalExecutor
from iclr26.harness.reference import REFERENCE_BUDGET, reference_store
from iclr26.harness.registry import get_experiment
from iclr26.harness.runner import judge, reproduce
from iclr26.harness.store import ResultStore

__all__ = ["PaperCheck", "SeedCheck", "metrics_agree", "verify"]


@dataclass
class SeedCheck:
    seed: int
    differing: list[str]
    max_rel_diff: float
    conditions: list[str] = field(default_factory=list)

    @property
    def equal(self) -> bool:
        return not self.differing


@dataclass
class PaperCheck:
    slug: str
    tolerance: float
    seeds: list[SeedCheck] = field(default_factory=list)
    verdict_changes: list[str] = field(default_factory=list)
    problem: str | None = None

    @property
    def agrees(self) -> bool:
        return self.problem is None and all(s.equal for s in self.seeds) and not self.verdict_changes


def metrics_agree(new: dict[str, float], ref: dict[str, float], tolerance: float) -> tuple[list[str], float]:
    """Names of the metrics that differ beyond `tolerance` (or exist on one side only) and the largest
    relative difference seen."""
    differing, worst = [], 0.0
    for name in sorted(set(new) | set(ref)):
        if name not in new or name not in ref:
            differing.append(name)
            continue
        a, b = float(new[name]), float(ref[name])
        if math.isnan(a) and math.isnan(b):
            continue
        if math.isnan(a) or math.isnan(b) or math.isinf(a) or math.isinf(b):
            if a != b:
                differing.append(name)
                worst = math.inf
            continue
        rel = abs(a - b) / max(1.0, abs(b))
        worst = max(worst, rel)
        if rel > tolerance:
            differing.append(name)
    return differing, worst


#: provenance fields that change a seed's numbers when they differ (the git commit is compared by the config)
CONDITIONS = ("lock", "torch", "python", "device", "threads", "blas_threads")


def run_conditions(reference: dict, new: dict) -> list[str]:
    """How the reference seed's recorded run conditions differ from the new run's: the candidate causes of a
    difference that is not in the code (thread counts, package versions, cached artifacts the reference loaded).

    >>> run_conditions({"threads": 1, "blas_threads": 2}, {"threads": 1, "blas_threads": 1})
    ['blas_threads: reference 2, now 1']
    >>> run_conditions({"cache": {"loaded": ["demo/ab"], "built": []}}, {"cache": {"loaded": [], "built": ["demo/ab"]}})
    ['the reference loaded 1 cached artifact(s) (demo/ab) that this run built']
    """
    out = [
        f"{k}: reference {reference.get(k, 'not recorded')}, now {new.get(k, 'not recorded')}"
        for k in CONDITIONS
        if k in reference and reference.get(k) != new.get(k)
    ]
    loaded = set((reference.get("cache") or {}).get("loaded", []))
    rebuilt = sorted(loaded - set((new.get("cache") or {}).get("loaded", [])))
    if rebuilt:
        shown = ", ".join(rebuilt[:3]) + (", ..." if len(rebuilt) > 3 else "")
        out.append(f"the reference loaded {len(rebuilt)} cached artifact(s) ({shown}) that this run built")
    return out


def verify(
    slugs: Sequence[str],
    budget: str = REFERENCE_BUDGET,
    executor: Executor | None = None,
    reference: ResultStore | None = None,
) -> list[PaperCheck]:
    """Rerun every reference seed of `slugs` at `budget` and compare; returns one :class:`PaperCheck` a paper."""
    reference = reference or reference_store()
    checks = []
    with tempfile.TemporaryDirectory(prefix="iclr26-verify-") as tmp:
        fresh = ResultStore(tmp)
        for slug in slugs:
            exp = get_experiment(slug)
            check = PaperCheck(slug, float(getattr(exp, "tolerance", 0.0)))
            checks.append(check)
            loaded = reference.load(slug, budget)
            config = exp.config_dict(budget)
            ref = [r for r in loaded.results if r.config == config]
            if not ref:
                stale = (
                    " (the shipped seeds were made with another config: rerun them)" if loaded.results else ""
                )
                check.problem = f"no reference seeds for {slug} at {budget}{stale}"
                continue
            seeds = sorted(r.seed for r in ref)
            if seeds != list(range(len(seeds))):
                check.problem = f"reference seeds of {slug} are not 0..n-1: {seeds}"
                continue
            [summary] = reproduce([slug], budget, len(seeds), "cpu", fresh, executor or LocalExecutor())
            new = {r.seed: r for r in summary.results}
            for r in ref:
                if r.seed not in new:
                    check.seeds.append(SeedCheck(r.seed, ["<seed did not run>"], math.inf))
                    continue
                differing, worst = metrics_agree(new[r.seed].metrics, r.metrics, check.tolerance)
                conditions = run_conditions(r.provenance, new[r.seed].provenance) if differing else []
                check.seeds.append(SeedCheck(r.seed, differing, worst, conditions))
            old_v = {cv.claim.id: cv.verdict.outcome for cv in judge(exp, budget, ref)}
            new_v = {cv.claim.id: cv.verdict.outcome for cv in summary.verdicts}
            check.verdict_changes = [
                f"{cid}: {old_v.get(cid).value if old_v.get(cid) else 'absent'} -> "
                f"{new_v.get(cid).value if new_v.get(cid) else 'absent'}"
                for cid in sorted(set(old_v) | set(new_v))
                if old_v.get(cid) is not new_v.get(cid)
            ]
    return checks
