"""MASS's three-stage search and the search baselines, at a shared evaluation budget.

Stage 1 (block-level APO): MIPROLike on the Predictor; then each block type a of the block set is instantiated
minimally around the optimized predictor (Aggregate(3), Reflect(1), Debate(3, 1), Summarize, Executor), its
extra agents' prompts are optimized the same way (Aggregate and Executor have none: they are scored once), and
its incremental influence I_a = E(a*) / E(a_0*) is recorded (full-validation accuracy of the optimized block
over the optimized predictor's).
Stage 2 (pruned topology search): p_a = softmax(I_a / t); candidate workflows are drawn by switching each
dimension on with probability p_a, its size uniform in its range, rejecting workflows over ``max_agents``
agents (and duplicates); up to ``n_topologies`` candidates are scored ``repeats`` times on the whole validation
set with the stage-1 prompts, and the best mean is kept.
Stage 3 (workflow-level APO): MIPROLike jointly over every role of the chosen workflow, its stage-2 prompts as
candidate 0; the stage-3 result replaces the stage-2 prompts only if its full-validation score is higher.
The budget is split 40 / 30 / 30 % of evaluation units over the enabled stages; what a stage leaves unspent
passes to the next.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from iclr26.agents.mass.apo import MIPROLike, as_budget, root_used
from iclr26.agents.mass.blocks import BLOCK_NAMES, Aggregate, Debate, Executor, Reflect, Summarize, Workflow
from iclr26.agents.mass.items import ItemSet
from iclr26.agents.mass.prompts import ROLES, PromptConfig
from iclr26.agents.mass.simulated import SimulatedLLM
from iclr26.checks import check_float, check_int
from iclr26.lab.evolution import BudgetedEvaluator, BudgetExhausted, EvaluationBudget, softmax_weights
from iclr26.lab.llm import LLMBackend

__all__ = [
    "MASS",
    "MINIMAL_BLOCKS",
    "SIZES",
    "default_prompts",
    "evaluate",
    "manual_baselines",
    "random_joint_search",
    "random_search",
    "sample_topology",
    "topology_only_search",
]

SIZES: dict[str, tuple] = {
    "aggregate": (3, 5, 7, 9),
    "reflect": (1, 2, 3),
    "debate": tuple((n, r) for n in (2, 3, 4) for r in (1, 2)),
    "summarize": (True,),
    "executor": (True,),
}
MINIMAL_BLOCKS = {
    "aggregate": (Aggregate(3), ()),
    "reflect": (Reflect(1), ("reflector",)),
    "debate": (Debate(3, 1), ("debater",)),
    "summarize": (Summarize(), ("summarizer",)),
    "executor": (Executor(), ()),
}
STAGE_SPLIT = (0.4, 0.3, 0.3)


def default_prompts(backend: LLMBackend, base: PromptConfig | None = None) -> dict[str, PromptConfig]:
    """Every role's hand-written default: the simulated world's instruction 0, else `base` (or a CoT line)."""
    if isinstance(backend, SimulatedLLM):
        return {r: backend.default_prompt(r) for r in ROLES}
    generic = {
        "predictor": "Think step by step, then answer.",
        "reflector": "Check the proposed answer carefully.",
        "debater": "Discuss with the other agents and give your best answer.",
        "summarizer": "Summarize the question's key facts.",
    }
    return {r: base if base is not None and r == "predictor" else PromptConfig(t) for r, t in generic.items()}


def evaluate(
    workflow: Workflow,
    prompts: Mapping[str, PromptConfig],
    backend: LLMBackend,
    items: ItemSet,
    seed: int = 0,
) -> float:
    """Accuracy of `workflow` with `prompts` on `items` (one run, seeded)."""
    return items.accuracy(workflow(backend, prompts, items, seed=seed))


def sample_topology(
    probs: Mapping[str, float], rng: np.random.Generator, max_agents: int = 10, max_tries: int = 1000
) -> Workflow:
    """One workflow: each dimension on with probability ``probs[name]``, its size uniform; rejection over
    ``max_agents`` agents (raises after ``max_tries`` rejections)."""
    for _ in range(max_tries):
        spec: dict[str, Any] = {}
        for name in BLOCK_NAMES:
            p = float(probs.get(name, 0.0))
            on = rng.random() < p
            size = SIZES[name][int(rng.integers(0, len(SIZES[name])))]
            if on:
                spec[name] = size
        wf = Workflow.from_spec(spec)
        if wf.n_agents <= max_agents:
            return wf
    raise RuntimeError(
        f"no workflow with at most {max_agents} agents in {max_tries} draws from {dict(probs)}"
    )


class MASS:
    """Multi-Agent System Search (see the module docstring).

    Parameters
    ----------
    backend : LLMBackend (a :class:`SimulatedLLM` offline, any chat backend otherwise).
    apo : MIPROLike or dict of its keyword arguments (default: 8 instructions x 6 demo sets).
    split : fractions of the budget for stages 1, 2, 3 (default 40 / 30 / 30).
    temperature : t in p_a = softmax(I_a / t) (paper: 0.05).
    n_topologies, max_agents, repeats : stage 2 (paper: 10 candidates, <= 10 agents, 3 validation runs each).
    block_set : block types to consider (``("predictor",)`` alone: stage 1 is plain MIPROLike).
    stages : the enabled stages, a subset of (1, 2, 3) containing 1.
    predictor_share : the predictor's part of the stage-1 budget when the block set has blocks.

    Examples
    --------
    >>> from iclr26.agents.mass import SimulatedLLM
    >>> llm = SimulatedLLM(0, n_train=12, n_val=20, n_test=10)
    >>> wf, prompts, trace = MASS(llm, apo={"n_instructions": 4, "n_demo_sets": 3, "minibatch": 10},
    ...                           n_topologies=2, repeats=1).run(llm.train, llm.val, 1200)
    >>> trace["evals_used"] <= 1200
    True
    """

    def __init__(
        self,
        backend: LLMBackend,
        *,
        apo: MIPROLike | Mapping[str, Any] | None = None,
        split: Sequence[float] = STAGE_SPLIT,
        temperature: float = 0.05,
        n_topologies: int = 10,
        max_agents: int = 10,
        repeats: int = 3,
        block_set: Sequence[str] = ("predictor", *BLOCK_NAMES),
        stages: Sequence[int] = (1, 2, 3),
        predictor_share: float = 0.4,
        seed: int = 0,
    ) -> None:
        if not isinstance(backend, LLMBackend):
            raise TypeError(f"backend must be an LLMBackend, got {type(backend).__name__}")
        self.backend = backend
        self.apo = (
            apo
            if isinstance(apo, MIPROLike)
            else MIPROLike(backend, **{"n_instructions": 8, "n_demo_sets": 6, **(apo or {})})
        )
        self.split = tuple(check_float("split", f, 0.0, 1.0) for f in split)
        if len(self.split) != 3 or abs(sum(self.split) - 1.0) > 1e-9:
            raise ValueError(f"split must be three fractions summing to 1, got {tuple(split)!r}")
        self.temperature = check_float("temperature", temperature, 0.0, low_open=True)
        self.n_topologies = check_int("n_topologies", n_topologies, low=1)
        self.max_agents = check_int("max_agents", max_agents, low=1)
        self.repeats = check_int("repeats", repeats, low=1)
        unknown = [b for b in block_set if b not in ("predictor", *BLOCK_NAMES)]
        if unknown:
            raise ValueError(
                f"unknown block names {unknown} in block_set; blocks are predictor, {', '.join(BLOCK_NAMES)}"
            )
        self.blocks = [b for b in BLOCK_NAMES if b in block_set]
        self.stages = tuple(sorted(set(stages)))
        if 1 not in self.stages or any(s not in (1, 2, 3) for s in self.stages):
            raise ValueError(f"stages must be a subset of (1, 2, 3) containing 1, got {tuple(stages)!r}")
        self.predictor_share = check_float("predictor_share", predictor_share, 0.0, 1.0, low_open=True)
        self.seed = check_int("seed", seed, low=0)

    def _fraction(self, stage: int) -> float:
        """The part of the remaining budget stage `stage` gets (later enabled stages keep their shares)."""
        later = [s for s in self.stages if s >= stage]
        return self.split[stage - 1] / sum(self.split[s - 1] for s in later)

    def run(
        self, train: ItemSet, val: ItemSet, budget: int | EvaluationBudget
    ) -> tuple[Workflow, dict[str, PromptConfig], dict[str, Any]]:
        """Search; returns the best workflow, its prompts and a trace (stage scores, influences, curve)."""
        if len(val) == 0:
            raise ValueError("val must hold at least one item (D_val is empty)")
        budget = as_budget(budget)
        mb = min(self.apo.minibatch, len(val))
        per_apo = len(val) + mb  # the least one MIPROLike run can work with
        need1 = per_apo
        if self.blocks:  # the predictor's share and the blocks' equal parts of the rest must each fit one run
            need1 = int(max(np.ceil(per_apo / self.predictor_share),
                            np.ceil(len(self.blocks) * per_apo / max(1.0 - self.predictor_share, 1e-9))))  # fmt: skip
        need = {1: need1, 2: self.repeats * len(val), 3: len(val) + mb}
        total = budget.remaining
        for s in self.stages:
            share = self.split[s - 1] / sum(self.split[t - 1] for t in self.stages)
            if share * total < need[s]:
                raise ValueError(
                    f"budget {total} too small for the stage split {self.split}: stage {s} gets "
                    f"{int(share * total)} evaluations but needs at least {need[s]}"
                )
        rng = np.random.default_rng(np.random.SeedSequence([self.seed, 0x3A55]))
        prompts = default_prompts(self.backend)
        trace: dict[str, Any] = {"curve": [], "influence": {}, "probs": {}, "candidates": []}

        # ---- stage 1: block-level APO
        s1 = EvaluationBudget(int(self._fraction(1) * budget.remaining), name="stage 1", parent=budget)
        pred_units = s1.limit if not self.blocks else int(self.predictor_share * s1.limit)
        res0 = self.apo.optimize(Workflow(), prompts, ("predictor",), train, val,
                                 EvaluationBudget(pred_units, name="stage 1 predictor", parent=s1), seed=self.seed)  # fmt: skip
        prompts = dict(res0.prompts)
        e0 = res0.val_score
        trace["curve"] += res0.curve
        trace["stage1_predictor_val"] = e0
        trace["snapshots"] = {"stage1": (Workflow(), dict(prompts))}
        for k, name in enumerate(self.blocks):
            block, roles = MINIMAL_BLOCKS[name]
            wf = Workflow([block])
            left = len(self.blocks) - k
            units = s1.remaining // left
            if roles:
                sub = EvaluationBudget(units, name=f"stage 1 {name}", parent=s1)
                res = self.apo.optimize(
                    wf, prompts, roles, train, val, sub, seed=int(rng.integers(0, 2**31 - 1))
                )
                prompts.update({r: res.prompts[r] for r in roles})
                score = res.val_score
                trace["curve"] += res.curve
            else:
                ev = BudgetedEvaluator(
                    lambda s, wf=wf: evaluate(wf, prompts, self.backend, val, s), s1, cost=len(val)
                )
                score = ev(int(rng.integers(0, 2**31 - 1)))
                trace["curve"].append((root_used(budget), score))
            trace["influence"][name] = score / e0 if e0 > 0 else float("nan")
        best_wf, best_score = Workflow(), e0
        trace["best_val_after_stage1"] = e0

        # ---- stage 2: pruned topology search
        if 2 in self.stages and self.blocks:
            s2 = EvaluationBudget(int(self._fraction(2) * budget.remaining), name="stage 2", parent=budget)
            infl = np.array([trace["influence"][b] for b in self.blocks], dtype=float)
            infl = np.where(np.isfinite(infl), infl, -np.inf)
            p = softmax_weights(infl, self.temperature)
            trace["probs"] = {b: float(v) for b, v in zip(self.blocks, p)}
            seen: set[str] = set()
            ev = BudgetedEvaluator(
                lambda a: evaluate(a[0], prompts, self.backend, val, a[1]), s2, cost=len(val)
            )
            best_wf, best_score = None, -1.0
            for _ in range(50 * self.n_topologies):
                if len(seen) >= self.n_topologies or not s2.can_afford(self.repeats * len(val)):
                    break
                wf = sample_topology(trace["probs"], rng, self.max_agents)
                if wf.describe() in seen:
                    continue
                seen.add(wf.describe())
                scores = [ev((wf, int(rng.integers(0, 2**31 - 1)))) for _ in range(self.repeats)]
                mean = float(np.mean(scores))
                trace["candidates"].append((wf.describe(), mean))
                trace["curve"].append((root_used(budget), mean))
                if mean > best_score:
                    best_wf, best_score = wf, mean
            if best_wf is None:
                best_wf, best_score = Workflow(), e0
        trace["snapshots"]["stage2"] = (best_wf, dict(prompts))
        trace["best_val_after_stage2"] = best_score

        # ---- stage 3: workflow-level APO
        if 3 in self.stages:
            s3 = EvaluationBudget(budget.remaining, name="stage 3", parent=budget)
            try:
                res = self.apo.optimize(best_wf, prompts, sorted(best_wf.roles), train, val, s3,
                                        seed=int(rng.integers(0, 2**31 - 1)))  # fmt: skip
            except ValueError:  # what stages 1-2 left is too little for an APO run: keep the stage-2 result
                res = None
            if res is not None:
                trace["curve"] += res.curve
                if res.val_score > best_score:
                    prompts, best_score = dict(res.prompts), res.val_score
        trace["snapshots"]["stage3"] = (best_wf, dict(prompts))
        trace["best_val_after_stage3"] = best_score
        trace["evals_used"] = budget.used
        trace["workflow"] = best_wf.describe()
        return best_wf, prompts, trace


def random_search(
    backend: LLMBackend,
    train: ItemSet,
    val: ItemSet,
    budget: int | EvaluationBudget,
    *,
    prompts: str = "random",
    pools: Mapping[str, tuple[Sequence[str], Sequence[tuple]]] | None = None,
    max_agents: int = 10,
    seed: int = 0,
) -> tuple[Workflow, dict[str, PromptConfig], dict[str, Any]]:
    """Random search over topologies (each block on with probability 1/2, size uniform, <= `max_agents`).

    ``prompts="random"``: every role's (instruction, demo set) uniform from `pools` (role -> (instructions,
    demo sets); default: the simulated world's pools, or the defaults alone on other backends): random joint
    search; ``"default"``: the hand-written defaults (topology-only search, ADAS/AFlow-like in spirit).
    Each candidate is scored once on the whole validation set until the budget cannot pay for another.
    """
    if prompts not in ("random", "default"):
        raise ValueError(f"prompts must be 'random' or 'default', got {prompts!r}")
    if len(val) == 0:
        raise ValueError("val must hold at least one item (D_val is empty)")
    budget = as_budget(budget)
    if budget.remaining < len(val):
        raise ValueError(
            f"budget too small: one candidate costs |val| = {len(val)} evaluations, {budget.remaining} left"
        )
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0x5EA5C4]))
    base = default_prompts(backend)
    if pools is not None:
        pool = {r: (list(i), list(d)) for r, (i, d) in pools.items()}
    elif isinstance(backend, SimulatedLLM):
        pool = {r: (list(backend.instructions[r]), list(backend.demo_sets[r])) for r in ROLES}
    else:
        pool = {r: ([p.instruction], [p.demos]) for r, p in base.items()}
    ev = BudgetedEvaluator(lambda a: evaluate(a[0], a[1], backend, val, a[2]), budget, cost=len(val))
    best: tuple[Workflow, dict[str, PromptConfig], float] = (Workflow(), base, -1.0)
    curve = []
    half = dict.fromkeys(BLOCK_NAMES, 0.5)
    while True:
        wf = sample_topology(half, rng, max_agents)
        cand = dict(base)
        if prompts == "random":
            for r, (instr, demos) in pool.items():
                cand[r] = PromptConfig(
                    instr[int(rng.integers(0, len(instr)))], demos[int(rng.integers(0, len(demos)))]
                )
        try:
            score = ev((wf, cand, int(rng.integers(0, 2**31 - 1))))
        except BudgetExhausted:
            break
        curve.append((root_used(budget), score))
        if score > best[2]:
            best = (wf, cand, score)
    return (
        best[0],
        best[1],
        {"curve": curve, "best_val": best[2], "evals_used": budget.used, "workflow": best[0].describe()},
    )


def random_joint_search(backend: LLMBackend, train: ItemSet, val: ItemSet, budget: int | EvaluationBudget,
                        **kw: Any) -> tuple[Workflow, dict[str, PromptConfig], dict[str, Any]]:  # fmt: skip
    """Random search over (topology, prompts) jointly: :func:`random_search` with ``prompts="random"``."""
    return random_search(backend, train, val, budget, prompts="random", **kw)


def topology_only_search(backend: LLMBackend, train: ItemSet, val: ItemSet, budget: int | EvaluationBudget,
                         **kw: Any) -> tuple[Workflow, dict[str, PromptConfig], dict[str, Any]]:  # fmt: skip
    """Random topology search with default prompts (ADAS/AFlow-like in spirit): ``prompts="default"``."""
    return random_search(backend, train, val, budget, prompts="default", **kw)


def manual_baselines(
    sc_n: int = 5, refine_rounds: int = 1, debate_agents: int = 3, debate_rounds: int = 2
) -> dict[str, Workflow]:
    """The hand-written workflows (run with default prompts): CoT, self-consistency, self-refine, debate."""
    check_int("sc_n", sc_n, low=1)
    check_int("refine_rounds", refine_rounds, low=0)
    check_int("debate_agents", debate_agents, low=1)
    check_int("debate_rounds", debate_rounds, low=0)
    return {
        "cot": Workflow(),
        "sc": Workflow([Aggregate(sc_n)]),
        "self_refine": Workflow([Reflect(refine_rounds)]),
        "debate": Workflow([Debate(debate_agents, debate_rounds)]),
    }
