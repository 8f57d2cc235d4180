"""Offline reproduction of C-Evolve's mechanism claim (Li et al., ICLR 2026, arXiv 2509.23331).

One harness seed = one stratified 60 / 20 / 20 split of ``load_digits`` and of ``load_wine``. On each, two runs
of the same island engine with the same seed and the same budget of child evaluations: C-Evolve (warm-up on
individual accuracy, then voting-score EMA fitness) and individual-fitness evolution (``warmup_frac = 1``:
AlphaEvolve/GEPA-like selection). The individual run gives three baselines: (a) its best single genome, (b) the
post-hoc group of each island's best, (c) the post-hoc top-K overall. Every final choice is scored once on the
test split by majority vote (ties: one seeded draw shared by all methods).

With ``llm`` set (``iclr26 reproduce c-evolve --budget B --llm URL@model``) the same two runs evolve instruction
prompts with that endpoint on generated arithmetic questions (:mod:`iclr26.agents.c_evolve.endpoint`), with the
budget's child evaluations and its ``n_feedback`` / ``n_metric`` / ``n_test`` sizes; the metrics are then the
endpoint's (``test_cevolve``, ``test_island_best``, ...), which :data:`ENDPOINT_CLAIMS` judges.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from iclr26.agents.c_evolve.cevolve import CEvolve, CEvolveResult
from iclr26.agents.c_evolve.endpoint import run_endpoint
from iclr26.agents.c_evolve.figures import consensus_gain_bars, diversity_scatter, group_accuracy_curves
from iclr26.agents.c_evolve.trees import TreeWorld, mutate_tree
from iclr26.checks import check_int
from iclr26.harness.claims import (
    Claim,
    Outcome,
    Precondition,
    Verdict,
    all_of,
    column,
    decider,
    effect_at_least,
)
from iclr26.harness.experiment import Curve, Experiment, Metrics
from iclr26.harness.stats import interval
from iclr26.lab.evolution import FunctionMutator

__all__ = ["DATASETS", "ENDPOINT_CLAIMS", "EXPERIMENT", "METHODS", "CEvolveConfig", "run"]

SALT = 2509_23331
DATASETS = ("digits", "wine")
METHODS = ("cevolve", "single", "island_best", "topk")


@dataclass(frozen=True)
class CEvolveConfig:
    """One budget: child evaluations per run, datasets, and the C-Evolve constants (paper defaults).

    ``llm`` (a :func:`iclr26.lab.llm.make_backend` spec) switches ``run`` to the endpoint path; ``n_feedback``,
    ``n_metric`` and ``n_test`` size its arithmetic sets and are unused offline.
    """

    budget: int = 300
    datasets: tuple[str, ...] = DATASETS
    n_islands: int = 3
    island_size: int = 10
    groups_per_iter: int = 10
    ema_alpha: float = 0.8
    warmup_frac: float = 0.5
    migration_rate: float = 0.1
    tau: float = 0.05
    curve_every: int = 5
    n_feedback: int = 6
    n_metric: int = 10
    n_test: int = 20
    llm: str | None = None

    def __post_init__(self) -> None:
        check_int("CEvolveConfig.budget", self.budget, low=self.n_islands)
        check_int("CEvolveConfig.curve_every", self.curve_every, low=1)
        for name in ("n_feedback", "n_metric", "n_test"):
            check_int(f"CEvolveConfig.{name}", getattr(self, name), low=1)


def _error_corr(world: TreeWorld, genomes: list[tuple]) -> float:
    """Mean pairwise correlation of the members' test-error indicators (NaN when a member makes no error)."""
    E = np.stack([(world.test_outputs(g) != world.yte).astype(float) for g in genomes])
    cs = []
    for i in range(len(genomes)):
        for j in range(i + 1, len(genomes)):
            if E[i].std() > 0 and E[j].std() > 0:
                cs.append(float(np.corrcoef(E[i], E[j])[0, 1]))
    return float(np.mean(cs)) if cs else float("nan")


def _curve(world: TreeWorld, res: CEvolveResult, pick: str, every: int, seed: int) -> tuple[list, list]:
    xs, ys = [], []
    for h in res.history:
        if h["iteration"] % every and h is not res.history[-1]:
            continue
        ids = h["group_ids"]
        if pick == "single":
            ids = [max(ids, key=lambda i: (res.individuals[i].score, -i))]
        genomes = [res.individuals[i].genome for i in ids]
        xs.append(float(h["evaluations"]))
        ys.append(world.test_accuracy(genomes, np.random.default_rng([seed, SALT, 7])))
    return xs, ys


def _run_endpoint(cfg: CEvolveConfig, seed: int) -> Metrics:
    from iclr26.lab.llm import make_backend

    backend = make_backend(cfg.llm)
    kw = dict(n_islands=cfg.n_islands, island_size=cfg.island_size, groups_per_iter=cfg.groups_per_iter,
              ema_alpha=cfg.ema_alpha, migration_rate=cfg.migration_rate, tau=cfg.tau)  # fmt: skip
    r = run_endpoint(backend, seed, cfg.budget, cfg.n_feedback, cfg.n_metric, cfg.n_test, **kw)
    artifacts = {"backend": backend.identity, "group": r["group"], "island_best": r["island_best"]}
    return Metrics(values=r["metrics"], artifacts=artifacts)


def run(cfg: CEvolveConfig, seed: int, device: str) -> Metrics:
    if cfg.llm is not None:
        return _run_endpoint(cfg, seed)
    values: dict[str, float] = {}
    curves: dict[str, Curve] = {}
    artifacts: dict[str, object] = {}
    for ds in cfg.datasets:
        world = TreeWorld(ds, seed)
        kw = dict(n_islands=cfg.n_islands, island_size=cfg.island_size, groups_per_iter=cfg.groups_per_iter,
                  ema_alpha=cfg.ema_alpha, migration_rate=cfg.migration_rate, tau=cfg.tau, seed=seed)  # fmt: skip
        mut = FunctionMutator(mutate_tree)
        cev = CEvolve(world.evaluate, mut, world.metric, warmup_frac=cfg.warmup_frac, **kw).run(
            cfg.budget, init=world.seed_genome
        )
        ind = CEvolve(world.evaluate, mut, world.metric, warmup_frac=1.0, **kw).run(
            cfg.budget, init=world.seed_genome
        )
        groups = {
            "cevolve": cev.best_group,
            "single": [ind.best_single()],
            "island_best": ind.best_of_each_island(),
            "topk": ind.top_k(),
        }
        tie_rng = np.random.SeedSequence([seed, SALT, DATASETS.index(ds)])
        for name, group in groups.items():
            genomes = [m.genome for m in group]
            acc = world.test_accuracy(genomes, np.random.default_rng(tie_rng))
            best_member = max(world.test_accuracy([g]) for g in genomes)
            values[f"test_{name}_{ds}"] = acc
            values[f"gain_{name}_{ds}"] = acc - best_member
            values[f"member_acc_{name}_{ds}"] = float(np.mean([world.test_accuracy([g]) for g in genomes]))
            values[f"val_{name}_{ds}"] = float(CEvolve(world.evaluate, mut, world.metric).group_score(
                group, np.random.default_rng(tie_rng)))  # fmt: skip
            if len(genomes) > 1:
                values[f"err_corr_{name}_{ds}"] = _error_corr(world, genomes)
        values[f"evals_cevolve_{ds}"] = float(cev.evaluations)
        values[f"evals_individual_{ds}"] = float(ind.evaluations)
        values[f"majority_{ds}"] = world.majority
        values[f"cevolve_over_majority_{ds}"] = values[f"test_cevolve_{ds}"] - world.majority
        values[f"island_best_over_majority_{ds}"] = values[f"test_island_best_{ds}"] - world.majority
        values[f"diff_cevolve_island_best_{ds}"] = (
            values[f"test_cevolve_{ds}"] - values[f"test_island_best_{ds}"]
        )
        for name, res, pick in (
            ("cevolve", cev, "group"),
            ("island_best", ind, "group"),
            ("single", ind, "single"),
        ):
            x, y = _curve(world, res, pick, cfg.curve_every, seed)
            y[-1] = values[
                f"test_{name}_{ds}"
            ]  # the last point is the final choice (after the last migration)
            curves[f"test_{name}_{ds}"] = Curve(x, y, "evaluations (children evaluated)", "test accuracy")
        artifacts[f"groups_{ds}"] = {n: [m.id for m in g] for n, g in groups.items()}
    return Metrics(values=values, curves=curves, artifacts=artifacts)


def _learned(ds: str, name: str) -> Precondition:
    return Precondition(f"{name}_over_majority_{ds}", ">", 0.0,
                        f"the {name} group on {ds} beats predicting the majority class of the test split")  # fmt: skip


def _not_worse_on(ds: str) -> object:
    a, b = f"test_cevolve_{ds}", f"test_island_best_{ds}"

    def synth(rows):
        return [{**r, a: float(r[b]) + 0.01 + 1e-4 * i} for i, r in enumerate(rows)]

    # a non-inferiority guard, not a claimed win: no ``compares`` entry (equal values must pass it)
    @decider(a, b, description=f"{a} not below {b} beyond the 95% bootstrap interval", synthesize=synth)
    def fn(rows):
        d = column(rows, a) - column(rows, b)
        iv = interval(d, 0.95, "bootstrap")
        text = f"{a} - {b} = {iv.estimate:.4f} [{iv.lo:.4f}, {iv.hi:.4f}]"
        if iv.hi < 0:
            return Verdict(Outcome.INCONCLUSIVE, "worse beyond the interval: " + text, iv.estimate,
                           (iv.lo, iv.hi), len(rows))  # fmt: skip
        return Verdict(Outcome.SUPPORTED, "not worse beyond the interval: " + text, iv.estimate, (iv.lo, iv.hi),
                       len(rows))  # fmt: skip

    return fn


def _claims(datasets: tuple[str, ...]) -> list[Claim]:
    main = effect_at_least("test_cevolve_digits", "test_island_best_digits", support_at=0.01, null=0.0,
                           refute_below=0.0, method="bootstrap")  # fmt: skip
    decide = all_of(main, _not_worse_on("wine"))
    pre = [_learned(ds, name) for ds in datasets for name in ("cevolve", "island_best")]
    return [
        Claim(
            excludes=("llm",),  # a run against an endpoint measures the endpoint claim instead
            id="voting-fitness-beats-posthoc-groups",
            statement=(
                "At an equal budget of child evaluations, C-Evolve's group (voting-score EMA fitness, each "
                "island's top member, majority vote) reaches a test accuracy >= 1 point above the post-hoc group "
                "of each island's best from individual-fitness island evolution on digits (mean over splits, "
                "paired-bootstrap 95% interval of the difference above 0; refuted when it lies at or below 0), "
                "and is not worse on wine beyond its interval"
            ),
            paper_value=(
                "IFBench, Qwen3-8B (Tab. 2): AlphaEvolve's 3 island-best prompts voted post hoc 41.15; C-Evolve's "
                "3 prompts 40.47 / 39.79 / 38.77 alone, 43.88 voted; HotpotQA 70.67 vs GEPA 65.72"
            ),
            decide=decide,
            scale_gap=(
                "decision-tree genomes (feature mask, depth, leaf size) on load_digits / load_wine with random "
                "mutation instead of LLM-reflected prompts on HotpotQA / IFBench / MATH"
            ),
            preconditions=tuple(pre),
        )
    ]


ENDPOINT_CLAIMS = [
    Claim(
        requires=("llm",),
        id="llm-voting-fitness-beats-posthoc-groups",
        statement=(
            "Against an LLM endpoint, at an equal budget of child evaluations, C-Evolve's group of instruction "
            "prompts (voting-score EMA fitness, majority vote over the replies) reaches a test accuracy >= 1 point "
            "above the post-hoc group of each island's best prompt from individual-fitness evolution on generated "
            "arithmetic questions (mean over seeds, paired-bootstrap 95% interval of the difference above 0; "
            "refuted when it lies at or below 0)"
        ),
        paper_value=(
            "IFBench, Qwen3-8B (Tab. 2): AlphaEvolve's 3 island-best prompts voted post hoc 41.15 vs C-Evolve's "
            "group 43.88; HotpotQA 70.67 vs GEPA 65.72"
        ),
        decide=effect_at_least(
            "test_cevolve",
            "test_island_best",
            support_at=0.01,
            null=0.0,
            refute_below=0.0,
            method="bootstrap",
        ),  # fmt: skip
        scale_gap="generated a + b * c questions instead of HotpotQA / IFBench / MATH; the endpoint the user names",
        preconditions=(
            Precondition(
                "cevolve_over_mode",
                ">",
                0.0,
                "C-Evolve's group beats always answering the most frequent seen answer",
            ),  # fmt: skip
            Precondition(
                "island_best_over_mode",
                ">",
                0.0,
                "the island-best group beats always answering the most frequent seen answer",
            ),  # fmt: skip
        ),
    )
]
"""The paper's claim judged on the endpoint metrics (only a run with ``llm`` set has them): registered with
``requires=("llm",)``, so an offline run reports it as not judged and is never asked for its metrics."""


EXPERIMENT = Experiment(
    slug="c-evolve",
    configs={
        "smoke": CEvolveConfig(budget=42, curve_every=2, n_feedback=3, n_metric=4, n_test=6),
        "quick": CEvolveConfig(),
        "full": CEvolveConfig(budget=600, n_feedback=10, n_metric=20, n_test=100),
    },
    seeds={"smoke": 2, "quick": 10, "full": 30},
    run=run,
    claims=[*_claims(DATASETS), *ENDPOINT_CLAIMS],
    figures=[group_accuracy_curves, consensus_gain_bars, diversity_scatter],
    scale_gap=(
        "The selection mechanism (islands, voting-score EMA, majority vote) runs exactly; the genomes are "
        "decision trees on bundled scikit-learn data and mutation is random, not an LLM."
    ),
)
